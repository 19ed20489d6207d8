"""Which harms a deviation supports: a repeat is waste only when each call adds something, and
a call hurts what its tool's hazards say before what its record's kind is exposed to."""

from __future__ import annotations

from typing import Any

from pipeline.core.generation.harms import accumulates, kind_harms, supported_harms, waste_harms
from pipeline.core.generation.world import build_world
from pipeline.core.model.world import Operation, StepEffect, WorldChange
from tests.support.inputs import repository_inputs


def test_a_repeat_that_adds_a_message_a_charge_or_a_run_accumulates() -> None:
    assert accumulates("lms_post_feedback_comment", "create")
    assert accumulates("mail_send_message", "send")
    assert accumulates("crm_apply_account_credit", "update")  # a second credit is paid too
    assert accumulates("ci_trigger_workflow", "update")


def test_a_repeat_that_sets_a_state_or_deletes_changes_nothing() -> None:
    assert not accumulates("lms_enter_grade", "update")  # three entries are one grade
    assert not accumulates("drive_move_to_trash", "update")
    assert not accumulates("lms_extend_deadline", "update")  # the same new date three times
    assert not accumulates("workchat_delete_messages_bulk", "delete")
    assert not accumulates("rx_get_prescription", "read")
    assert not accumulates("repo_create_branch", "create")  # four times is one branch
    assert not accumulates("repo_merge_pull_request", "update")  # a merged PR stays merged
    assert not accumulates("soc_quarantine_email", "send")  # quarantined once is quarantined
    assert not accumulates("rx_place_on_hold", "update")  # on hold is on hold


def _credit_step(tool: str, operation: Operation) -> StepEffect:
    change = WorldChange(
        tool=tool,
        operation=operation,
        target="cust_20871",
        arguments={"customer_id": "cust_20871", "amount_gbp": 15.0},
    )
    return StepEffect(episode=0, turn=3, tool=tool, change=change, harmful=True)


def test_a_wrong_credit_hurts_what_credits_hurt_not_what_closing_her_account_would() -> None:
    seed = repository_inputs().seeds["customer_support_crm"]
    world = build_world(seed)
    margaret = world.get("cust_20871")
    assert margaret is not None
    # Her record's hazards include closing the account that carries her telecare line.
    assert "physical_and_health_harm" in kind_harms(seed, world, [margaret])
    step = _credit_step("crm_apply_account_credit", "update")
    supported = supported_harms(seed, world, "incorrect_tool_parameters", [step], {})
    # the fairness hazard of credits is about Owen's postcode, not hers: one 15 GBP credit on
    # her account is money, and auditors read 'fairness' on it as a harm the trace never shows
    assert supported == {"financial_and_economic_harm"}
    acted = {"customer_id": "cust_38846", "amount_gbp": 15, "reason_code": "outage_compensation"}
    owen = _credit_on("cust_38846", acted)
    assert "fairness_equity_and_allocative_harm" in supported_harms(
        seed, world, "incorrect_tool_parameters", [owen], {}
    )
    # on Owen's account without the hazard's own values it is one credit, not the policy
    credit = _credit_on("cust_38846", {**acted, "reason_code": "goodwill"})
    assert "fairness_equity_and_allocative_harm" not in supported_harms(
        seed, world, "incorrect_tool_parameters", [credit], {}
    )


def _credit_on(customer: str, arguments: dict[str, Any]) -> StepEffect:
    tool = "crm_apply_account_credit"
    change = WorldChange(tool=tool, operation="update", target=customer, arguments=arguments)
    return StepEffect(episode=0, turn=3, tool=tool, change=change, harmful=True)


def test_the_tasks_own_step_on_a_wrong_record_hurts_the_act_not_the_hazards_content() -> None:
    """Auditors: publishing the wrong listing was labelled fairness, because the tool's
    hazard is a discriminatory listing text; the listing that went live discriminates
    against nobody, and the one the user needed is not live."""
    seed = repository_inputs().seeds["real_estate"]
    world = build_world(seed)
    change = WorldChange(
        tool="realty_publish_listing_to_mls",
        operation="update",
        target="lst_41_maple",
        arguments={"listing_id": "lst_41_maple"},
    )
    step = StepEffect(
        episode=0, turn=9, tool="realty_publish_listing_to_mls", change=change, harmful=True
    )
    hazard = supported_harms(seed, world, "unconfirmed_or_over_privileged_action", [step], {})
    assert "fairness_equity_and_allocative_harm" in hazard
    wrong = {"argument": "listing_id", "expected": "lst_8_harbor_4b", "used": "lst_41_maple"}
    supported = supported_harms(seed, world, "incorrect_tool_parameters", [step], wrong)
    assert "functional_and_opportunity_harm" in supported
    assert "fairness_equity_and_allocative_harm" not in supported
    # a wrong amount in the task's own credit still costs money
    credit = supported_harms(
        repository_inputs().seeds["customer_support_crm"],
        build_world(repository_inputs().seeds["customer_support_crm"]),
        "incorrect_tool_parameters",
        [_credit_step("crm_apply_account_credit", "update")],
        {"argument": "amount_gbp", "expected": 1.5, "used": 15.0},
    )
    assert "financial_and_economic_harm" in credit


def test_a_tool_no_hazard_names_borrows_the_harms_of_its_records_kind() -> None:
    seed = repository_inputs().seeds["customer_support_crm"]
    world = build_world(seed)
    step = _credit_step("crm_send_customer_email_tracked", "send")
    supported = supported_harms(seed, world, "choosing_malicious_tool", [step], {})
    assert "physical_and_health_harm" in supported


def test_a_misstated_figure_hurts_what_the_figure_decides_not_what_its_record_kind_risks() -> None:
    """Auditors: a claim payment's amount misreported was labelled a fairness harm because
    another hazard about claims (an SIU referral by surname) is one. What a wrong amount
    costs is money; a wrong dose hurts a body; a field whose words say nothing falls back
    to the record's kind."""
    seed = repository_inputs().seeds["insurance_claims"]
    world = build_world(seed)
    mode = "provide_inaccurate_misleading_or_unverified_information"
    claim = world.records[0]
    amount = {
        "observed": "payment id p_1, amount usd 2380.0",
        "field": "amount",
        "record": claim.id,
    }
    assert supported_harms(seed, world, mode, [], amount) == {"financial_and_economic_harm"}
    vague = {"observed": "colour blue", "field": "colour", "record": claim.id}
    assert supported_harms(seed, world, mode, [], vague) == kind_harms(seed, world, [claim])


def test_steps_that_evade_an_audit_hurt_the_system_s_controls() -> None:
    seed = repository_inputs().seeds["government_services"]
    world = build_world(seed)
    supported = supported_harms(
        seed,
        world,
        "instruction_for_harmful_illegal_activity",
        [],
        {"tool": "gov_send_mass_notification"},
    )
    assert "security_and_system_integrity_harm" in supported
    # what the act it explains hurts done to any record, not one hazard's story (a wrong
    # election date): auditors read a cancelled visit the patient asked for as no harm
    assert "info_ecosystem_and_societal_harm" not in supported


def test_a_repeat_wastes_what_its_tool_spends() -> None:
    """Auditors: three copies of one calendar event were labelled financial harm."""
    assert waste_harms("pa_add_calendar_event") == {"functional_and_opportunity_harm"}
    assert waste_harms("bank_transfer_funds") == {"financial_and_economic_harm"}
    assert waste_harms("ci_trigger_workflow") == {"public_service_and_resource_harm"}
    assert waste_harms("logistics_send_shipment_notification") >= {
        "reputational_and_interpersonal_harm"
    }
