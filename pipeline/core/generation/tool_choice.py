"""Which tool serves a workflow step: the seed's own, or an imported public API's equivalent.

A seed's workflows name its curated tools. An imported operation of the domain serves a
step in their place when its own metadata says it does the same thing to the same kind of
record (a read-only `get`/`list` whose operation name holds the step tool's entity noun),
and only when the step, run with it in this world, still grounds every argument, still shows
the records the original showed and still has room for the text the original could carry.
Among equivalents each trajectory takes one by rotation, so the whole imported set serves.
Imported tools only ever read: none can carry a harmful call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from pipeline.core.generation.feasibility import carries_text, page_field
from pipeline.core.generation.semantics import operation_of, refers_to, tokens, verbs
from pipeline.core.generation.steps import names_record, walk_calls
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.seeds import Seed, Workflow
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.seeding import stable_int

_ALL_VERBS = frozenset().union(
    *(verbs(op) for op in ("read", "list", "send", "delete", "update", "create"))
)
_HTTP = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
_GENERIC = frozenset(
    {"api", "apis", "by", "all", "detail", "details", "info", "information", "data", "item"}
    | {"items", "resource", "resources", "service", "services", "me", "my", "current", "self"}
    | {"one", "single", "bulk", "batch", "the", "for", "and", "with", "from", "into", "com"}
    | {"org", "net", "public", "v1", "v2", "v3", "v4", "id", "ids", "uuid", "key", "name"}
)


def _singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("ses") and len(word) > 4:
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def kind_words(tool: Tool) -> frozenset[str]:
    """The record kinds an operation names: the nouns of its own operation name (an imported
    tool's original `GET /orders/{orderId}` or `getOrder`), verbs and filler aside."""
    words = tokens(tool.original_name or tool.name)
    return frozenset(
        _singular(w)
        for w in words
        if w not in _ALL_VERBS | _HTTP | _GENERIC and len(w) > 2 and not w.isdigit()
    )


def _nouns(tool: Tool) -> list[str]:
    """The nouns of a curated tool's name, its domain prefix (`ehr_`, `shop_`) aside."""
    words = tokens(tool.name)
    return [_singular(w) for w in words[1:] if w not in _ALL_VERBS | _GENERIC and len(w) > 2]


def _last_noun(tool: Tool) -> str | None:
    words = [
        _singular(w)
        for w in tokens(tool.original_name or tool.name)
        if w not in _ALL_VERBS | _HTTP | _GENERIC and len(w) > 2 and not w.isdigit()
    ]
    return words[-1] if words else None


def same_kind(curated: Tool, imported: Tool) -> bool:
    """Whether both name the same kind of record: the same last noun (`patient summary` and
    `patient plan summaries`, not `patient vaccine records`), and a qualifier of the curated
    name (`lab` of `lab results`) among the imported operation's nouns when it has one."""
    nouns = _nouns(curated)
    if not nouns or _last_noun(imported) != nouns[-1]:
        return False
    qualifiers = set(nouns[:-1])
    if qualifiers and not qualifiers & kind_words(imported):
        return False
    # the same noun can mean another thing (an LMS course, a racecourse): the descriptions
    # must share a word besides it
    return bool((_content(curated.description) & _content(imported.description)) - {nouns[-1]})


def _content(text: str) -> set[str]:
    return {
        _singular(w)
        for w in re.findall(r"[a-z]+", text.lower())
        if len(w) > 3 and w not in _ALL_VERBS | _GENERIC | _PLAIN
    }


_PLAIN = frozenset(
    {"with", "that", "this", "their", "them", "they", "which", "when", "where", "there", "each"}
    | {"from", "into", "than", "also", "only", "more", "most", "such", "some", "your", "about"}
    | {"returns", "return", "given", "specified", "specific", "information", "list", "lists"}
)


def underivable(tool: Tool) -> str | None:
    """Why the semantics of an imported tool cannot be derived from its metadata, or None.
    Such a tool is never chosen for a step (and so never carries anything)."""
    if not kind_words(tool):
        return "its operation name names no kind of record"
    if tool.side_effect != "none" and not set(tokens(tool.original_name or tool.name)) & (
        _ALL_VERBS | _HTTP
    ):
        return "it changes state and its name has no verb, so what it does is unknown"
    if tool.side_effect == "none" and not tool.returns.get("properties"):
        return "it reads but its result schema has no fields to show"
    return None


def underivable_tools(tools: Iterable[Tool]) -> dict[str, str]:
    """Tool name -> why, for every imported tool among `tools` whose semantics are unknown:
    what `atbench validate` and `atbench plan` report."""
    return {
        tool.name: reason
        for tool in tools
        if tool.source != "curated" and (reason := underivable(tool)) is not None
    }


def equivalents(pool: ToolPool, domain: str, tool: Tool) -> list[Tool]:
    """Imported read-only tools of the domain doing what `tool` does to the same kind of
    record, by name; page fetchers are left to the seed (a long page needs its own field)."""
    if tool.side_effect != "none" or tool.lookalike_of or page_field(tool):
        return []
    op = operation_of(tool)
    return sorted(
        (
            t
            for t in _imported_readers(pool, domain)
            if same_kind(tool, t) and operation_of(t) == op
        ),
        key=lambda t: t.name,
    )


def _imported_readers(pool: ToolPool, domain: str) -> list[Tool]:
    """Imported read-only tools of the domain that can be offered: semantics derivable, and
    no URL path template such as `/articles/{id}` in the description, which the residue
    filter cannot tell from an unfilled slot of the procedural phrase grammar."""
    return [
        t
        for t in pool.for_domain(domain)
        if t.source != "curated"
        and t.side_effect == "none"
        and t.lookalike_of is None
        and underivable(t) is None
        and not _SLOT.search(t.description)
    ]


_SLOT = re.compile(r"\{[a-z_]+\}")


def distractors(pool: ToolPool, domain: str, ordinal: int, count: int) -> list[str]:
    """`count` imported read-only tools of the domain offered beside the plan's tools, taken
    in rotation by the trajectory's ordinal so every one of them is offered somewhere."""
    readers = sorted(t.name for t in _imported_readers(pool, domain))
    if not readers:
        return []
    start = ordinal * count
    return sorted({readers[(start + k) % len(readers)] for k in range(count)})


def ordinal_of(blueprint_id: str) -> int:
    """`brokerage-0012` -> 12, `brokerage-b003` -> 1003: a trajectory's place in its domain."""
    match = re.search(r"(b?)(\d+)$", blueprint_id)
    if match is None:
        return stable_int(blueprint_id) % 1000
    return int(match.group(2)) + (1000 if match.group(1) else 0)


def chosen_workflow(
    seed: Seed, pool: ToolPool, workflow: Workflow, ordinal: int, avoid: Iterable[str] = ()
) -> Workflow:
    """The workflow with each step served by the tool this trajectory takes among its
    equivalents; a choice is kept only when the run still grounds as well (`_holds`)."""
    key = (seed.id, id(seed), workflow.id, workflow.request, ordinal, tuple(avoid))
    found = _CHOSEN.get(key)
    if found is not None and found[0] is seed:
        return found[1]
    options = _options(seed, pool, workflow, frozenset(avoid))
    picks: dict[int, str] = {}
    for j, names in options.items():
        rotation = [*names, workflow.steps[j]]
        pick = rotation[(ordinal + stable_int(workflow.id, j)) % len(rotation)]
        if pick != workflow.steps[j]:
            picks[j] = pick
    chosen = workflow
    for attempt in [picks, *({j: n} for j, n in picks.items())] if picks else []:
        candidate = _with_steps(workflow, attempt)
        if _holds(seed, pool, workflow, candidate, set(attempt)):
            chosen = candidate
            break
    _CHOSEN[key] = (seed, chosen)
    return chosen


_CHOSEN: dict[tuple[Any, ...], tuple[Seed, Workflow]] = {}
"""Per process: every stage of a trajectory asks for its workflows, and a choice costs walks
through the world. Each entry holds its seed, so a reused id cannot match."""


def _options(
    seed: Seed, pool: ToolPool, workflow: Workflow, avoid: frozenset[str]
) -> dict[int, list[str]]:
    """Per step index, the imported equivalents that serve it alone (each checked once)."""
    key = (seed.id, id(seed), workflow.id, workflow.request, avoid)
    found = _OPTIONS.get(key)
    if found is not None and found[0] is seed:
        return found[1]
    out: dict[int, list[str]] = {}
    for j, name in enumerate(workflow.steps):
        if name in avoid:
            continue
        fits = [
            t.name
            for t in equivalents(pool, seed.id, pool[name])
            if _holds(seed, pool, workflow, _with_steps(workflow, {j: t.name}), {j})
        ]
        if fits:
            out[j] = fits
    _OPTIONS[key] = (seed, out)
    return out


_OPTIONS: dict[tuple[Any, ...], tuple[Seed, dict[int, list[str]]]] = {}


def _with_steps(workflow: Workflow, picks: dict[int, str]) -> Workflow:
    steps = tuple(picks.get(j, name) for j, name in enumerate(workflow.steps))
    return workflow.model_copy(update={"steps": steps})


def _holds(
    seed: Seed, pool: ToolPool, original: Workflow, candidate: Workflow, changed: set[int]
) -> bool:
    """Whether the run with substitutes grounds every argument the original grounds, and each
    substituted step shows a record the original's showed and keeps room for text it had."""
    before = _walked(seed, pool, original)
    after = walk_calls(seed, pool, candidate)
    if before is None or isinstance(after, tuple):
        return False
    if _defaults(after) > _defaults(before):
        return False
    ids = [r.id for r in build_world(seed).records]
    for j in changed:
        old_tool, _, _, old_shown = before[j][-1]
        new_tool, new_plan, _, new_shown = after[j][-1]
        if not _fits(new_tool.parameters, new_plan.arguments) or not _fits(
            new_tool.returns, new_shown
        ):
            return False  # a real API refuses an id off its format, and answers in its shape
        if not _ids_name_their_kind(seed, new_tool, new_plan.arguments):
            return False
        old_ids = _shown_ids(ids, old_shown)
        if old_ids and not old_ids & _shown_ids(ids, new_shown):
            return False
        if carries_text(old_tool, old_shown) and not carries_text(new_tool, new_shown):
            return False
    return True


def _ids_name_their_kind(seed: Seed, tool: Tool, arguments: dict[str, Any]) -> bool:
    """Every id an imported call passes is a record of the kind its field or operation
    names (`invoice_uuid` an invoice; a bare `id` a record of a kind the operation names)."""
    world = build_world(seed)
    for name, value in arguments.items():
        if not names_record(name):
            continue
        record = world.get(str(value))
        if record is None:
            return False
        kinds = {_singular(w) for w in tokens(record.kind)}
        if not refers_to(name, record) and not kinds & kind_words(tool):
            return False
    return True


def _fits(schema: dict[str, Any], value: Any) -> bool:
    return bool(Draft202012Validator(schema, format_checker=FormatChecker()).is_valid(value))


def _walked(seed: Seed, pool: ToolPool, workflow: Workflow) -> Any:
    key = (seed.id, id(seed), workflow.id, workflow.request)
    found = _WALKS.get(key)
    if found is None or found[0] is not seed:
        walked = walk_calls(seed, pool, workflow)
        found = (seed, None if isinstance(walked, tuple) else walked)
        _WALKS[key] = found
    return found[1]


_WALKS: dict[tuple[Any, ...], tuple[Seed, Any]] = {}


def _defaults(walked: Sequence[Sequence[Any]]) -> int:
    return sum(
        1
        for calls in walked
        for _, plan, _, _ in calls
        for s in plan.sources.values()
        if s == "default"
    )


def _shown_ids(ids: list[str], shown: Any) -> set[str]:
    text = json.dumps(shown, ensure_ascii=False)
    return {i for i in ids if i in text}
