"""Tasks of an imported public API, derived from its own operations.

The imported pool holds about two operations per API, so an imported tool rarely does
exactly what a curated workflow step does (`tool_choice`). Instead, an API whose
read-only operations can all be served becomes a task of its own: the user asks for what
those operations do (their summaries, in the order reads of a record come), naming the
record each one needs by the id the API takes; the world holds that record, its kind the
operation's own noun, so every argument comes from the request and every observation is
the API's `returns` schema filled from the record. Each task is checked by running it
(every argument grounded, every argument and answer valid against the API's schemas) and
dropped when it does not hold. The planner gives them out in rotation, so each imported
task is used about once before any is reused.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from pipeline.core.generation.naming import focus_records
from pipeline.core.generation.render import render
from pipeline.core.generation.semantics import list_field, operation_of
from pipeline.core.generation.steps import Gap, names_record, plan_step
from pipeline.core.generation.tool_choice import imported_readers, last_noun
from pipeline.core.generation.world import IMPORTED_KIND, execute
from pipeline.core.inputs.seeds import Seed, Workflow
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.seeding import stable_int
from pipeline.core.model.world import Record, World

PREFIX = "imported_"
"""Workflow ids of derived tasks start with it: `imported_<n>`, never a seed's own id."""
_MAX_STEPS = 3


@dataclass(frozen=True)
class ImportedTask:
    """One derived task: its workflow and the records its world must hold."""

    workflow: Workflow
    records: tuple[Record, ...]
    api: str


def imported_tasks(seed: Seed, pool: ToolPool, world: World) -> tuple[ImportedTask, ...]:
    """The domain's derived tasks that hold in its world, in a fixed order."""
    key = (seed.id, id(pool), id(world))
    found = _TASKS.get(key)
    if found is None or found[0] is not pool or found[1] is not world:
        found = (pool, world, _tasks(seed, pool, world))
        _TASKS[key] = found
    return found[2]


_TASKS: dict[tuple[str, int, int], tuple[ToolPool, World, tuple[ImportedTask, ...]]] = {}
"""Per process; each entry holds its pool and world, so a reused id cannot match."""


def _tasks(seed: Seed, pool: ToolPool, world: World) -> tuple[ImportedTask, ...]:
    domain = seed.id
    # look-ups search the seed's tools; a derived task takes none, so none are found
    alone = seed.model_copy(update={"tools": ()})
    by_api: dict[str, list[Tool]] = {}
    for tool in imported_readers(pool, domain):
        if tool.domains[0] == domain and _servable(tool):
            by_api.setdefault(tool.api_title or tool.name, []).append(tool)
    tasks: list[ImportedTask] = []
    for api, tools in sorted(by_api.items()):
        ordered = sorted(tools, key=lambda t: (operation_of(t) != "list", t.name))[:_MAX_STEPS]
        task = _task(domain, len(tasks), api, ordered, world)
        if task is None or not _holds(alone, pool, task, world):
            # the API's operations together do not hold: each alone may
            singles = (_task(domain, len(tasks), api, [t], world) for t in ordered)
            task = next(
                (t for t in singles if t is not None and _holds(alone, pool, t, world)), None
            )
        if task is not None:
            tasks.append(task)
    return tuple(tasks)


def _servable(tool: Tool) -> bool:
    """An operation whose every required argument is a plain id of a record (which the
    task's world holds and the request names), and whose answer has fields to show."""
    properties = tool.parameters.get("properties") or {}
    for name in tool.parameters.get("required") or []:
        schema = properties.get(name) or {}
        if not names_record(name) or schema.get("type") != "string":
            return False
        if set(schema) & {"format", "pattern", "enum", "minLength", "maxLength"}:
            return False
    return bool(tool.returns.get("properties")) and not _id_fields(tool)[1:]


def _id_fields(tool: Tool) -> list[str]:
    return list(tool.parameters.get("required") or [])


def _task(
    domain: str, n: int, api: str, tools: Sequence[Tool], world: World
) -> ImportedTask | None:
    records: dict[str, Record] = {}
    asks = []
    for tool in tools:
        noun, ask = last_noun(tool), _ask(tool)
        if noun is None or ask is None or noun in ("number", "code", "value"):
            return None
        fields = _id_fields(tool)
        if fields:
            record = records.get(noun) or _record(domain, api, noun, world)
            records[noun] = record
            asks.append(f"{ask} for {noun} {record.id}")
        else:
            asks.append(ask)
    request = f"In {api}, {_joined(asks)}."
    # a seed's workflows have two steps or more (an authoring rule); one operation of an
    # API is a whole task here
    workflow = Workflow.model_construct(
        id=f"{PREFIX}{n:03d}", request=request, steps=tuple(t.name for t in tools)
    )
    return ImportedTask(workflow=workflow, records=tuple(records.values()), api=api)


def _record(domain: str, api: str, noun: str, world: World) -> Record:
    """A record of the API's own kind, its id in the API's plain-string form."""
    number = stable_int(domain, api, noun) % 90000 + 10000
    record_id = f"{noun}_{number}"
    while world.get(record_id) is not None:
        number += 1
        record_id = f"{noun}_{number}"
    return Record(id=record_id, kind=f"{IMPORTED_KIND}{noun}", name=f"{noun.capitalize()} {number}")


_THIRD_PERSON = re.compile(
    r"^(gets|returns|retrieves|lists|fetches|reads|shows|provides|describes|displays)\b", re.I
)
_IMPERATIVE = frozenset(
    {"get", "list", "show", "search", "find", "retrieve", "fetch", "read", "describe", "look"}
    | {"check", "count", "calculate", "verify", "view", "query", "return"}
)


def _ask(tool: Tool) -> str | None:
    """What the user asks the operation for, from the first sentence of its summary
    ('Returns information about users homes.' -> 'show me information about users
    homes'), or None when the summary is no sentence (an operation name, a path)."""
    sentence = re.split(r"(?<=[a-z0-9)])\.\s", tool.description.strip())[0].rstrip(". ")
    sentence = re.sub(r"^(the )?(method|operation|endpoint) \w+ ", "", sentence, flags=re.I)
    words = sentence.split()
    if len(words) < 3 or len(sentence) > 140 or re.search(r"[a-z][A-Z]|/|_|\{", sentence):
        return None
    if _THIRD_PERSON.match(sentence):
        return _THIRD_PERSON.sub("show me", sentence, count=1)
    if words[0] in ("List", "Lists") and words[1] == "of":
        return f"show me the list of {' '.join(words[2:])}"
    if words[0].lower() in _IMPERATIVE and words[0][1:].islower():
        return f"{sentence[:1].lower()}{sentence[1:]}"
    return None  # a noun phrase or another verb: no sure way to ask for it


def _joined(asks: Sequence[str]) -> str:
    if len(asks) == 1:
        return asks[0]
    return ", ".join(asks[:-1]) + f", and then {asks[-1]}"


def world_with(world: World, tasks: Sequence[ImportedTask]) -> World:
    """The world with the records these tasks are about."""
    extra = [r for t in tasks for r in t.records if world.get(r.id) is None]
    return world.model_copy(update={"records": (*world.records, *extra)}) if extra else world


def _holds(seed: Seed, pool: ToolPool, task: ImportedTask, base: World) -> bool:
    """Whether the task, run in the world, grounds every required argument from the
    request, passes arguments the API's schema accepts and answers in its shape."""
    world = world_with(base, [task])
    request = task.workflow.request
    focus = focus_records(world, request)
    visible = request
    for name in task.workflow.steps:
        tool = pool[name]
        planned = plan_step(pool, seed, world, tool, request, focus, visible)
        if isinstance(planned, Gap) or planned.lookups or planned.context:
            return False
        arguments = planned.plan.arguments
        if any(s == "default" for s in planned.plan.sources.values()):
            return False
        world, result = execute(world, tool, arguments, focus)
        shown = render(tool, result, world, arguments, random.Random(0))
        if result.error or not shown or not _fits(tool.parameters, arguments):
            return False
        if not _fits(tool.returns, shown) or _hollow(tool, shown):
            return False
        visible += json.dumps(shown, ensure_ascii=False)
    return True


def _hollow(tool: Tool, shown: dict[str, Any]) -> bool:
    """An answer with little in it: an empty listing, or fewer than three filled values."""
    field = list_field(tool)
    if field is not None and not shown.get(field):
        return True
    return _filled(shown) < 3


def _filled(value: Any) -> int:
    if isinstance(value, dict):
        return sum(_filled(v) for v in value.values())
    if isinstance(value, list):
        return sum(_filled(v) for v in value)
    return 0 if value in ("", None) else 1


def _fits(schema: dict[str, Any], value: Any) -> bool:
    return bool(Draft202012Validator(schema, format_checker=FormatChecker()).is_valid(value))


def tasks_named(seed: Seed, pool: ToolPool, world: World, ids: Sequence[str]) -> list[ImportedTask]:
    """The derived tasks among a blueprint's workflow ids, in its order."""
    by_id = {t.workflow.id: t for t in imported_tasks(seed, pool, world)}
    return [by_id[i] for i in ids if i in by_id]
