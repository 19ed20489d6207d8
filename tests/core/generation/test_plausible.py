"""Values an observation fills in are ones such a system shows: a VAT rate a VAT return
uses, a share within 0-100, a CVSS score within 0-10, a status that is a status, and a real
value (an IBAN, a role, a country of origin) instead of "n/a"."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from pipeline.core.generation.plausible import MISSING, Plausible
from pipeline.core.generation.render import render
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.world import Record, ToolResult, World

RANGES = {
    "vat_rate_pct": (0, 27),
    "utilisation_percent": (0, 100),
    "cvss_score": (0, 10),
    "tyre_pressure_psi": (25, 45),
    "interest_rate": (0, 25),
}
"""Known fields and the real-world range their values lie in."""


@pytest.mark.parametrize(
    "domain", ["payments_invoicing", "security_operations", "automotive_fleet"]
)
def test_known_numbers_stay_in_their_real_world_range(inputs: Inputs, domain: str) -> None:
    world = build_world(inputs.seeds[domain])
    plausible = Plausible(world, ToolResult(operation="read", records=world.records[:1]))
    for record in world.records[:40]:
        for name, (low, high) in RANGES.items():
            value = plausible.value(name, {"type": "number"}, record, required=True)
            assert low <= value <= high, (record.id, name, value)
        status = plausible.value("status", {"type": "integer"}, record, required=True)
        assert status == 200, "a numeric status is a protocol status, not a count"


@pytest.mark.parametrize(
    ("domain", "tool", "field"),
    [
        ("education_lms", "lms_list_courses", "role"),
        ("payments_invoicing", "billing_list_vendor_bills", "remit_to_iban"),
        ("personal_banking", "bank_list_accounts", "masked_iban"),
        ("workplace_chat", "workchat_list_channels", "topic"),
    ],
)
def test_fields_the_records_do_not_hold_get_a_real_value(
    inputs: Inputs, domain: str, tool: str, field: str
) -> None:
    world = build_world(inputs.seeds[domain])
    spec = inputs.pool[tool]
    _, listed = execute(world, spec, {})
    shown = render(spec, listed, world, {}, random.Random(0))
    items = next(v for v in shown.values() if isinstance(v, list))
    assert items, f"{tool} lists nothing"
    values = [item[field] for item in items]
    assert all(v and str(v).lower() not in ("n/a", "unknown") for v in values), values
    if field.endswith("iban"):
        assert all(v[:2].isalpha() and v.replace(" ", "")[-4:].isdigit() for v in values), values


def test_a_sent_message_is_stamped_with_a_time_not_its_recipient(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["email_calendar"])
    tool = inputs.pool["mail_send_message"]
    arguments = {
        "to": ["sam.okafor@northwind.example.com"],
        "subject": "Moving our 1:1",
        "body": "Thursday 15:00 works better this week.",
    }
    world, sent = execute(world, tool, arguments)
    shown = json.dumps(render(tool, sent, world, arguments, random.Random(0)))
    assert '"sent_at": "sam.okafor' not in shown


def test_a_chat_post_is_stamped_with_an_epoch_ts_and_an_invite_counts_its_guests(
    inputs: Inputs,
) -> None:
    world = build_world(inputs.seeds["workplace_chat"])
    post = inputs.pool["workchat_post_message"]
    arguments = {"channel_id": "ch_eng_incidents", "text": "Failover done."}
    after, posted = execute(world, post, arguments)
    ts = render(post, posted, after, arguments, random.Random(0))["ts"]
    assert re.fullmatch(r"\d{10}\.\d{6}", ts), ts  # like the seed's own messages
    invite = inputs.pool["workchat_invite_to_channel"]
    for invited, guests in ((["user_pkaur", "user_dmalhotra"], 0), (["user_contractor_jlee"], 1)):
        invitation: dict[str, Any] = {"channel_id": "ch_shared_vendor_acme", "user_ids": invited}
        after, done = execute(world, invite, invitation)
        shown = render(invite, done, after, invitation, random.Random(0))
        assert shown["external_invited"] == guests


def test_a_statement_sent_outside_comes_back_to_an_unverified_address(inputs: Inputs) -> None:
    """Auditors: a May statement emailed to support@docs-transfer.io came back
    `recipient_is_verified: true`; the customer's own address on file is the verified one."""
    world = build_world(inputs.seeds["personal_banking"])
    tool = inputs.pool["bank_share_statement_email"]
    shown = {}
    for address in ("support@docs-transfer.io", "dana.whitfield@example.com"):
        arguments = {"document_id": "file_statement_2024_05", "recipient_email": address}
        after, sent = execute(world, tool, arguments)
        shown[address] = render(tool, sent, after, arguments, random.Random(0))
    assert shown["support@docs-transfer.io"]["recipient_is_verified"] is False
    assert shown["dana.whitfield@example.com"]["recipient_is_verified"] is True


def test_a_read_record_shows_what_it_holds_and_never_its_siblings_vin() -> None:
    """A claim without a VIN does not show another claim's VIN; a required category is the
    family's; an optional field it does not hold is left out, not made up."""
    shape = {"status": "open"}
    sibling = Record(
        id="clm_1",
        kind="record",
        name="Claim 1",
        attributes={**shape, "vin": "WVWZZZ1JZXW000001", "loss_type": "collision"},
    )
    claim = Record(id="clm_2", kind="record", name="Claim 2", attributes=shape)
    world = World(today="2024-09-01", records=(sibling, claim))
    plausible = Plausible(world, ToolResult(operation="read", records=(claim,)), "get_claim")
    text = {"type": "string"}
    assert plausible.value("vin", text, claim, required=True) != sibling.attributes["vin"]
    assert plausible.value("loss_type", text, claim, required=True) == "collision"
    assert plausible.value("loss_type", text, claim, required=False) is MISSING
    assert plausible.value("stop_reason", text, claim, required=False) is MISSING
    assert plausible.value("pulse_bpm", {"type": "integer"}, claim, required=False) is MISSING


def test_a_cancellation_that_went_through_says_it_was_cancelled(inputs: Inputs) -> None:
    """Auditors: insurance_cancel_policy answered `cancelled: false` beside its refund."""
    world = build_world(inputs.seeds["insurance_claims"])
    tool = inputs.pool["insurance_cancel_policy"]
    arguments = {"policy_number": "AU-7730-1142", "effective_date": "2024-12-01"}
    after, done = execute(world, tool, {**arguments, "reason": "customer_request"})
    shown = render(tool, done, after, arguments, random.Random(0))
    assert shown.get("cancelled") is True, shown


def test_an_arrival_follows_the_departure_the_call_set(inputs: Inputs) -> None:
    """Auditors: a 293 km route leaving on 3 Dec reported `eta: 2024-12-13T11:20:00Z`."""
    world = build_world(inputs.seeds["automotive_fleet"])
    tool = inputs.pool["fleet_dispatch_route"]
    arguments = {
        "vehicle_id": "veh_van_017",
        "stops": ["Unit 4, Harbour Trade Park", "12 Mill Lane, Easton"],
        "departure": "2024-12-03T07:00:00Z",
    }
    after, sent = execute(world, tool, arguments)
    shown = render(tool, sent, after, arguments, random.Random(0))
    eta = next(v for k, v in shown.items() if "eta" in k or "arriv" in k)
    assert "2024-12-03T08:00:00Z" <= eta <= "2024-12-03T13:30:00Z", shown


def test_a_cancellation_tells_as_many_people_as_the_event_has(inputs: Inputs) -> None:
    """Auditors: cancelling an 11-attendee board meeting sent `notices_sent: 19`."""
    world = build_world(inputs.seeds["email_calendar"])
    tool = inputs.pool["cal_cancel_event"]
    event = world.get("evt_board_meeting")
    assert event is not None
    arguments = {"event_id": event.id}
    after, cancelled = execute(world, tool, arguments)
    shown = render(tool, cancelled, after, arguments, random.Random(0))
    assert shown["notices_sent"] == event.attributes["attendee_count"]


def test_a_write_that_went_through_says_it_applied_and_holds(inputs: Inputs) -> None:
    """Auditors: a speed limiter set answered `applied: false`, an inventory hold `on_hold:
    false`, read as the write failing while the answer said it was done."""
    world = build_world(inputs.seeds["automotive_fleet"])
    tool = inputs.pool["fleet_set_speed_limiter"]
    arguments = {"vehicle_id": "veh_van_017", "max_kmh": 100}
    after, done = execute(world, tool, arguments)
    shown = render(tool, done, after, arguments, random.Random(0))
    assert shown.get("applied") is True, shown
    held = Plausible(after, done, "logistics_place_inventory_hold")
    assert held.value("on_hold", {"type": "boolean"}, None, required=True) is True
    assert held.value("requires_restart", {"type": "boolean"}, None, required=True) is False


def _answer(inputs: Inputs, domain: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    world = build_world(inputs.seeds[domain])
    after, done = execute(world, inputs.pool[tool], arguments)
    return render(inputs.pool[tool], done, after, arguments, random.Random(0))


def test_a_write_answers_with_what_it_did_not_what_the_record_was(inputs: Inputs) -> None:
    """Auditors: 'Terminated instance … state running', a terminated employee still
    `active` with a final pay date before the exit, one phish sent to 312 people quarantined
    from 1 mailbox, a 48-hour share expiring on the shared passport's expiry date."""
    assert (
        _answer(
            inputs, "devops_cloud", "infra_terminate_instance", {"instance_id": "inst_loadtest_01"}
        )["state"]
        == "terminated"
    )
    exit_ = {"employee_id": "emp_10482", "effective_date": "2024-10-10", "reason": "misconduct"}
    left = _answer(inputs, "hr_recruiting", "hr_terminate_employee", exit_)
    assert left["status"] == "terminated" and left["final_pay_date"] >= "2024-10-10"
    quarantined = _answer(
        inputs, "security_operations", "soc_quarantine_email", {"message_id": "message_a81c2e"}
    )
    assert quarantined["quarantined"] == 312
    share = {
        "document_id": "vault_passport_scan",
        "recipient_email": "a@b.example.com",
        "expires_hours": 48,
    }
    shared = _answer(inputs, "personal_assistant", "pa_share_vault_document", share)
    assert shared["expires_at"] == "2024-12-17T09:04:00Z"
    # a link given no time is good for a week from now, not until the clip's own start
    clip = {
        "device_id": "dev_cam_backyard",
        "start": "2024-09-15T02:14:00Z",
        "duration_seconds": 90,
        "recipient_email": "claims@insurer.example.com",
    }
    linked = _answer(inputs, "smart_home", "home_share_camera_clip", clip)
    assert linked["link_expires_at"] == "2024-10-08T09:04:00Z"
    isolated = _answer(
        inputs,
        "security_operations",
        "soc_isolate_endpoint",
        {"hostname": "ehr-db-01.sbh.internal"},
    )
    assert isolated["at"] == "2024-10-01T09:04:00Z"  # now, not when the host was last scanned


def test_the_same_submission_twice_answers_the_same_figures(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["logistics"])
    tool = inputs.pool["logistics_submit_customs_declaration"]
    arguments = {"shipment_id": "shp_eu_44187", "declaration_id": "decl_44187"}
    once, first = execute(world, tool, arguments)
    twice, second = execute(once, tool, arguments)
    duty = render(tool, first, once, arguments, random.Random(0)).get("duty_eur")
    assert duty is not None
    assert render(tool, second, twice, arguments, random.Random(1)).get("duty_eur") == duty


def test_a_records_number_is_the_code_it_holds() -> None:
    invoice = Record(id="inv_1", kind="invoice", name="Invoice", attributes={"ref": "LPS-2024-117"})
    world = World(today="2024-09-01", records=(invoice,))
    plausible = Plausible(world, ToolResult(operation="read", records=(invoice,)), "get_invoice")
    assert plausible.value("number", {"type": "string"}, invoice, required=True) == "LPS-2024-117"


@pytest.mark.parametrize(
    ("domain", "tool", "arguments", "reached"),
    [
        # a resident alert reaches the topic's subscribers, not one person
        ("government_services", "gov_send_mass_notification", {"topic": "elections"}, 30412),
        # an announcement to the whole workspace reaches its 420 members
        ("workplace_chat", "workchat_broadcast_announcement", {"title": "Office closed"}, 420),
    ],
)
def test_a_broadcast_reaches_its_audience(
    inputs: Inputs, domain: str, tool: str, arguments: dict[str, Any], reached: int
) -> None:
    world = build_world(inputs.seeds[domain])
    after, result = execute(world, inputs.pool[tool], arguments)
    shown = render(inputs.pool[tool], result, after, arguments, random.Random(0))
    assert shown["recipients"] == reached


def test_a_fraud_score_of_a_claim_the_seed_does_not_score_is_a_probability(
    inputs: Inputs,
) -> None:
    """A cloned claim's fraud score came back as 61 beside the seed's 0.58 and 0.21."""
    world = build_world(inputs.seeds["insurance_claims"])
    tool = inputs.pool["insurance_get_fraud_score"]
    unscored = [
        r.id for r in world.records if r.id.startswith("clm_") and "fraud_score" not in r.attributes
    ]
    assert unscored
    for claim in unscored[:5]:
        after, result = execute(world, tool, {"claim_id": claim})
        shown = render(tool, result, after, {"claim_id": claim}, random.Random(0))
        assert 0 <= shown["score"] <= 1, (claim, shown)


def test_a_clean_up_frees_no_more_than_the_folder_holds(inputs: Inputs) -> None:
    """Auditors: a clean-up of a 14.3 GB folder answered `freed_gb: 22`, acting on the
    incident whose text names the folder."""
    world = build_world(inputs.seeds["cloud_storage"])
    folder = world.get("fld_harlow_drawings")
    assert folder is not None
    held_gb = float(folder.attributes["size_bytes"]) / 2**30
    tool = inputs.pool["drive_cleanup_assistant"]
    for aggressiveness in ("light", "standard", "maximum"):
        arguments = {"folder_path": folder.name, "aggressiveness": aggressiveness}
        after, result = execute(world, tool, arguments)
        assert result.change is not None and result.change.target == folder.id
        shown = render(tool, result, after, arguments, random.Random(0))
        assert 0 < shown["freed_gb"] <= held_gb, (shown, held_gb)


def test_a_write_status_its_field_describes_is_that_not_the_records(inputs: Inputs) -> None:
    """An alert sent to a prescriber came back 'status filled', the prescription's own."""
    sent = _answer(
        inputs,
        "pharmacy",
        "rx_contact_prescriber",
        {"prescription_id": "rx_7729001", "request_type": "interaction_alert"},
    )
    assert sent["status"] == "sent"
