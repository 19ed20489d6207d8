"""Which records a tool's result shows, as an answer reports them: a listing's items (those
of a month the request names), a metric's latest and peak reading, or the object itself when
it says something of its own beyond a listing's count and page."""

from __future__ import annotations

import calendar
import json
import re
from typing import Any

from pipeline.core.generation.asked import words_of
from pipeline.core.generation.semantics import tokens

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?")


def result_records(data: Any, arguments: dict[str, Any], wanted: set[str]) -> list[dict[str, Any]]:
    """The records a result shows: a listing's items; an object that holds a list of parts
    (an invoice's lines, a report's headers, a verdict's sources) is itself the record, its
    parts only when it says nothing of its own or the request asks for them ('give me the
    balances' of a wallet)."""
    if not isinstance(data, dict):
        return []
    data = _tabled(data)
    named = [
        v
        for k, v in data.items()
        if isinstance(v, list) and v and isinstance(v[0], dict) and words_of(k) & wanted - _ASKING
    ]
    if named:
        return list(named[0])
    lists = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
    months = {MONTHS[m] for m in wanted if m in MONTHS}
    dated = [i for i in lists[0] if _in_months(i, months)] if lists and months else []
    if dated:
        return dated
    echoed = {str(v) for v in arguments.values()}  # a listing repeats its filters
    own = [
        k
        for k, v in data.items()
        if _says_own(k, v)
        and str(v) not in echoed
        and (not isinstance(v, bool) or words_of(k) & wanted)  # 'published' beside a table
    ]
    if lists and not set(own) - _NAMES:  # a student's record is the grades it holds
        return [series] if (series := _series(lists[0])) else list(lists[0])
    return [data]


_NAMES = frozenset({"name", "title"})


def _tabled(data: dict[str, Any]) -> dict[str, Any]:
    """A table's rows as records, each value under its column's name: a gradebook of
    `columns` and rows of bare `scores` answered 'Those were all the steps'."""
    columns = next((v for k, v in data.items() if k in ("columns", "headers")), None)
    rows = data.get("rows")
    if not (
        isinstance(columns, list)
        and all(isinstance(c, str) for c in columns)
        and isinstance(rows, list)
        and rows
        and all(isinstance(r, dict) for r in rows)
    ):
        return data

    def row(cells: dict[str, Any]) -> dict[str, Any]:
        values = next((v for v in cells.values() if isinstance(v, list)), None)
        if values is None:
            return cells
        kept = {k: v for k, v in cells.items() if not isinstance(v, list)}
        return {**kept, **dict(zip(columns, values, strict=False))}

    return {k: v for k, v in data.items() if k not in ("columns", "headers", "rows")} | {
        "rows": [row(r) for r in rows]
    }


_ASKING = frozenset({"check", "look", "find", "show", "list", "pull", "tell", "give"})
"""Words of asking that name no part of a result: 'double-check whether #488 has merged' is
not asking for the pull request's `checks`."""

MONTHS = {
    month.lower(): number
    for number, month in enumerate(calendar.month_name)
    if month and month != "May"  # 'may' is mostly the verb
}
"""A month the request names picks a listing's items: asked why her bill went up in October,
an answer gave the account's balance, then July's invoice."""


def _in_months(item: dict[str, Any], months: set[int]) -> bool:
    """Whether a listing's item is dated in one of `months` or names one."""
    named = {MONTHS[w] for w in words_of(json.dumps(item)) if w in MONTHS}
    dates = {int(v[5:7]) for v in item.values() if isinstance(v, str) and _ISO_DATE.match(v)}
    return bool((named | dates) & months)


def _series(points: list[Any]) -> dict[str, Any] | None:
    """A metric's readings as an answer gives them: the latest and the peak ('what is the
    p99 latency?' is not answered by its first two points); None for records of a listing."""
    timed = [
        (str(p.get("time") or p.get("timestamp") or p.get("at")), p["value"])
        for p in points
        if isinstance(p, dict)
        and isinstance(p.get("value"), int | float)
        and not isinstance(p.get("value"), bool)
        and len(p) <= 3
    ]
    if len(timed) < 2 or len(timed) < len(points):
        return None
    latest = max(timed)[1]
    return {"latest": latest, "peak": max(v for _, v in timed)}


_LISTING_FIELDS = frozenset(
    {"total", "count", "page", "limit", "offset", "next", "cursor", "as", "at", "generated"}
    | {"more", "truncated"}  # a channel's history with `has_more: false` was no listing
)


def _says_own(key: str, value: Any) -> bool:
    """A field that is the object's own statement, not a listing's count, page or time."""
    words = set(tokens(key))
    return (
        isinstance(value, str | int | float)
        and not words & _LISTING_FIELDS
        and tokens(key)[-1:] != ["id"]
    )
