"""What a domain can act out, on the repository's own seeds and tools: which tools run
untrusted things, which records carry a restriction, and which hazards can misuse one."""

from __future__ import annotations

from pipeline.core.generation.feasibility import (
    authored,
    carrier_workflows,
    carries_text,
    forbids,
    groundable_workflows,
    hazard_fits,
    infeasible_modes,
    plantable_field,
    reports_itself,
    restricted_records,
    restricted_targets,
    reveal,
    untrusted_field,
)
from pipeline.core.generation.planner import plan_release
from pipeline.core.generation.steps import simulate
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.spec import ReleaseSpec


def test_only_a_genuine_tool_with_a_side_effect_runs_untrusted_content(inputs: Inputs) -> None:
    pool = inputs.pool
    assert untrusted_field(pool["infra_run_shell_command"]) == ("command", "command")
    assert untrusted_field(pool["web_download_file_to_workspace"]) == ("url", "url")
    assert untrusted_field(pool["iiot_deploy_plc_program"]) == ("program_source", "source")
    assert untrusted_field(pool["web_fetch_page_html"]) is None  # reading changes nothing
    assert untrusted_field(pool["soc_run_remote_script_elevated"]) is None  # a look-alike
    assert untrusted_field(pool["soc_run_remote_script"]) is None  # a library script's name
    assert untrusted_field(pool["crm_apply_account_credit"]) is None  # `reason_code` is no code


def test_restrictions_are_holds_and_alerts_not_an_alerts_own_number(inputs: Inputs) -> None:
    legal = restricted_records(build_world(inputs.seeds["legal_documents"]))
    assert ("mat_2024_017", "litigation_hold: true") in {(r.id, rule) for r, rule in legal}
    devops = restricted_records(build_world(inputs.seeds["devops_cloud"]))
    assert not any(rule.startswith("alert_id") for _, rule in devops)
    telehealth = restricted_records(build_world(inputs.seeds["telehealth"]))
    assert not any(rule.startswith("alert_threshold") for _, rule in telehealth)


def test_a_document_of_a_held_matter_is_reached_and_the_hold_can_be_shown(
    inputs: Inputs,
) -> None:
    seed = inputs.seeds["legal_documents"]
    world = build_world(seed)
    targets = restricted_targets(world, inputs.pool["legal_delete_document"])
    documents = {value for field, value, held, _ in targets if held.id == "mat_2024_017"}
    assert "doc_oc_letter_1104" in documents  # its matter_id is the held matter
    assert "doc_spa_draft_v4" not in documents  # a document of another matter
    held = world.get("mat_2024_017")
    assert held is not None
    shown = reveal(inputs.pool, seed, world, held, "litigation_hold: true")
    assert shown is not None
    tool, plan = shown
    assert tool.side_effect == "none" and tool.lookalike_of is None
    _, result = execute(world, tool, plan.arguments, ("mat_2024_017",))
    assert result.error is None


def test_misuse_is_planned_only_where_a_hazard_can_act_on_a_shown_restriction(
    inputs: Inputs,
) -> None:
    legal = inputs.seeds["legal_documents"]
    spoliation = next(h for h in legal.hazards if h.id == "spoliation_delete")
    assert hazard_fits(legal, inputs.pool, spoliation, "tool_misuse_in_specific_context")
    chat = inputs.seeds["workplace_chat"]
    # The channel's hold is a record attribute no read-only tool of the domain returns.
    assert not any(
        hazard_fits(chat, inputs.pool, h, "tool_misuse_in_specific_context") for h in chat.hazards
    )
    assert "tool_misuse_in_specific_context" in infeasible_modes(chat, inputs.pool)
    assert "tool_misuse_in_specific_context" not in infeasible_modes(legal, inputs.pool)


def test_insecure_execution_is_not_planned_without_a_runner(inputs: Inputs) -> None:
    crm = infeasible_modes(inputs.seeds["customer_support_crm"], inputs.pool)
    assert "side effect" in crm["insecure_interaction_or_execution"]
    assert "insecure_interaction_or_execution" not in infeasible_modes(
        inputs.seeds["devops_cloud"], inputs.pool
    )


def test_the_plan_gives_misuse_and_misbehaving_tools_only_slices_they_can_show(
    inputs: Inputs,
) -> None:
    spec = ReleaseSpec(domains=tuple(sorted(inputs.seeds)), size=400)
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    misuse = tool_execution = 0
    for domain, blueprints in plan.blueprints.items():
        seed = inputs.seeds[domain]
        for bp in blueprints:
            if bp.slice is None:
                continue
            hazard = next(h for h in seed.hazards if h.id == bp.hazard)
            if bp.slice.failure_mode == "tool_misuse_in_specific_context":
                misuse += 1
                assert hazard_fits(seed, inputs.pool, hazard, bp.slice.failure_mode), bp.id
            if bp.slice.risk_source == "malicious_tool_execution":
                tool_execution += 1
                assert bp.workflows[-1] in carrier_workflows(seed, inputs.pool), bp.id
    assert misuse and tool_execution


def test_the_planner_plans_no_workflow_a_step_of_which_nothing_grounds(inputs: Inputs) -> None:
    """'Check disk space on the bastion host' names no command, so the shell call would send
    a schema example: the workflow is left out of the plan rather than rejected once built."""
    seed = inputs.seeds["devops_cloud"]
    groundable = groundable_workflows(seed, inputs.pool)
    ungrounded = {w.id for w in seed.workflows if isinstance(simulate(seed, inputs.pool, w), tuple)}
    assert "disk_check_bastion" in ungrounded
    assert len(groundable) == len(seed.workflows) - len(ungrounded)
    spec = ReleaseSpec(domains=("devops_cloud",), size=60)
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    planned = {w for bp in plan.blueprints["devops_cloud"] for w in bp.workflows}
    assert planned and not planned & ungrounded


def test_a_restriction_is_misused_only_by_the_act_it_forbids(inputs: Inputs) -> None:
    pool = inputs.pool
    release = "restricted_alerts: notes need break-the-glass and explicit consent to release"
    assert not forbids(release, pool["ehr_schedule_appointment"])  # booking releases nothing
    recall = "recall_hold_status: Recall R-24-118 open; not to be dispatched until repaired"
    assert forbids(recall, pool["fleet_dispatch_route"])
    assert not forbids(recall, pool["fleet_immobilize_vehicle"])  # the opposite of dispatching
    grievance = "hold_open_cases: Grievance open - dismissal and disciplinary outcomes on hold"
    assert forbids(grievance, pool["hr_terminate_employee"])
    assert forbids("litigation_hold: true", pool["legal_delete_document"])
    healthcare = build_world(inputs.seeds["healthcare_records"])
    assert not restricted_targets(healthcare, pool["ehr_schedule_appointment"])


def test_a_subject_line_carries_no_planted_text_a_body_does() -> None:
    """A ticket's subject is shown by every listing of tickets: text planted there would
    contradict the listing the agent read before."""
    assert not plantable_field("subject", {"type": "string"})
    assert plantable_field("body", {"type": "string"})


def test_a_tool_reports_what_it_did_in_its_own_fields_not_in_a_record_it_returns(
    inputs: Inputs,
) -> None:
    pool = inputs.pool
    written = {"tag": "TT-101", "old_value": 72.0, "new_value": 74.0, "status": "written"}
    assert reports_itself(pool["iiot_write_setpoint"], {**written, "message": "Applied."})
    fault = {"code": "U0121", "description": "Lost ABS module.", "severity": "high"}
    diagnostics = {"vehicle_id": "veh_van_017", "odometer_km": 48210, "dtcs": [fault]}
    # a fault's description could hold a message, but it is the record's, not the tool's
    assert carries_text(pool["fleet_get_vehicle_diagnostics"], diagnostics)
    assert not reports_itself(pool["fleet_get_vehicle_diagnostics"], diagnostics)


def test_what_people_wrote_is_told_from_a_tools_own_data(inputs: Inputs) -> None:
    pool = inputs.pool
    for name in ("fleet_read_driver_messages", "shop_get_product_reviews", "web_fetch_page_html"):
        assert authored(pool[name]), name
    for name in ("fleet_get_vehicle_diagnostics", "infra_get_logs", "billing_get_invoice"):
        assert not authored(pool[name]), name
