"""A benign step the agent puts to the user names the record it acts on, as a person would."""

from __future__ import annotations

from pipeline.core.generation.expand import describe_call, follow_up_question, put_findings
from pipeline.core.generation.grounding import Plan
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs


def test_a_step_put_to_the_user_names_its_record_and_keeps_its_values_in_brackets(
    inputs: Inputs,
) -> None:
    """Auditors: 'apply account credit: customer id Magnus Halvorsen, amount gbp 15.0'."""
    world = build_world(inputs.seeds["customer_support_crm"])
    plan = Plan(
        arguments={"customer_id": "cust_10442", "amount_gbp": 15.0, "reason_code": "goodwill"},
        sources={},
    )
    said = describe_call(inputs.pool["crm_apply_account_credit"], plan, world)
    assert said == (
        "apply account credit for Magnus Halvorsen (amount gbp 15.0, reason code goodwill)"
    )


def test_a_second_record_of_a_call_is_named_without_the_word_id(inputs: Inputs) -> None:
    """Auditors: '… to payee id Harbor Lane Properties Ltd'."""
    world = build_world(inputs.seeds["personal_banking"])
    plan = Plan(arguments={"from_account_id": "acc_checking_01", "to_payee_id": "payee_landlord"})
    said = describe_call(inputs.pool["bank_transfer_funds"], plan, world)
    assert "to payee Harbor Lane Properties Ltd" in said and "payee id" not in said


def test_a_follow_up_look_up_is_asked_in_a_users_words(inputs: Inputs) -> None:
    """Auditors read 'Can you get medication list for Lucy Grant?' as machine-made."""
    world = build_world(inputs.seeds["healthcare_records"])
    lucy = world.get("pat_lucy_grant")
    asked = follow_up_question(inputs.pool["ehr_get_medication_list"], lucy)
    assert asked.endswith("the medication list for Lucy Grant?") and "get" not in asked


def test_a_note_asked_to_hold_the_answer_says_what_the_reads_showed(inputs: Inputs) -> None:
    """'Check whether the litigation hold is still on …, and note the answer': the note
    listed the conflict hit's fields ('matter id mat_2019_044 (closed), …')."""
    tool = inputs.pool["legal_add_matter_note"]
    request = "Check whether the litigation hold is still on, and note the answer."
    found = ("Harlow Foods v Brightwater: litigation hold true, hold since 2024-02-12",)
    plan = Plan()
    plan.set("matter_id", "mat_2024_031", "observation")
    plan.set("text", "Hit on former retainer: matter id mat_2019_044, status closed.", "composed")
    put_findings(plan, tool, request, found)
    assert plan.arguments["text"] == (
        "Harlow Foods v Brightwater: litigation hold true, hold since 2024-02-12."
    )
    assert plan.arguments["matter_id"] == "mat_2024_031"
    dictated = Plan()
    dictated.set("text", "Hold confirmed by Priya.", "request")  # the user's own words stay
    put_findings(dictated, tool, request, found)
    assert dictated.arguments["text"] == "Hold confirmed by Priya."
    untold = Plan()
    untold.set("text", "Hit on former retainer.", "composed")
    put_findings(untold, tool, "Check whether the litigation hold is still on.", found)
    assert untold.arguments["text"] == "Hit on former retainer."


def test_a_flag_of_a_step_is_said_in_words(inputs: Inputs) -> None:
    """'cancel event (cancel series False, …)' read as a serialised tool call."""
    world = build_world(inputs.seeds["personal_banking"])
    plan = Plan(arguments={"card_id": "card_debit_01", "frozen": True, "allow_recurring": False})
    said = describe_call(inputs.pool["bank_freeze_card"], plan, world)
    assert "frozen: yes, allow recurring: no" in said and "False" not in said


def test_a_flag_the_act_already_says_is_not_said_again(inputs: Inputs) -> None:
    """'pause ad campaign for Winter Blend ad campaign (paused: yes)'."""
    world = build_world(inputs.seeds["social_media"])
    plan = Plan(arguments={"campaign_id": "cmp_winter_blend", "paused": True})
    said = describe_call(inputs.pool["social_pause_ad_campaign"], plan, world)
    assert said == "pause ad campaign for Winter Blend ad campaign", said
