"""The planner balances leaves across the release and reproduces one domain's share alone."""

import math
import re
from collections import Counter

import pytest

from pipeline.core.generation.harms import CONTENT_HARMS, accumulates
from pipeline.core.generation.overplan import MEASURED_HARM_KEEP, harm_targets, pair_slots
from pipeline.core.generation.planner import ReleasePlan, coverage, plan_release
from pipeline.core.generation.semantics import operation_of
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.labels import OUTPUT_MODES
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.spec import ReleaseSpec


def _spec(inputs: Inputs, **changes: object) -> ReleaseSpec:
    return ReleaseSpec(domains=tuple(sorted(inputs.seeds)), **changes)


@pytest.fixture(scope="module", name="plan")
def default_plan(inputs: Inputs) -> ReleasePlan:
    """The plan of a default release (every domain, 1,000): what most properties are about,
    planned once for the module."""
    return plan_release(_spec(inputs, size=1000), inputs.seeds, inputs.pool, inputs.taxonomy)


def test_every_leaf_near_its_quota(inputs: Inputs, plan: ReleasePlan) -> None:
    """Its fair share, or for a harm the share that ends fair after relabelling (within 30 %:
    a content failure mode's harm is its content's, whatever the quota)."""
    planned = sum(bp.kind == "pair" for bps in plan.blueprints.values() for bp in bps)
    harms = harm_targets(planned, inputs.taxonomy.leaf_ids("real_world_harm"))
    for axis, counts in coverage(plan).items():
        fair = planned / len(inputs.taxonomy.leaf_ids(axis))  # type: ignore[arg-type]
        for leaf in inputs.taxonomy.leaf_ids(axis):  # type: ignore[arg-type]
            quota, slack = (harms[leaf], 0.3) if axis == "real_world_harm" else (fair, 0.2)
            assert abs(counts[leaf] - quota) <= slack * quota, (axis, leaf, counts[leaf], quota)


def test_plan_is_deterministic_and_seed_dependent(inputs: Inputs) -> None:
    first = plan_release(_spec(inputs, size=200), inputs.seeds, inputs.pool, inputs.taxonomy)
    again = plan_release(_spec(inputs, size=200), inputs.seeds, inputs.pool, inputs.taxonomy)
    other = plan_release(
        _spec(inputs, size=200, seed=7), inputs.seeds, inputs.pool, inputs.taxonomy
    )
    assert first == again
    assert first != other


def test_harms_only_from_the_domains_hazards(inputs: Inputs, plan: ReleasePlan) -> None:
    for domain, blueprints in plan.blueprints.items():
        harms = {h.harm for h in inputs.seeds[domain].hazards}
        for bp in blueprints:
            if bp.slice is None:
                continue
            # docs/labels.md: a content mode's harm is its content's, whatever the domain
            allowed = CONTENT_HARMS.get(bp.slice.failure_mode, harms)
            assert bp.slice.real_world_harm in allowed, (domain, bp.slice)
    recorded = {(i.domain, i.leaf) for i in plan.incompatibilities}
    for domain, seed in inputs.seeds.items():
        for leaf in inputs.taxonomy.leaf_ids("real_world_harm"):
            assert ((domain, leaf) in recorded) == (leaf not in {h.harm for h in seed.hazards})


def test_shares_and_sizes(inputs: Inputs) -> None:
    spec = _spec(inputs, size=1000, unsafe_share=0.45)
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    kinds = Counter(bp.kind for bps in plan.blueprints.values() for bp in bps)
    # pairs are over-planned for selection after filtering; benign traces are not
    slots = pair_slots(spec, seeded_rng(spec.seed, "plan"))
    assert kinds["pair"] == sum(slots.values()) > 450
    assert kinds["benign"] == 1000 - 2 * 450
    per_domain = Counter(
        bp.domain for bps in plan.blueprints.values() for bp in bps if bp.kind == "pair"
    )
    assert per_domain == slots
    long = sum(bp.long_context for bps in plan.blueprints.values() for bp in bps)
    assert long == round(kinds["pair"] * spec.long_context_share)


def test_combinations_vary(plan: ReleasePlan) -> None:
    combos = Counter(bp.slice for bps in plan.blueprints.values() for bp in bps if bp.slice)
    assert len(combos) > 300
    # no behavioural slice takes more than one pair in sixty (pairs are over-planned): a mode
    # follows the hazards written for its harm, and waste is mostly written as a waste of
    # shared resources, which only a few sources (those that ask for the repeat) can cause
    pairs = sum(combos.values())
    most = max(n for c, n in combos.items() if c.failure_mode not in CONTENT_HARMS)
    assert most <= math.ceil(pairs / 60), (most, pairs)
    # A content mode's harm is pinned by its content (docs/labels.md), so its slices share
    # few combinations; none may take more than twice its even share of them.
    for mode in CONTENT_HARMS:
        mine = {c: n for c, n in combos.items() if c.failure_mode == mode}
        assert len(mine) >= 3 * len(CONTENT_HARMS[mode]), (mode, mine)
        # the even share of its usual combinations: one taken once or twice (a mode on its
        # rarer harm) would halve it
        usual = [n for n in mine.values() if n >= 3]
        even = math.ceil(sum(usual) / len(usual))
        assert max(mine.values()) <= 2 * even, (mode, mine)


def test_blueprint_tools_include_every_step_and_the_hazard_tool(
    inputs: Inputs, plan: ReleasePlan
) -> None:
    for domain, blueprints in plan.blueprints.items():
        seed = inputs.seeds[domain]
        for bp in blueprints:
            steps = {s for w in seed.workflows if w.id in bp.workflows for s in w.steps}
            assert steps <= set(bp.tools)
            if bp.hazard:
                assert next(h.tool for h in seed.hazards if h.id == bp.hazard) in bp.tools


def test_safe_twins_use_every_strategy_and_over_a_tenth_meet_no_risk(plan: ReleasePlan) -> None:
    pairs = [bp for bps in plan.blueprints.values() for bp in bps if bp.kind == "pair"]
    strategies = Counter(bp.safe_strategy for bp in pairs)
    assert set(strategies) == {"removed", "resisted", "handled"}
    # Construction rejects some pairs; the plan keeps a margin above issue 13's ten percent.
    assert strategies["removed"] / len(pairs) >= 0.11, strategies


def test_most_behavioural_pairs_act_out_a_hazard_written_for_their_mode(
    inputs: Inputs, plan: ReleasePlan
) -> None:
    """Auditors: a hazard written as 300 repeated runs, planned as a procedural deviation,
    became one harmless run; an unconfirmed wipe planned as flawed planning read as
    unconfirmed. The mode is one a hazard of the harm was written for where it can be (37 % of
    behavioural pairs before)."""
    written = Counter(
        bp.slice.failure_mode in hazard.failure_modes
        for domain, blueprints in plan.blueprints.items()
        for bp in blueprints
        if bp.slice is not None and bp.slice.failure_mode not in OUTPUT_MODES
        for hazard in inputs.seeds[domain].hazards
        if hazard.id == bp.hazard
    )
    assert written[True] >= 0.8 * sum(written.values()), written


def test_misinformation_is_planned_with_hazards_a_false_report_was_written_for(
    inputs: Inputs, plan: ReleasePlan
) -> None:
    """A generated false statement could only list the harmful call's inputs; the seed's
    report gives it a reason. Where the domain has such a hazard for the slice, it is used
    (57 % of the seeds' hazards have a report; 79 % of misinformation pairs get one)."""
    claimed = Counter(
        bool(hazard.claim)
        for domain, blueprints in plan.blueprints.items()
        for bp in blueprints
        if bp.slice is not None
        and bp.slice.risk_source == "unreliable_or_misinformation"
        and bp.slice.failure_mode != "provide_inaccurate_misleading_or_unverified_information"
        for hazard in inputs.seeds[domain].hazards
        if hazard.id == bp.hazard
    )
    assert claimed[True] >= 0.75 * sum(claimed.values()), claimed


def test_a_harm_that_construction_often_relabels_is_planned_more() -> None:
    """A planned public-service harm often ends as a privacy or security one (the harm is
    read from what was done): it is planned in inverse proportion to the share kept, and
    the targets still add up to the pairs planned."""
    leaves = tuple(MEASURED_HARM_KEEP)
    targets = harm_targets(800, leaves)
    assert abs(sum(targets.values()) - 800) < 1e-6
    assert (
        targets["public_service_and_resource_harm"]
        > 80
        > targets["privacy_and_confidentiality_harm"]
    )
    ratio = (
        targets["public_service_and_resource_harm"] / targets["security_and_system_integrity_harm"]
    )
    assert abs(ratio - 1.35 / 0.44) < 1e-6


def test_a_look_alike_or_a_repeat_is_never_planned_from_a_false_record(plan: ReleasePlan) -> None:
    """Auditors: a misstated 'months active' was labelled the source of four identical
    messages, a fake 'resolved' status that of a look-alike tool's use. A source that states
    data or reports what a tool did asks for neither."""
    slices = [bp.slice for bps in plan.blueprints.values() for bp in bps if bp.slice]
    stating = {
        "unreliable_or_misinformation",
        "corrupted_tool_feedback",
        "malicious_tool_execution",
    }
    asked = {"choosing_malicious_tool", "inefficient_or_wasteful_execution"}
    assert not [s for s in slices if s.risk_source in stating and s.failure_mode in asked]
    assert {s.failure_mode for s in slices if s.risk_source == "inherent_agent_failures"} >= asked


def test_a_wasteful_pair_gets_a_task_whose_next_step_adds_each_time(
    inputs: Inputs, plan: ReleasePlan
) -> None:
    """The waste repeats the task's own next consequential step; the hazard's values, said by
    no one, cannot be repeated from the trace (a build lost 39 of 78 such pairs). Only where
    the risk needs a task whose result can carry it and none of those adds may it not."""
    adding: Counter[bool] = Counter()
    for domain, blueprints in plan.blueprints.items():
        workflows = {w.id: w for w in inputs.seeds[domain].workflows}
        for bp in blueprints:
            if bp.slice is None or bp.slice.failure_mode != "inefficient_or_wasteful_execution":
                continue
            acting = [
                inputs.pool[s]
                for s in workflows[bp.workflows[-1]].steps
                if inputs.pool[s].side_effect != "none"
            ]
            adding[bool(acting) and accumulates(acting[0].name, operation_of(acting[0]))] += 1
    # industrial_iot, smart_home and travel_booking have few writes that add (a setpoint
    # written three times is one setpoint): their injected wasteful pairs fall back
    assert adding[True] >= 0.85 * sum(adding.values()), adding


def test_a_request_that_says_who_is_speaking_is_that_personas(inputs: Inputs) -> None:
    """'Ines here. Rob leaves on Friday - … make me the owner' is Ines's request, never one
    the firm's other personas make (it had gone out as 'Hi, Rob here. Ines here. …')."""
    spec = ReleaseSpec(size=400, domains=("cloud_storage",))
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    hers = [bp for bp in plan.blueprints["cloud_storage"] if bp.workflows[-1] == "harlow_to_ines"]
    assert hers
    assert {bp.persona for bp in hers} == {"Ines Alder"}
    others = {bp.persona for bp in plan.blueprints["cloud_storage"]}
    assert len(others) > 1  # the rest still vary


def test_a_request_about_my_account_is_the_holders(inputs: Inputs, plan: ReleasePlan) -> None:
    """'Shift 500 EUR from my checking' came from the bank's care supervisor."""
    seed = inputs.seeds["personal_banking"]
    requests = {w.id: w.request for w in seed.workflows}
    mine = [
        bp
        for bp in plan.blueprints["personal_banking"]
        if re.search(r"\bmy\b", requests[bp.workflows[-1]], re.I)
    ]
    assert mine and {bp.persona for bp in mine} == {"Dana Whitfield"}
