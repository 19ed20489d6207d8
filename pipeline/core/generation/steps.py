"""Planning one workflow step without a model: its arguments and the look-ups they need.

Both the builder and `atbench validate` use it, so a workflow the world cannot support is
named before any build starts (seed, workflow, step, field) instead of surfacing as a
nonsensical trace or a mid-build rejection.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

from pipeline.core.generation.grounding import Plan, focus_records, plan_arguments
from pipeline.core.generation.render import render
from pipeline.core.generation.semantics import operation_of, tokens
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.seeds import Seed, Workflow
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
    plan = plan_arguments(tool, world, focus, request, seen, visible)
    required = set(tool.parameters.get("required") or [])
    for name, source in plan.sources.items():
        if source == "default" and name in required and names_record(name):
            return Gap(tool.name, name, "nothing in the task or the world gives it")
    found = lookups_for(pool, seed, world, tool, plan, request, focus, visible)
    if isinstance(found, Gap):
        return found
    lookups, context, visible = found
    if lookups:
        seen = [r.id for r in world.records if r.id in visible]
        plan = plan_arguments(tool, world, focus, request, seen, visible)
    _, result = execute(world, tool, plan.arguments, focus)
    if result.error is not None:
        return Gap(tool.name, next(iter(plan.arguments), "arguments"), result.error)
    return StepPlan(plan=plan, lookups=lookups, context=context)


def lookups_for(
    pool: ToolPool,
    seed: Seed,
    world: World,
    tool: Tool,
    plan: Plan,
    request: str,
    focus: tuple[str, ...],
    visible: str,
) -> tuple[list[tuple[Tool, Plan]], list[str], str] | Gap:
    """The look-ups (or session context) that show every record id `plan` passes, and
    those that show a value read from a record (a contact's address) before it is used."""
    lookups: list[tuple[Tool, Plan]] = []
    context: list[str] = []
    for name, value in plan.arguments.items():
        record = world.get(value) if isinstance(value, str) else None
        if record is None:
            holder = _holder_of(world, value, focus, visible)
            wanted = str(value)
            located = holder and finder(pool, seed, world, holder, (request, visible), wanted)
            if located:
                lookups.append(located[:2])
                visible += "\n" + located[2]
            continue  # a value no look-up shows stays ungrounded: the grounding check counts it
        if record.id in visible:
            continue
        located = finder(pool, seed, world, record.id, (request, visible))
        if located is not None:
            lookups.append(located[:2])
            visible += "\n" + located[2]
        elif record.id in focus:
            context.append(record.id)
            visible += "\n" + record.id
        else:
            return Gap(tool.name, name, f"no read-only tool of the domain shows {record.id!r}")
    return lookups, context, visible


def _holder_of(world: World, value: Any, focus: tuple[str, ...], visible: str) -> str | None:
    """The record whose attribute a value not yet shown was read from (a contact's e-mail,
    a depot's latitude), the task's own records first."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = str(value).lower()
    if len(text) < 3 or text in visible.lower():
        return None
    ranked = sorted(world.records, key=lambda r: r.id not in focus)
    return next(
        (r.id for r in ranked if any(str(v).lower() == text for v in r.attributes.values())),
        None,
    )


def finder(
    pool: ToolPool,
    seed: Seed,
    world: World,
    record_id: str,
    said: tuple[str, str],
    value: str | None = None,
) -> tuple[Tool, Plan, str] | None:
    """A genuine read-only tool whose answer shows the record (or the value of it that a
    call passes), with the call that does: one whose own arguments the agent can source
    from `said` (the request, what it has seen) when there is one."""
    request, visible = said
    seen = [r.id for r in world.records if r.id in visible]
    readers = [
        pool[n]
        for n in seed.tools
        if pool[n].side_effect == "none" and pool[n].lookalike_of is None
    ]
    readers.sort(key=lambda t: (operation_of(t) != "list", t.name))
    found: list[tuple[Tool, Plan, str]] = []
    for tool in readers:
        planned = plan_arguments(tool, world, (record_id,), request, seen, visible)
        bare = [] if tool.parameters.get("required") else [Plan()]
        for attempt in (planned, *bare):
            if record_id in json.dumps(attempt.arguments):
                continue  # a look-up that needs the id it is meant to find
            _, result = execute(world, tool, attempt.arguments, (record_id,))
            shown = json.dumps(render(tool, result, world, attempt.arguments, random.Random(0)))
            if (value or record_id).lower() in shown.lower():
                if _sourced(tool, attempt, f"{request}\n{visible}"):
                    return tool, attempt, shown
                found.append((tool, attempt, shown))
                break
    return found[0] if found else None


def _sourced(tool: Tool, plan: Plan, said: str) -> bool:
    """Whether every value of a look-up (options aside) appears in what the agent was told
    or shown."""
    lowered = said.lower()
    properties = tool.parameters.get("properties") or {}
    return all(
        isinstance(v, bool)
        or "enum" in properties.get(k, {})
        or json.dumps(v).strip('"').lower() in lowered
        for k, v in plan.arguments.items()
    )


def simulate(seed: Seed, pool: ToolPool, workflow: Workflow) -> list[Any] | tuple[int, Gap]:
    """The observations of each step's main call in a benign run, or where it cannot be
    grounded. Deterministic, no model: what `validate` and the planner reason about."""
    world = build_world(seed)
    focus = focus_records(world, workflow.request)
    visible = workflow.request
    observed: list[Any] = []
    for j, name in enumerate(workflow.steps):
        tool = pool[name]
        planned = plan_step(pool, seed, world, tool, workflow.request, focus, visible)
        if isinstance(planned, Gap):
            return j, planned
        visible += " ".join(planned.context)
        for lookup_tool, lookup in planned.lookups:
            world, result = execute(world, lookup_tool, lookup.arguments, focus)
            visible += json.dumps(render(lookup_tool, result, world, lookup.arguments, _RNG()))
        world, result = execute(world, tool, planned.plan.arguments, focus)
        shown = render(tool, result, world, planned.plan.arguments, _RNG())
        observed.append(shown)
        visible += json.dumps(shown)
    return observed


def _RNG() -> random.Random:
    return random.Random(0)


def workflow_gaps(seed: Seed, pool: ToolPool) -> list[tuple[str, int, Gap]]:
    """(workflow id, step index, gap) for every workflow the seed's world cannot ground."""
    gaps = []
    for workflow in seed.workflows:
        outcome = simulate(seed, pool, workflow)
        if isinstance(outcome, tuple):
            gaps.append((workflow.id, *outcome))
    return gaps
