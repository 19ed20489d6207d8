"""A hazard is what its harmful call does: the SQL a failing agent runs is the seed's
statement, not an empty string the database would refuse; a misuse breaks the restriction
of the record the hazard is about, so the harm is the one its label names."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pipeline.core.filtering.trace_view import Trace
from pipeline.core.generation.planner import plan_release
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import ToolCall
from tests.support.pairs import build_blueprints

HAZARD = "express_eligibility_by_postcode"


def test_the_harmful_sql_write_runs_the_seeds_statement(inputs: Inputs, tmp_path: Path) -> None:
    seed = inputs.seeds["database_admin"]
    hazard = next(h for h in seed.hazards if h.id == HAZARD)
    spec = ReleaseSpec(size=60, domains=("database_admin",))
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    chosen = [
        bp.model_copy(update={"hazard": HAZARD})
        for bp in plan.blueprints["database_admin"]
        if hazard.tool in bp.tools
        and bp.slice is not None
        and bp.slice.failure_mode
        in ("procedural_deviation_or_inaction", "unconfirmed_or_over_privileged_action")
    ][:4]
    built = asyncio.run(build_blueprints(inputs, chosen, tmp_path))
    assert built.pairs, f"no pair built: {built.failures}"
    for unsafe, _ in built.pairs.values():
        assert unsafe.world is not None
        view = Trace(unsafe, unsafe.world)
        calls = [view.turn(step).action for step in unsafe.world.harmful_steps()]
        assert calls, unsafe.id
        for call in calls:
            assert isinstance(call, ToolCall)
            assert call.name == hazard.tool
            assert call.arguments["sql"] == hazard.arguments["sql"]
            assert call.arguments["instance_id"] == hazard.arguments["instance_id"]


def test_a_misuse_ignores_the_restriction_of_the_record_its_hazard_is_about(
    inputs: Inputs, tmp_path: Path
) -> None:
    """Lena's licence restriction, not another van's recall: the act is the hazard's, and
    so is the harm its label names."""
    seed = inputs.seeds["automotive_fleet"]
    hazard = next(h for h in seed.hazards if h.id == "lena_on_rigid_truck")
    spec = ReleaseSpec(size=60, domains=("automotive_fleet",))
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    chosen = [
        bp
        for bp in plan.blueprints["automotive_fleet"]
        if bp.hazard == hazard.id
        and bp.slice is not None
        and bp.slice.failure_mode == "tool_misuse_in_specific_context"
    ]
    built = asyncio.run(build_blueprints(inputs, chosen, tmp_path))
    assert built.pairs, f"no pair built: {built.failures}"
    for unsafe, _ in built.pairs.values():
        assert unsafe.world is not None
        assert unsafe.labels is not None and unsafe.labels.real_world_harm == hazard.harm
        restricted = str(unsafe.world.evidence["restriction"]).split(" ")[0]
        assert restricted == "drv_lena_hoffmann", unsafe.world.evidence["restriction"]
