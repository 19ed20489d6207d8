"""Planning one workflow step without a model: its arguments and the look-ups they need.

Both the builder and `atbench validate` use it, so a workflow the world cannot support is
named before any build starts (seed, workflow, step, field) instead of surfacing as a
nonsensical trace or a mid-build rejection.
"""

from __future__ import annotations

import json
import random
import re
import zlib
from dataclasses import dataclass, field
from typing import Any

from pipeline.core.generation.dates import spoken_date
from pipeline.core.generation.grounding import Plan, plan_arguments, unsourced_required
from pipeline.core.generation.naming import focus_records, named_as
from pipeline.core.generation.render import render
from pipeline.core.generation.semantics import is_free_text_field, operation_of, tokens
from pipeline.core.generation.user_words import UP_FRONT
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.seeds import Seed, Workflow
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.world import Record, World


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
    unsourced = unsourced_required(tool, plan)
    if unsourced is not None:
        return Gap(tool.name, unsourced, "nothing the user said or a result showed gives it")
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
        # each id of a list (the documents a release sends) is shown like a single one
        for item in value if isinstance(value, list) else [value]:
            record = world.get(item) if isinstance(item, str) else None
            if record is None:
                holder = _holder_of(world, item, focus, visible)
                wanted = str(item)
                located = holder and finder(
                    pool, seed, world, holder, (request, visible), wanted, focus=focus
                )
                if located and not _is_the_step(located, tool, plan):
                    lookups.append(located[:2])
                    visible += "\n" + located[2]
                continue  # a value no look-up shows stays ungrounded: the grounding check counts it
            if record.id in visible:
                continue
            located = finder(pool, seed, world, record.id, (request, visible), focus=focus)
            if located is not None:
                # an id the look-up itself passes that nothing showed (the open requisition a
                # candidate list is for): the session context shows it
                for passed in located[1].arguments.values():
                    if isinstance(passed, str) and world.get(passed) and passed not in visible:
                        context.append(passed)
                        visible += "\n" + passed
                lookups.append(located[:2])
                visible += "\n" + located[2]
            elif record.id in focus:
                context.append(record.id)
                visible += "\n" + record.id
            else:
                return Gap(tool.name, name, f"no read-only tool of the domain shows {record.id!r}")
    return lookups, context, visible


def _is_the_step(located: tuple[Tool, Plan, str], tool: Tool, plan: Plan) -> bool:
    """Whether a look-up is the step's own call: the step shows the value itself (a
    document list read twice, the planted memo differing between the reads)."""
    return located[0].name == tool.name and located[1].arguments == plan.arguments


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
    *,
    focus: tuple[str, ...] = (),
) -> tuple[Tool, Plan, str] | None:
    """A genuine read-only tool whose answer shows the record (or the value of it that a
    call passes), with the call that does: one whose own arguments the agent can source
    from `said` (the request, what it has seen) when there is one. Given the task's `focus`,
    the call is judged by what it answers in the task, as the run will make it."""
    request, visible = said
    seen = [r.id for r in world.records if r.id in visible]
    readers = [
        pool[n]
        for n in seed.tools
        if pool[n].side_effect == "none" and pool[n].lookalike_of is None
    ]
    readers.sort(key=lambda t: (operation_of(t) != "list", t.name))
    target = world.get(record_id)
    held = target.attributes.values() if target is not None else ()
    holders = [v for v in held if isinstance(v, str) and world.get(v) is not None]
    found: list[tuple[Tool, Plan, str]] = []
    listed: list[tuple[Tool, Plan, str]] = []
    for tool in readers:
        planned = [plan_arguments(tool, world, (record_id,), request, seen, visible)]
        if _misnamed(planned[0]):  # Rx 7733405 is found under its patient's name
            said_so = f"{request}\n{visible}"
            planned = [
                _unknown_ids_dropped(
                    plan_arguments(tool, world, (h,), request, seen, visible), said_so
                )
                for h in holders
            ]
        # a call without arguments lists; a read of one record that names none finds nothing
        listing = operation_of(tool) == "list" and not tool.parameters.get("required")
        bare = [Plan()] if listing else []
        for attempt in (*planned, *bare):
            if record_id in json.dumps(attempt.arguments):
                continue  # a look-up that needs the id it is meant to find
            if unsourced_required(tool, attempt) is not None:
                continue  # a look-up of nothing
            _, result = execute(world, tool, attempt.arguments, focus or (record_id,))
            shown = json.dumps(render(tool, result, world, attempt.arguments, random.Random(0)))
            if (value or record_id).lower() in shown.lower():
                sourced = _sourced(tool, attempt, f"{request}\n{visible}")
                if sourced and attempt.arguments:
                    return tool, attempt, shown
                # a bare listing of every patient's visits waits for a search by her name
                (listed if sourced else found).append((tool, attempt, shown))
                break
    return (listed + found)[0] if listed or found else None


def _misnamed(plan: Plan) -> bool:
    """A name that is a number: a patient looked up by the name '7733405'."""
    return any(
        tokens(k)[-1:] == ["name"] and isinstance(v, str) and v.replace(" ", "").isdigit()
        for k, v in plan.arguments.items()
    )


def _unknown_ids_dropped(plan: Plan, said: str) -> Plan:
    """The search without an id nobody gave ('Sam Ortiz', not his `pat_sam_ortiz`)."""
    kept = Plan()
    for name, value in plan.arguments.items():
        if not (tokens(name)[-1:] == ["id"] and str(value) not in said):
            kept.set(name, value, plan.sources[name])
    return kept


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
    walked = _walk(seed, pool, workflow)
    return walked if isinstance(walked, tuple) else [calls[-1][3] for calls in walked]


_Call = tuple[Tool, Plan, str, Any]
"""A call of a benign run: the tool, its plan, what the agent had seen before it, and the
observation."""


def walk_calls(
    seed: Seed, pool: ToolPool, workflow: Workflow
) -> list[list[_Call]] | tuple[int, Gap]:
    """Each step's calls of the benign run (look-ups, then the main call), or where it
    cannot be grounded: what choosing a tool for a step compares."""
    return _walk(seed, pool, workflow)


def _walk(seed: Seed, pool: ToolPool, workflow: Workflow) -> list[list[_Call]] | tuple[int, Gap]:
    """Each step's calls, its look-ups first and its main call last."""
    world = build_world(seed)
    focus = focus_records(world, workflow.request)
    visible = workflow.request
    steps: list[list[_Call]] = []
    for j, name in enumerate(workflow.steps):
        tool = pool[name]
        planned = plan_step(pool, seed, world, tool, workflow.request, focus, visible)
        if isinstance(planned, Gap):
            return j, planned
        visible += " ".join(planned.context)
        calls: list[_Call] = []
        for lookup_tool, lookup in [*planned.lookups, (tool, planned.plan)]:
            world, result = execute(world, lookup_tool, lookup.arguments, focus)
            shown = render(lookup_tool, result, world, lookup.arguments, _RNG())
            calls.append((lookup_tool, lookup, visible, shown))
            visible += json.dumps(shown, ensure_ascii=False)
        steps.append(calls)
    return steps


def stated_request(seed: Seed, pool: ToolPool, workflow: Workflow) -> str:
    """The request with the details the user knows and the agent cannot look up (a depot's
    coordinates, a colleague's address, the account it is about), said up front — so every
    value of the benign run comes from the request or an observation."""
    request = workflow.request
    for _ in range(3):  # naming a record can bring it into the task: check again
        walked = _walk(seed, pool, workflow.model_copy(update={"request": request}))
        if isinstance(walked, tuple):
            return request
        details = _details(build_world(seed), [c for calls in walked for c in calls], request)
        if not details:
            return request
        request = f"{request.rstrip()} {_said_up_front(request, details)}"
    return request


def _said_up_front(request: str, details: list[str]) -> str:
    lead = UP_FRONT[zlib.crc32(request.encode()) % len(UP_FRONT)]
    return lead.format("; ".join(details))


def with_stated_requests(seed: Seed, pool: ToolPool) -> Seed:
    """The seed whose workflow requests say what only the user can (`stated_request`)."""
    workflows = tuple(
        w.model_copy(update={"request": stated_request(seed, pool, w)}) for w in seed.workflows
    )
    return seed.model_copy(update={"workflows": workflows})


def _details(world: World, calls: list[_Call], request: str) -> list[str]:
    """'Depot North geofence: lat 51.5203, lon -0.1107' for each record holding a value a
    call passes before anything showed it."""
    focus = focus_records(world, request)
    said = f"today is {world.today}. {request}"
    details: dict[str, tuple[Record, list[str], list[str]]] = {}
    for tool, plan, visible, _ in calls:
        properties = tool.parameters.get("properties") or {}
        for name, value in plan.arguments.items():
            if "enum" in properties.get(name, {}) or is_free_text_field(name):
                continue
            if plan.sources.get(name) == "request" and spoken_date(str(value), said):
                continue  # 'since Monday' is said already, whatever record shares its date
            for item in value if isinstance(value, list) else [value]:
                found = _unshown(world, item, focus, visible)
                if found is None:
                    continue
                record, key = found
                _, names, values = details.setdefault(record.id, (record, [], []))
                entries = names if key is None else values
                entry = str(item) if key is None else f"{key.replace('_', ' ')} {item}"
                if entry not in entries:
                    entries.append(entry)
                visible += f" {item}"
    out = []
    for record, names, values in details.values():
        label = names[0] if names else named_as(record, request)
        if label and values:
            out.append(f"{label} ({', '.join(values)})")
        else:
            out.append(label or ", ".join(values))
    return out


def _unshown(
    world: World, value: Any, focus: tuple[str, ...], visible: str
) -> tuple[Record, str | None] | None:
    """The record (and attribute, None for its name) a value not yet shown comes from."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    if isinstance(value, int) and abs(value) <= 10:
        return None  # a small count: the grounding check does not ask where it came from
    text = str(value).strip().lower()
    if not 2 <= len(text) <= 60 or text in visible.lower() or world.get(str(value)) is not None:
        return None
    for record in sorted(world.records, key=lambda r: r.id not in focus):
        if text in (record.name.lower(), re.sub(r"\s*\(.*?\)", "", record.name).lower()):
            return record, None
        key = next((k for k, v in record.attributes.items() if str(v).lower() == text), None)
        if key is not None:
            return record, key
    return None


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
