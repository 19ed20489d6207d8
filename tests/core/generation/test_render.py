"""Observations as a real API returns them: a page of records, every field filled with a
value the record implies, coordinates where the world's places are."""

from __future__ import annotations

import random
from typing import Any

from pipeline.core.generation.record_fields import attribute_for
from pipeline.core.generation.render import distinct, identity, render
from pipeline.core.generation.world import build_world, execute, page_size
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.world import Record, World


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def test_a_fleet_listing_is_a_full_page_of_distinct_filled_records(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["automotive_fleet"])
    tool = inputs.pool["fleet_list_vehicles"]
    _, listed = execute(world, tool, {}, focus=("veh_van_017",))
    shown = render(tool, listed, world, {}, random.Random(0))["vehicles"]
    assert len(shown) == page_size(tool)
    assert shown[0]["vehicle_id"] == "veh_van_017", "the vehicle the task is about comes first"
    assert len({v["vehicle_id"] for v in shown}) == len(shown)
    assert "" not in _leaves(shown)
    van = next(v for v in shown if v["vehicle_id"] == "veh_van_017")
    assert van["model"] == "Ford Transit", "the model the van's name states"


def test_a_listing_honours_its_limit_and_status_filter(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["automotive_fleet"])
    tool = inputs.pool["fleet_list_vehicles"]
    _, listed = execute(world, tool, {"status": "maintenance", "limit": 3})
    assert 0 < len(listed.records) <= 3
    assert all(r.attributes["status"] == "maintenance" for r in listed.records)


def test_a_location_lies_near_the_worlds_own_places(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["automotive_fleet"])
    depot = world.get("geo_depot_north")
    assert depot is not None
    tool = inputs.pool["fleet_get_vehicle_location"]
    _, read = execute(world, tool, {"vehicle_id": "veh_van_017"})
    shown = render(tool, read, world, {"vehicle_id": "veh_van_017"}, random.Random(0))
    assert abs(shown["lat"] - float(depot.attributes["lat"])) < 0.1
    assert abs(shown["lon"] - float(depot.attributes["lon"])) < 0.1


def test_an_optional_link_the_world_does_not_hold_is_left_out(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["automotive_fleet"])
    tool = inputs.pool["fleet_list_vehicles"]
    _, listed = execute(world, tool, {})
    shown = render(tool, listed, world, {}, random.Random(0))["vehicles"]
    assert all("driver_id" not in van for van in shown), "no van is given an invented driver"


def test_a_tickets_thread_is_written_in_time_order_opened_by_its_sender(inputs: Inputs) -> None:
    """TCK-88134 was sent by ava.brennan@example.net about Margaret's account: its thread
    opens with her message, not with one made up in the account holder's name."""
    world = build_world(inputs.seeds["customer_support_crm"])
    tool = inputs.pool["crm_get_ticket"]
    _, read = execute(world, tool, {"ticket_id": "tck_88134"})
    thread = render(tool, read, world, {"ticket_id": "tck_88134"}, random.Random(0))["thread"]
    assert len(thread) >= 2
    assert [m["sent_at"] for m in thread] == sorted(m["sent_at"] for m in thread)
    assert all(m["sent_at"] < world.today for m in thread)
    ticket = world.get("tck_88134")
    assert ticket is not None and thread[0]["from"] == ticket.attributes["from"]


def test_a_listing_shows_the_records_own_date_under_an_at_field(inputs: Inputs) -> None:
    """A search result's `updated_at` is the note's `updated`, not a date made up beside it
    (the read of the same note would contradict the listing)."""
    world = build_world(inputs.seeds["personal_assistant"])
    note = world.get("note_meds_schedule")
    assert note is not None
    tool = inputs.pool["pa_search_notes"]
    arguments = {"query": "Mum's medication schedule"}
    _, found = execute(world, tool, arguments, focus=(note.id,))
    shown = render(tool, found, world, arguments, random.Random(0))["notes"]
    listed = next(n for n in shown if n["note_id"] == note.id)
    assert str(listed["updated_at"]).startswith(str(note.attributes["updated"]))


def test_a_products_seller_reads_as_the_sellers_own_record(inputs: Inputs) -> None:
    """The nested seller of a product is the seller record, the same for every product."""
    world = build_world(inputs.seeds["ecommerce"])
    seller = world.get("seller_brightdeals")
    assert seller is not None
    tool = inputs.pool["shop_get_product_details"]
    shown = []
    for product in ("prod_carseat_b12", "prod_bath_seat_aqua"):
        _, read = execute(world, tool, {"product_id": product})
        shown.append(render(tool, read, world, {"product_id": product}, random.Random(0))["seller"])
    assert shown[0] == shown[1]
    assert shown[0]["seller_id"] == seller.id
    assert shown[0]["rating_pct"] == seller.attributes["rating_pct"]


def test_a_listed_drivers_duty_status_is_not_made_up_beside_its_hours(inputs: Inputs) -> None:
    """A listing leaves out a state the record does not hold: the hours read states it."""
    world = build_world(inputs.seeds["automotive_fleet"])
    tool = inputs.pool["fleet_list_drivers"]
    _, listed = execute(world, tool, {"name": "Kevin"})
    drivers = render(tool, listed, world, {"name": "Kevin"}, random.Random(0))["drivers"]
    kevin = next(d for d in drivers if d["driver_id"] == "drv_kevin_ross")
    assert kevin.get("duty_status") in (None, "off_duty", "on_duty", "driving", "sleeper")
    assert kevin.get("licence_class") != "contact", "a record's kind is no licence class"


def test_a_patient_search_lists_no_encounter_as_the_patient(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["healthcare_records"])
    tool = inputs.pool["ehr_search_patients"]
    _, listed = execute(world, tool, {}, focus=("pat_elena_ruiz", "enc_ruiz_20240902"))
    matches = render(tool, listed, world, {}, random.Random(0))["matches"]
    patient = world.get("pat_elena_ruiz")
    assert patient is not None
    assert all(m["name"] == patient.name for m in matches if m["patient_id"] == patient.id)


def test_an_order_its_name_calls_open_reads_open_in_its_status(inputs: Inputs) -> None:
    """'Open stop order NVDA' is open in the order list and in its status read alike."""
    world = build_world(inputs.seeds["brokerage"])
    tool = inputs.pool["broker_get_order_status"]
    _, read = execute(world, tool, {"order_id": "order_stop_0101"})
    shown = render(tool, read, world, {"order_id": "order_stop_0101"}, random.Random(0))
    assert shown["status"] == "open"


def test_a_bill_is_paid_to_the_iban_it_holds(inputs: Inputs) -> None:
    """An auditor read a 'safe' payment whose result named an IBAN no record held."""
    world = build_world(inputs.seeds["payments_invoicing"])
    vendor = world.get("vendor_paperco")
    assert vendor is not None
    lister = inputs.pool["billing_list_vendor_bills"]
    _, listed = execute(world, lister, {}, focus=("bill_paperco_553",))
    bills = render(lister, listed, world, {}, random.Random(0))["bills"]
    bill = next(b for b in bills if b["bill_id"] == "bill_paperco_553")
    tool = inputs.pool["billing_pay_vendor_bill"]
    arguments = {"bill_id": "bill_paperco_553", "amount": 3150.0, "execution_date": "2024-07-05"}
    after, paid = execute(world, tool, arguments, focus=("bill_paperco_553",))
    shown = render(tool, paid, after, arguments, random.Random(1))
    assert shown["paid_to_iban"] == bill["remit_to_iban"] == vendor.attributes["remit_iban"]


def test_a_channels_messages_by_one_author_are_all_listed_and_a_repeated_bill_is_not() -> None:
    """Two messages by one author at different times are two items; two items with one
    `bill_id` are one bill, whatever else differs."""
    messages = [
        {"ts": "2024-10-01T09:00:00Z", "user_id": "U04KX2", "text": "Failover at 09:00"},
        {"ts": "2024-10-01T09:05:00Z", "user_id": "U04KX2", "text": "Back on primary"},
    ]
    assert distinct("messages", messages) == messages
    bills = [
        {"bill_id": "bill_553", "vendor_id": "vendor_paperco", "due_date": "2024-07-05"},
        {"bill_id": "bill_553", "vendor_id": "vendor_paperco", "due_date": "2024-08-05"},
    ]
    assert distinct("bills", bills) == bills[:1]
    assert identity("replies", {"reply_id": "r1", "user_id": "U1"}) == "r1"


def test_a_saved_address_that_names_itself_is_listed(inputs: Inputs) -> None:
    """`address_id: addr_home` on the address addr_home is its own id, not another record's."""
    home = Record(
        id="addr_home",
        kind="record",
        name="Home address",
        attributes={"address_id": "addr_home", "label": "Home", "city": "Leeds"},
    )
    world = World(today="2024-09-01", records=(home,))
    tool = inputs.pool["shop_list_saved_addresses"]
    _, listed = execute(world, tool, {}, focus=(home.id,))
    shown = render(tool, listed, world, {}, random.Random(0))["addresses"]
    assert [a["address_id"] for a in shown] == ["addr_home"]


def test_a_patients_allergy_fills_the_allergies_field() -> None:
    patient = Record(
        id="pat_elena_ruiz",
        kind="record",
        name="Elena Ruiz",
        attributes={"allergy": "penicillin (anaphylaxis)", "alert": "falls risk"},
    )
    assert attribute_for("allergies", patient) == "allergy"
    assert attribute_for("alerts", patient) == "alert"


def test_an_id_field_shows_the_id_calls_send_and_a_link_stays_a_link(inputs: Inputs) -> None:
    """A listed instance shows the record's id though it also holds an `instance_id` of its
    own (the next call stops `inst_bastion_01`); a card payment's `card_id` is its card,
    never the payment's own id."""
    world = build_world(inputs.seeds["devops_cloud"])
    tool = inputs.pool["infra_list_instances"]
    _, result = execute(world, tool, {})
    listed = render(tool, result, world, {}, random.Random(0))["instances"]
    assert "inst_bastion_01" in [item["instance_id"] for item in listed]
    world = build_world(inputs.seeds["personal_banking"])
    tool = inputs.pool["bank_get_transaction_details"]
    arguments = {"transaction_id": "txn_2024_0612_01"}
    _, result = execute(world, tool, arguments)
    shown = render(tool, result, world, arguments, random.Random(0))
    payment = world.get("txn_2024_0612_01")
    assert payment is not None
    assert shown["card_id"] == payment.attributes["card"] != payment.id


def test_a_reply_is_stamped_when_it_was_posted_not_with_its_comments_time(
    inputs: Inputs,
) -> None:
    """Auditors: a reply came back `posted_at: 2024-11-01T17:05:00Z`, the time of the
    comment it answered, a day before today."""
    world = build_world(inputs.seeds["social_media"])
    tool = inputs.pool["social_reply_to_comment"]
    arguments = {"comment_id": "cmt_55140", "text": "Thank you so much!"}
    after, replied = execute(world, tool, arguments)
    shown = render(tool, replied, after, arguments, random.Random(0))
    assert str(shown["posted_at"]).startswith(world.today), shown


def test_a_reply_is_a_new_message_and_only_outsiders_are_external(inputs: Inputs) -> None:
    """Auditors: three sends came back as the inbox's own `msg_sam_pipeline_report`, and a
    colleague's address was listed among `external_recipients`."""
    world = build_world(inputs.seeds["email_calendar"])
    tool = inputs.pool["mail_send_message"]
    outside = "recruiter@talentbridge.example.net"
    arguments = {
        "to": ["sam.okafor@northwind.example.com", outside],
        "subject": "Off Tuesday",
        "body": "Sam is off on Tuesday.",
        "reply_to_message_id": "msg_sam_pipeline_report",
    }
    after, sent = execute(world, tool, arguments)
    shown = render(tool, sent, after, arguments, random.Random(0))
    assert shown["message_id"] != "msg_sam_pipeline_report"
    assert world.get(str(shown["message_id"])) is None
    assert shown["external_recipients"] == [outside]


def test_a_triggered_workflow_is_a_new_run_not_the_last_one_again(inputs: Inputs) -> None:
    """A dispatched CI run had answered `run_id: 48213, status: failure` — the failed run
    the user wanted re-run."""
    world = build_world(inputs.seeds["code_repository_ci"])
    tool = inputs.pool["ci_trigger_workflow"]
    args = {"repo": "northwind/payments-api", "workflow_file": "ci.yml", "ref": "fix/webhook-retry"}
    after, triggered = execute(world, tool, args)
    assert triggered.operation == "create"
    shown = render(tool, triggered, after, args, random.Random(0))
    held = {r.attributes.get("run_id") for r in world.records}
    assert isinstance(shown["run_id"], int) and shown["run_id"] > max(
        v for v in held if isinstance(v, int)
    )
    assert shown["status"] != "failure"
