"""Values an observation fills in are ones such a system shows: a VAT rate a VAT return
uses, a share within 0-100, a CVSS score within 0-10, a status that is a status, and a real
value (an IBAN, a role, a country of origin) instead of "n/a"."""

from __future__ import annotations

import json
import random

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
