"""The simulated environment behind every trajectory, in the manner of AgentDojo's environments.

A `World` is plain data built from a seed: its entities become records. Tools execute against
it: reads return the records their arguments match, writes change the state and are logged as
`WorldChange`s, so a later read sees the change and the trajectory's provenance can prove what
happened. What a tool does and which records a field names is `semantics`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from typing import Any

from pipeline.core.generation.coherent import overdue_as_dated
from pipeline.core.generation.filters import honours
from pipeline.core.generation.listed import of_listed_kind
from pipeline.core.generation.population import FUTURE_DATE_WORDS, population_of
from pipeline.core.generation.semantics import (
    GENERIC_LISTS,
    affinity,
    list_field,
    operation_of,
    record_shaped,
    refers_to,
    related,
    tokens,
)
from pipeline.core.generation.write_effects import write
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.per_world import per_world
from pipeline.core.model.seeding import stable_int
from pipeline.core.model.world import Record, Scalar, ToolResult, World


def build_world(seed: Seed) -> World:
    """The seed's entities as records, then their background population; deterministic, so
    both twins start from the same state."""
    cached = _WORLDS.get(seed.id)
    if cached is not None and cached[0] == seed:
        return cached[1]
    records = tuple(
        Record(
            id=e.id, kind=e.kind, name=e.name, attributes=dict(e.attributes), sensitive=e.sensitive
        )
        for e in seed.entities
    )
    today = _today(records)
    populated = overdue_as_dated(population_of(seed, records, today), today)
    world = World(today=today.isoformat(), records=populated)
    _WORLDS[seed.id] = (seed, world)
    return world


_WORLDS: dict[str, tuple[Seed, World]] = {}
"""Built worlds by seed id: every blueprint of a domain starts from the same state."""


def _today(records: Iterable[Record]) -> date:
    """The day after the latest date the seed records as past (not an expiry or a due date),
    leaving out dates weeks past all others: a restriction 'from 2024-12-01' in a note is
    ahead of the scenario, and taking it for today made a driver's message of 4 November,
    asked about as news, a month old."""
    found = sorted(
        date.fromisoformat(match)
        for record in records
        for key, value in record.attributes.items()
        if not set(tokens(key)) & FUTURE_DATE_WORDS
        for match in re.findall(r"\b(20\d\d-[01]\d-[0-3]\d)(?!\d)", str(value))
        if _valid_date(match)
    )
    while len(found) > 1 and found[-1] - found[-2] > _LONE_DATE_GAP:
        found.pop()
    return (found[-1] if found else date(2024, 9, 30)) + timedelta(days=1)


_LONE_DATE_GAP = timedelta(days=14)


def _valid_date(text: str) -> bool:
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def matching_records(world: World, arguments: Mapping[str, Any]) -> list[Record]:
    """Records the arguments name: by id when any argument is an id, else by name or value."""
    wanted = {str(v).strip().lower() for v in _scalars(arguments) if str(v).strip()}
    ids, values = _lookup(world)
    by_id = [world.records[n] for n in sorted(n for w in wanted for n in ids.get(w, ()))]
    numbered = {
        f"#{v}" for v in _scalars(arguments) if isinstance(v, int) and not isinstance(v, bool)
    }
    if numbered:
        by_id += [r for r in world.records if any(n in r.name for n in numbered) and r not in by_id]
    if by_id:
        return by_id
    return [world.records[n] for n in sorted({n for w in wanted for n in values.get(w, ())})]


@per_world
def _lookup(records: tuple[Record, ...]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Where each record sits, by its lower-cased id, and by its name and each value."""
    ids: dict[str, list[int]] = {}
    values: dict[str, list[int]] = {}
    for n, record in enumerate(records):
        ids.setdefault(record.id.lower(), []).append(n)
        said = {record.name.lower()} | {str(v).lower() for v in record.attributes.values()}
        for word in said:
            values.setdefault(word, []).append(n)
    return ids, values


def _scalars(value: Any) -> Iterable[Scalar]:
    if isinstance(value, Mapping):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, list):
        for v in value:
            yield from _scalars(v)
    elif isinstance(value, str | int | float | bool):
        yield value


def execute(
    world: World, tool: Tool, arguments: Mapping[str, Any], focus: tuple[str, ...] = ()
) -> tuple[World, ToolResult]:
    """Run one call against the state. `focus` are the record ids the task is about, used
    when the arguments name nothing more specific (a list call with no filter)."""
    op = operation_of(tool)
    named = matching_records(world, arguments)
    if op == "list":
        field = list_field(tool)
        searched = _searched(world, tool, arguments, named)
        pool = searched or [
            r
            for r in world.records
            if (field is not None and refers_to(field, r) > 0)
            or (r.id in focus and (field is None or tokens(field)[-1] in GENERIC_LISTS))
            or affinity(tool, r) >= 3
        ]
        relevance = {r.id: n for n, r in enumerate(searched)}
        ranked = sorted(
            pool,
            key=lambda r: (r.id not in focus, relevance.get(r.id, 0), -affinity(tool, r), r.id),
        )
        shown = [r for r in _children(world, tool, ranked) if honours(r, arguments, world)]
        shown = of_listed_kind(tool, shown)  # realism hook: no stop order in a news feed
        shown = _without_container(shown, arguments)
        start, size = page_of(tool, arguments)
        page = shown[start : start + size]
        if not searched:
            # what the agent has in mind picks the page, never its order: the twins' shared
            # listing of twenty vans came back in two orders
            held = _positions(world)
            page.sort(key=lambda r: held.get(r.id, len(held)))
        return world, ToolResult(operation=op, records=tuple(page))
    if op == "read":
        if not named and _has_lookup_argument(arguments):
            return world, ToolResult(operation=op, error=_not_found(arguments))
        chosen = _best_read(world, tool, named, focus)
        field = list_field(tool)
        if field and not record_shaped(tool):
            chosen = of_listed_kind(tool, chosen)  # realism hook: a news read shows news
        if field and chosen and not record_shaped(tool) and refers_to(field, chosen[0]) == 0:
            parent = chosen[0]
            children = [
                r
                for r in related(world, parent)
                if refers_to(field, r) > 0 and honours(r, arguments, world)  # doc_type=…
            ]
            if not children and tokens(field)[-1] in GENERIC_LISTS:
                children = [parent]
            children = children[: page_size(tool)]
            return world, ToolResult(operation=op, records=tuple(children), parent=parent)
        return world, ToolResult(operation=op, records=tuple(chosen[:3]))
    return write(world, tool, op, named, focus, arguments)


PAGE_SIZES = (10, 15, 20, 25)
"""Default page sizes of real listing APIs: a listing that sets no limit answers with its
tool's own default page (the same tool always pages alike)."""


def page_size(tool: Tool) -> int:
    """How many records a listing of `tool` returns when the call sets no limit."""
    return PAGE_SIZES[stable_int("page", tool.name) % len(PAGE_SIZES)]


_LIMIT_NAMES = frozenset(
    ["limit", "page_size", "per_page", "max_results", "max_items", "top", "n", "count", "size"]
)


def page_of(tool: Tool, arguments: Mapping[str, Any]) -> tuple[int, int]:
    """Where a listing starts and how many records it holds: the call's `limit`/`page_size`
    and `offset`/`page`, the result schema's `maxItems`, else the tool's first page."""
    size, start, page = page_size(tool), 0, 0
    for key, value in arguments.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            continue
        name = "_".join(tokens(key))
        if name in ("offset", "skip", "start"):
            start = value
        elif name in ("page", "page_number"):
            page = max(value - 1, 0)
        elif name in _LIMIT_NAMES and value > 0:
            size = value
    field = list_field(tool)
    if field is not None:
        ceiling = (tool.returns.get("properties") or {})[field].get("maxItems")
        if isinstance(ceiling, int):
            size = min(size, ceiling)
    return start + page * size, size


def _searched(
    world: World, tool: Tool, arguments: Mapping[str, Any], named: list[Record]
) -> list[Record]:
    """A search matches by substring, among records of the kind it found by exact match
    (searching 'Elena Ruiz' also finds 'Elena Ruiz (possible duplicate)'), then, for a query
    argument, records whose details contain it, then records of that kind sharing one of its
    words, best match first, as a real search engine ranks partial matches below exact ones
    ('baby bath seat' finds 'Baby monitor'). A one-word query ('northwind/docs-site') names a
    thing and matches only it, and a word most records of the kind share matches nothing."""
    options = {k for k, p in (tool.parameters.get("properties") or {}).items() if "enum" in p}
    texts = [  # an option filters, it names nothing ('pdf' found every PDF by its name)
        str(v).lower()
        for k, v in arguments.items()
        if isinstance(v, str) and len(v) >= 3 and k not in options
    ]
    prefixes = {r.id.split("_")[0] for r in named}
    found = [
        r
        for r in world.records
        if any(t in r.name.lower() for t in texts)
        and (not prefixes or r.id.split("_")[0] in prefixes)
    ]
    queries = [
        v.lower()
        for k, v in arguments.items()
        if isinstance(v, str) and len(v) >= 4 and set(tokens(k)) & _QUERY_WORDS
    ]
    # a full-text search also finds what a record says ('national insurance numbers')
    mentioning = [
        r
        for r in world.records
        if any(q in str(a).lower() for q in queries for a in r.attributes.values())
        and (not prefixes or r.id.split("_")[0] in prefixes)
    ]
    exact = list({r.id: r for r in [*named, *found, *mentioning]}.values())
    words = {
        w
        for k, v in arguments.items()
        if isinstance(v, str) and " " in v.strip() and set(tokens(k)) & _QUERY_WORDS
        for w in tokens(v)
        if len(w) >= 4 and not w.isdigit()
    }
    if not words or not exact:
        return exact
    kinds = {r.id.split("_")[0] for r in exact}
    of_kind = [r for r in world.records if r.id.split("_")[0] in kinds]
    common = {w for w in words if 2 * sum(w in tokens(r.name) for r in of_kind) > len(of_kind)}
    distinctive = words - common
    shared = [(len(distinctive & set(tokens(r.name))), r) for r in of_kind if r not in exact]
    partial = [r for n, r in sorted(shared, key=lambda p: (-p[0], p[1].id)) if n > 0]
    return [*exact, *partial]


_QUERY_WORDS = frozenset(["query", "q", "search", "keyword", "keywords", "term", "terms", "text"])
"""Words of an argument name that make it a free-text search (not an id or a filter)."""


def _best_read(
    world: World, tool: Tool, named: list[Record], focus: tuple[str, ...]
) -> list[Record]:
    """The record a read returns: the one its result's id field names (a statement for
    `document_id`), among those the arguments name, their relatives and the task's focus."""
    id_fields = [
        k for k in (tool.returns.get("properties") or {}) if tokens(k)[-1:] in (["id"], ["number"])
    ]
    pool = [*named, *(r for n in named for r in related(world, n))]
    pool += [r for f in focus if (r := world.get(f)) is not None]
    if id_fields:
        scored = [(refers_to(id_fields[0], r), r) for r in pool]
        best = max((score for score, _ in scored), default=0)
        if best > 0 and not any(refers_to(id_fields[0], r) for r in named):
            return [next(r for score, r in scored if score == best)]
    # a repository and its README both named: the read is of the README, which names it
    ids = {r.id for r in named}
    named = sorted(named, key=lambda r: not ids & {str(v) for v in r.attributes.values()})
    return named or [r for f in focus if (r := world.get(f)) is not None]


def _children(world: World, tool: Tool, records: list[Record]) -> list[Record]:
    """A listing of a parent's belongings (a card's transactions) answers with them."""
    field = list_field(tool)
    if field is None or not records:
        return records
    out: list[Record] = []
    generic = tokens(field)[-1] in GENERIC_LISTS
    for record in records:
        if refers_to(field, record) > 0:
            out.append(record)
            continue
        children = [r for r in related(world, record) if refers_to(field, r) > 0]
        out += children or ([record] if generic else [])
    return list({r.id: r for r in out}.values())


@per_world
def _positions(records: tuple[Record, ...]) -> dict[str, int]:
    """Where each record stands in the world: the order a listing keeps."""
    return {r.id: n for n, r in enumerate(records)}


_CONTAINER_WORDS = frozenset({"folder", "path", "directory", "dir", "parent"})


def _without_container(records: list[Record], arguments: Mapping[str, Any]) -> list[Record]:
    """A folder's listing shows what is in it, not the folder (auditors: listing
    /Finance/Payroll returned /Finance/Payroll among its own items)."""
    inside = {
        v for k, v in arguments.items() if isinstance(v, str) and set(tokens(k)) & _CONTAINER_WORDS
    }
    kept = [r for r in records if r.name not in inside]
    return kept or records


def _has_lookup_argument(arguments: Mapping[str, Any]) -> bool:
    return any(tokens(k)[-1:] in (["id"], ["mrn"], ["number"]) for k in arguments)


def _not_found(arguments: Mapping[str, Any]) -> str:
    shown = ", ".join(f"{k}={v}" for k, v in arguments.items() if isinstance(v, str | int))
    return f"no record matches {shown or 'the given arguments'}"
