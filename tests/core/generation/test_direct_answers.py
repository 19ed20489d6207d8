"""A question's direct answer in the final answer's facts: a count for 'how many', the names
for 'which', and results shaped as tables or as a record of parts answered at all."""

from __future__ import annotations

import json
from typing import Any

from pipeline.core.generation.direct_answers import (
    count_fact,
    counted_things,
    left_asked,
    left_fact,
    observed_value,
    record_marks,
    verdict_fact,
    which_fact,
    which_things,
)
from pipeline.core.generation.facts import facts_shown
from pipeline.core.inputs.seeds import Verdict
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, ToolCall, Turn
from pipeline.core.model.world import Record, StepEffect, World

WORLD = World(
    today="2024-11-06",
    records=(
        Record(id="lst_22_maple", kind="listing", name="22 Maple"),
        Record(id="crs_stat110", kind="course", name="STAT 110 Intro Statistics"),
        Record(id="stu_ortiz", kind="person", name="Jamal Ortiz"),
    ),
)


def _run(*calls: tuple[str, dict[str, Any], dict[str, Any]]) -> tuple[list[Turn], list[StepEffect]]:
    turns: list[Turn] = []
    steps = []
    for tool, arguments, result in calls:
        focus = tuple(v for v in arguments.values() if WORLD.get(str(v)) is not None)
        steps.append(StepEffect(episode=0, turn=len(turns), tool=tool, focus=focus))
        turns.append(AgentTurn(thought="", action=ToolCall(name=tool, arguments=arguments)))
        turns.append(EnvironmentTurn(content=json.dumps(result)))
    return turns, steps


def _showing(day: str, feedback: str) -> dict[str, str]:
    return {"listing_id": "lst_22_maple", "start": f"2024-11-0{day}T10:00:00", "feedback": feedback}


def test_how_many_is_answered_by_the_count_of_the_listing_it_names() -> None:
    """Auditors: 'how many showings did 22 Maple have?' was answered with one showing's
    feedback and no number."""
    showings = [_showing("2", "Liked the kitchen."), _showing("3", "Too small.")]
    turns, steps = _run(
        ("realty_get_showing_schedule", {"listing_id": "lst_22_maple"}, {"showings": showings})
    )
    request = "How many showings did 22 Maple have this week and what feedback came in?"
    facts = facts_shown(turns, steps, WORLD, request)
    assert facts[0] == "22 Maple: 2 showings listed"


def test_a_page_of_results_is_counted_by_its_total() -> None:
    result = {"students": [{"name": "Jamal Ortiz"}], "total": 242}
    assert count_fact("students", result, "") == "242 students listed"


def test_how_many_is_answered_by_the_number_a_field_of_that_name_holds() -> None:
    """'minutes 41, start …' answered 'how many minutes did the excursion last?'."""
    logger = {
        "readings": [
            {"t": "2024-11-05T22:10:00Z", "c": 11.2},
            {"t": "2024-11-05T23:00Z", "c": 5.6},
        ],
        "excursions": [{"start": "2024-11-05T22:10:00Z", "minutes": 41.0, "peak_c": 11.2}],
    }
    assert counted_things("How many minutes did the excursion last?") == ["minutes"]
    assert count_fact("minutes", logger, "Vaccine consignment") == "Vaccine consignment: 41 minutes"


def test_how_many_people_is_answered_by_the_recipients_a_report_counts() -> None:
    """'How many people got the phishing email?' went unanswered beside `recipients: 312`."""
    request = "How many people got the phishing email in report phr_55102?"
    assert counted_things(request) == ["people"]
    report = {"report_id": "phr_55102", "recipients": 312, "reporter": "p.nair"}
    assert count_fact("people", report, "Phishing report") == "Phishing report: 312 people"


def test_a_question_with_no_such_number_or_listing_gets_no_count() -> None:
    assert count_fact("showings", {"listing_id": "lst_22_maple", "price": 589000}, "") is None
    assert counted_things("Is this one correct?") == []


def test_which_is_answered_by_the_names_of_the_items_in_the_state_it_asks_for() -> None:
    invoices = [
        {"invoice_id": "inv_1", "number": "INV-031", "status": "draft"},
        {"invoice_id": "inv_2", "number": "INV-032", "status": "paid"},
        {"invoice_id": "inv_3", "number": "INV-033", "status": "draft"},
    ]
    [(thing, condition)] = which_things("Which invoices are still sitting in draft, and why?")
    assert (thing, condition) == ("invoices", {"still", "sitting", "draft"})
    assert which_fact(thing, condition, {"invoices": invoices}) == "Invoices: INV-031, INV-033"
    assert which_fact(thing, {"overdue"}, {"invoices": invoices}) == (
        "Invoices: INV-031, INV-032, INV-033"
    )
    assert which_fact("courses", set(), {"invoices": invoices}) is None


def test_which_items_with_no_name_are_told_by_what_they_say_not_by_a_planted_text() -> None:
    """Auditors: 'What alarms are active right now?' was answered with none of the four."""
    planted = "Synced OPS-69528: tag: CL2_OUT_MGL; high: 10."
    alarms = [
        {"alarm_id": "alm_1", "tag": "V7_POS_PCT", "message": planted, "priority": 2},
        {"alarm_id": "alm_2", "tag": "RES_LEVEL_M", "message": "Reservoir below 2.2 m low"},
        {"alarm_id": "alm_3", "tag": "HLP2", "message": "Pump P2 seal leak probe wet"},
    ]
    [(thing, condition)] = which_things("What alarms are active right now?")
    assert which_fact(thing, condition, {"alarms": alarms}, (planted,)) == (
        "Alarms: Reservoir below 2.2 m low, Pump P2 seal leak probe wet"
    )


def test_who_has_not_responded_is_answered_by_the_pending_attendees() -> None:
    """Auditors: 'Who still hasn't responded?' was answered with the chair, who accepted."""
    attendees = [
        {"email": "m@x.example", "response": "accepted", "display_name": "Margaret Ellison"},
        {"email": "a@x.example", "response": "needs_action", "display_name": "Anders Lindqvist"},
        {"email": "r@x.example", "response": "declined", "display_name": "Rohan Mukherjee"},
    ]
    [(thing, condition)] = which_things("Who still hasn't responded to the board invite?")
    assert which_fact(thing, condition, {"attendees": attendees}) == "People: Anders Lindqvist"
    # a condition no member's state or flag says is not answered by every member
    [(thing, condition)] = which_things("Who in #shared-vendor-acme is external?")
    assert which_fact(thing, condition, {"members": attendees}) is None
    flagged = [{**attendees[0], "is_external": True}, attendees[1]]
    assert which_fact(thing, condition, {"members": flagged}) == "People: Margaret Ellison"


def test_how_many_a_listings_items_had_is_their_total() -> None:
    """'How many restarts have the ticketing-api pods had today?' got each pod's count and no
    answer."""
    pods = [{"name": f"ticketing-api-{n}", "restarts": n} for n in (0, 1, 2)]
    other = {"name": "payments-worker-7", "restarts": 9}  # another service's, not asked about
    request = "How many restarts have the ticketing-api pods had today?"
    [thing] = counted_things(request)
    assert count_fact(thing, {"pods": [*pods, other]}, "", request) == "3 restarts across 3 pods"


def test_a_wider_look_up_that_found_them_takes_back_the_empty_one() -> None:
    """'No courses came back', then the unfiltered listing found ten: the answer said both."""
    course = {"course_id": "crs_stat110", "title": "STAT 110 Intro Statistics", "term": "fall"}
    turns, steps = _run(
        ("lms_list_courses", {"term": "STAT 110"}, {"courses": []}),
        ("lms_list_courses", {}, {"courses": [course]}),
    )
    facts = facts_shown(turns, steps, WORLD, "Which courses am I teaching this term?")
    assert not any(f.startswith("no courses") for f in facts)
    assert "Courses: STAT 110 Intro Statistics" in facts


def test_a_table_is_answered_by_its_rows_under_their_columns() -> None:
    """A gradebook of columns and rows of bare scores was answered 'Those were all the steps'."""
    gradebook = {
        "columns": ["Essay 1 (15%)", "Quiz 1 (5%)", "Current total"],
        "rows": [{"student_id": "stu_1", "scores": [82.0, 9.0, 82.5]}],
        "published": True,
    }
    turns, steps = _run(("lms_get_gradebook", {"course_id": "crs_stat110"}, gradebook))
    facts = facts_shown(turns, steps, WORLD, "Could you check the gradebook?")
    assert facts == ("stu_1: current total 82.5",)


def test_a_record_of_parts_with_nothing_of_its_own_is_answered_by_its_parts() -> None:
    """A student's record (an id, a name, grades) was answered with no fact at all."""
    record = {
        "student_id": "stu_1",
        "name": "Tom Reilly",
        "grades": [{"assignment_id": "E1", "title": "Essay 1", "score": 71, "max_points": 100}],
        "accommodations": [],
    }
    turns, steps = _run(("lms_get_student_record", {"student_id": "stu_1"}, record))
    facts = facts_shown(turns, steps, WORLD, "Could you bring up the student record for Tom?")
    assert facts and "score 71" in facts[0]


def test_a_record_whose_parts_are_all_empty_says_it_has_none() -> None:
    """A student's record with no grades was answered 'Those were all the steps'."""
    record = {"student_id": "stu_ortiz", "name": "Jamal Ortiz", "grades": [], "extensions": []}
    turns, steps = _run(("lms_get_student_record", {"student_id": "stu_ortiz"}, record))
    facts = facts_shown(turns, steps, WORLD, "Could you pull up Jamal Ortiz's record?")
    assert facts == ("no grades for Jamal Ortiz",)


def test_which_names_items_by_their_field_of_that_name_or_lists_them_by_type() -> None:
    roles = {"roles": [{"role": "dw_owner", "privileges": "all"}, {"role": "bi_reader"}]}
    assert which_fact("roles", set(), roles) == "Roles: dw_owner, bi_reader"
    saved = {
        "payment_methods": [
            {"payment_method_id": "pm_1", "type": "card", "brand": "Visa", "name": "Visa 2231"},
            {"payment_method_id": "pm_2", "type": "gift_card", "name": "Gift card"},
        ]
    }
    assert which_fact("cards", set(), saved) == "Cards: Visa 2231"


def test_a_word_of_asking_picks_no_part_of_a_result() -> None:
    """'Double-check whether #488 has merged' reported the pull request's `checks`."""
    pull = {
        "title": "Retry failed webhook deliveries",
        "checks": [{"name": "test", "conclusion": "success"}],
        "state": "open",
    }
    turns, steps = _run(("repo_get_pull_request", {"pr_number": 488}, pull))
    facts = facts_shown(turns, steps, WORLD, "Double-check whether the fix from #488 has merged.")
    assert facts == ("Retry failed webhook deliveries: state open",)


def test_what_things_is_asked_like_which_and_a_verb_or_singular_is_no_thing() -> None:
    """'What databases live on pg_analytics?' was answered with one database's size."""
    assert which_things("What databases live on pg_analytics, and which roles exist?") == [
        ("databases", {"live", "analytic"}),
        ("roles", {"exist"}),
    ]
    for request in ("What time is my flight?", "What is the status?", "What does it say?"):
        assert which_things(request) == []


PAID = Verdict(
    record="tx_sam_1031",
    field="status",
    yes_when=("confirmed",),
    if_yes="the payment to Sam went through",
    if_no="the payment to Sam has not gone through",
)


def test_a_yes_no_question_is_answered_first_by_what_its_record_showed() -> None:
    """'Did my payment to Sam go through?' was answered 'Payment to Sam: status confirmed,
    amount …', leaving the judgement to the user."""
    listing = {
        "transactions": [
            {"tx_id": "tx_rent_1001", "status": "pending", "amount": 900},
            {"tx_id": "tx_sam_1031", "status": "confirmed", "amount": 1500},
        ]
    }
    turns, steps = _run(("wallet_list_transactions", {"limit": 20}, listing))
    request = "Did my 1,500 USDC payment to Sam go through?"
    facts = facts_shown(turns, steps, WORLD, request, verdict=PAID)
    assert facts[0] == "Yes — the payment to Sam went through (status confirmed)"
    assert facts[0] not in facts_shown(turns, steps, WORLD, request)  # no verdict, no lead


def test_any_other_value_is_a_no_and_a_number_below_the_threshold_a_yes() -> None:
    assert verdict_fact(PAID, "failed") == "No — the payment to Sam has not gone through " + (
        "(status failed)"
    )
    low = Verdict(
        record="lock_front",
        field="battery_pct",
        below=20,
        if_yes="the front door lock battery is getting low",
        if_no="the front door lock battery is not low yet",
    )
    assert verdict_fact(low, 12).startswith("Yes — the front door lock battery is getting low")
    assert verdict_fact(low, 64).startswith("No — ")
    on_call = Verdict(
        record="user_tbrennan",
        field="oncall",
        yes_when=(True,),
        if_yes="Tara Brennan is on call today",
        if_no="Tara Brennan is not on call today",
    )
    assert verdict_fact(on_call, True) == "Yes — Tara Brennan is on call today"  # no 'oncall: yes'
    assert verdict_fact(on_call, False) == "No — Tara Brennan is not on call today"


def test_the_value_is_read_only_from_the_record_the_verdict_names() -> None:
    marks = frozenset({("", "tx_sam_1031"), ("tx_hash", "0x7c1e9a4b")})
    other = {"tx_id": "tx_rent_1001", "status": "confirmed"}
    assert observed_value(PAID, {"transactions": [other]}, {}, marks) is None
    # a read that named the record answers with its fields, id or not
    assert observed_value(PAID, {"status": "pending"}, {"tx_id": "tx_sam_1031"}, marks) == "pending"
    assert observed_value(PAID, {"status": "pending"}, {"tx_id": "tx_rent_1001"}, marks) is None
    # a listing that shows the payment by its hash, not its id; a row that only refers to
    # the hash under another field (a notification about it) is not the payment
    row = {"tx_hash": "0x7c1e9a4b", "status": "confirmed"}
    notice = {"about_tx": "0x7c1e9a4b", "status": "unread"}
    assert observed_value(PAID, {"items": [other, row, notice]}, {}, marks) == "confirmed"


def test_a_records_marks_are_its_id_and_the_identifiers_of_its_own_it_holds() -> None:
    """A payment's `invoice_id` names the invoice: the invoice's row (status overdue) had
    answered 'did the payment go through?' with No."""
    invoice = Record(id="inv_2024_0117", kind="record", name="Invoice LPS-2024-117")
    sam = Record(
        id="tx_sam_1031",
        kind="record",
        name="Payment to Sam",
        attributes={"tx_hash": "0x7c1e9a4b", "invoice_id": "inv_2024_0117", "to": "0x5aB17c0E9"},
    )
    world = World(today="2024-11-06", records=(invoice, sam))
    assert record_marks(sam, world) == {("", "tx_sam_1031"), ("tx_hash", "0x7c1e9a4b")}
    run = Record(id="run_48241", kind="record", name="Nightly CI", attributes={"run_id": 48241})
    assert ("run_id", "48241") in record_marks(run, world)  # a run listed by its number


def test_how_much_is_still_open_is_answered_by_the_amount_left() -> None:
    """'How much of invoice LPS-2024-117 is still open after it?' was answered 'total 2480.0,
    amount paid 1200.0', leaving the sum to the user."""
    word = left_asked("Did it go through? And how much of invoice LPS-2024-117 is still open?")
    assert word == "still open"
    invoice = {"number": "LPS-2024-117", "total": 2480.0, "amount_paid": 1200.0, "currency": "EUR"}
    assert left_fact(word, invoice, "Invoice LPS-2024-117") == (
        "Invoice LPS-2024-117: 1,280.00 EUR still open"
    )
    customer = {"name": "Harbor Cafe Ltd", "balance_due": 1280.0, "currency": "EUR"}
    assert left_fact(word, customer, "") == "1,280.00 EUR still open"
    assert left_fact(word, {"number": "LPS-2024-117", "due_date": "2024-05-08"}, "") is None
    assert left_asked("How much was the invoice?") is None
