"""Tasks derived from an imported API's own operations: asked for in the request, grounded
from it, answered in the API's shape, kept apart from the seed's own tools, and given out
in rotation to the earlier episode of long-context pairs."""

from __future__ import annotations

from collections import Counter

from pipeline.core.generation.imported_tasks import PREFIX, imported_tasks, world_with
from pipeline.core.generation.planner import plan_release
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.spec import ReleaseSpec

_DOMAIN = "workplace_chat"


def test_a_task_names_every_record_its_calls_pass(inputs: Inputs) -> None:
    seed = inputs.seeds[_DOMAIN]
    tasks = imported_tasks(seed, inputs.pool, build_world(seed))
    assert tasks, "the domain's imported API gives no task"
    for task in tasks:
        assert task.workflow.id.startswith(PREFIX)
        assert task.api in task.workflow.request
        for name in task.workflow.steps:
            tool = inputs.pool[name]
            assert tool.source != "curated" and tool.side_effect == "none"
        for record in task.records:
            assert record.id in task.workflow.request  # the id the API takes, said by the user


def test_seed_tools_never_see_an_imported_apis_records(inputs: Inputs) -> None:
    seed = inputs.seeds[_DOMAIN]
    base = build_world(seed)
    tasks = [t for t in imported_tasks(seed, inputs.pool, base) if t.records]
    assert tasks, "no task of the domain is about a record"
    world = world_with(base, tasks)
    ids = {r.id for t in tasks for r in t.records}
    assert ids <= {r.id for r in world.records}
    for name in seed.tools:
        tool = inputs.pool[name]
        if tool.side_effect != "none":
            continue
        _, result = execute(world, tool, {"query": next(iter(ids))}, tuple(ids))
        assert not ids & {r.id for r in result.records}, name


def test_long_context_pairs_take_imported_tasks_in_rotation(inputs: Inputs) -> None:
    spec = ReleaseSpec(size=400, domains=(_DOMAIN,))
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    seed = inputs.seeds[_DOMAIN]
    tasks = imported_tasks(seed, inputs.pool, build_world(seed))
    earlier = [bp for bp in plan.blueprints[_DOMAIN] if bp.long_context]
    assert earlier
    uses = Counter(bp.workflows[0] for bp in earlier)
    assert set(uses) <= {t.workflow.id for t in tasks}
    # each task is used about once before any is reused
    assert max(uses.values()) - min(uses.values()) <= 1
    assert len(uses) == min(len(tasks), len(earlier))
    for bp in earlier:
        steps = next(t.workflow.steps for t in tasks if t.workflow.id == bp.workflows[0])
        assert set(steps) <= set(bp.tools)  # the agent is offered the API's operations
    # the risk stays with the seed's own workflow
    assert not any(
        bp.workflows[-1].startswith(PREFIX) for bps in plan.blueprints.values() for bp in bps
    )
