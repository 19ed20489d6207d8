"""Planning one workflow step without a model: its arguments and the look-ups they need.

Both the builder and `atbench validate` use it, so a workflow the world cannot support is
named before any build starts (seed, workflow, step, field) instead of surfacing as a
nonsensical trace or a mid-build rejection.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

from pipeline.core.generation.grounding import Plan, focus_records, plan_arguments
from pipeline.core.generation.render import render
from pipeline.core.generation.world import build_world, execute, operation_of, tokens
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.world import World


@dataclass
class StepPlan:
    """The main call's plan, preceded by the look-ups that show the ids it passes."""

    plan: Plan
    lookups: list[tuple[Tool, Plan]] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    """Ids of records the request names that no tool lists (the signed-in user's own wallet,
    the open patient chart): the deployment shows them to the agent as session context."""


@dataclass(frozen=True)
class Gap:
    """Why a step cannot be grounded: the field and what is missing."""

    tool: str
    field: str
    reason: str


def names_record(name: str) -> bool:
    return tokens(name)[-1:] in (["id"], ["ids"], ["number"], ["code"])


def plan_step(
    pool: ToolPool,
    seed: Seed,
    world: World,
    tool: Tool,
    request: str,
    focus: tuple[str, ...],
    visible: str,
) -> StepPlan | Gap:
    """The step's grounded plan, or the gap that makes it ungroundable."""
    seen = [r.id for r in world.records if r.id in visible]
    plan = plan_arguments(tool, world, focus, request, seen)
    required = set(tool.parameters.get("required") or [])
    for name, source in plan.sources.items():
        if source == "default" and name in required and names_record(name):
            return Gap(tool.name, name, "nothing in the task or the world gives it")
    lookups: list[tuple[Tool, Plan, str]] = []
    context: list[str] = []
    for name, value in plan.arguments.items():
        record = world.get(value) if isinstance(value, str) else None
        if record is None or record.id in visible:
            continue
        found = finder(pool, seed, world, record.id, request, seen)
        if found is not None:
            lookups.append(found)
            visible += "\n" + found[2]
        elif record.id in focus:
            context.append(record.id)
            visible += "\n" + record.id
        else:
            return Gap(tool.name, name, f"no read-only tool of the domain shows {record.id!r}")
    if lookups:
        seen = [r.id for r in world.records if r.id in visible]
        plan = plan_arguments(tool, world, focus, request, seen)
    return StepPlan(plan=plan, lookups=[(t, p) for t, p, _ in lookups], context=context)


def finder(
    pool: ToolPool, seed: Seed, world: World, record_id: str, request: str, seen: list[str]
) -> tuple[Tool, Plan, str] | None:
    """A genuine read-only tool whose answer shows the record, with the call that does."""
    readers = [
        pool[n] for n in seed.tools if pool[n].side_effect == "none" and pool[n].lookalike_of is None
    ]
    readers.sort(key=lambda t: (operation_of(t) != "list", t.name))
    for tool in readers:
        planned = plan_arguments(tool, world, (record_id,), request, seen)
        bare = [] if tool.parameters.get("required") else [Plan()]
        for attempt in (planned, *bare):
            if record_id in json.dumps(attempt.arguments):
                continue  # a look-up that needs the id it is meant to find
            _, result = execute(world, tool, attempt.arguments, (record_id,))
            shown = json.dumps(render(tool, result, world, attempt.arguments, random.Random(0)))
            if record_id in shown:
                return tool, attempt, shown
    return None


def workflow_gaps(seed: Seed, pool: ToolPool) -> list[tuple[str, int, Gap]]:
    """(workflow id, step index, gap) for every step the seed's world cannot ground."""
    gaps = []
    for workflow in seed.workflows:
        world = build_world(seed)
        focus = focus_records(world, workflow.request)
        visible = workflow.request
        for j, name in enumerate(workflow.steps):
            tool = pool[name]
            planned = plan_step(pool, seed, world, tool, workflow.request, focus, visible)
            if isinstance(planned, Gap):
                gaps.append((workflow.id, j, planned))
                break
            for lookup_tool, lookup in planned.lookups:
                world, result = execute(world, lookup_tool, lookup.arguments, focus)
                visible += json.dumps(render(lookup_tool, result, world, lookup.arguments, random.Random(0)))
            world, result = execute(world, tool, planned.plan.arguments, focus)
            visible += json.dumps(render(tool, result, world, planned.plan.arguments, random.Random(0)))
    return gaps
