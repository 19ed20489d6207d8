"""Figures that must agree inside one observation (issue 12 point 6), counted per release:
a position's market value against quantity x price, a quote's bid against its ask and the
day's range, a total against the sum of its lines, an end against its start; and, with the
tool's return schema at hand, impossible values that the schema itself rules out.

Registered in `benchmarks.trace_quality` under "consistency".
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from typing import Any, TypeGuard

from pipeline.core.generation.dates import session_today
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, ToolCall, Trajectory

PRICE_FIELDS = ("last", "price", "current_price", "last_price", "market_price")
ORDERED = (
    ("start", "end"), ("started_at", "ended_at"), ("start_date", "end_date"),
    ("depart_at", "arrive_at"), ("check_in", "check_out"), ("starts_at", "ends_at"),
    ("window_start", "window_end"), ("pickup_at", "dropoff_at"), ("opened_at", "closed_at"),
)  # fmt: skip
MOMENT = re.compile(r"20\d\d-[01]\d-[0-3]\d")


def _num(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0.01, abs_tol=0.02)


def violations(record: Mapping[str, Any], prices: dict[str, float]) -> list[str]:
    """What in one object does not add up; `prices` holds each symbol's price as first shown
    in the trace, so a second observation quoting another price counts too."""
    found: list[str] = []
    price = next((record[k] for k in PRICE_FIELDS if _num(record.get(k))), None)
    symbol = record.get("symbol")
    if isinstance(symbol, str) and price is not None:
        seen = prices.setdefault(symbol, float(price))
        if not _close(seen, float(price)):
            found.append(f"{symbol} priced {seen} then {price}")
    if price is None and isinstance(symbol, str):
        price = prices.get(symbol)
    quantity, value = record.get("quantity"), record.get("market_value")
    if _num(quantity) and _num(value) and price is not None and not _close(quantity * price, value):
        found.append(f"market_value {value} != {quantity} x {price}")
    bid, ask = record.get("bid"), record.get("ask")
    if _num(bid) and _num(ask) and bid > ask:
        found.append(f"bid {bid} > ask {ask}")
    low, high = record.get("day_low"), record.get("day_high")
    if _num(low) and _num(high):
        inside = [v for k in ("bid", "ask", "last", "open") if _num(v := record.get(k))]
        if low > high or any(not low <= v <= high for v in inside):
            found.append(f"day range {low}..{high} does not hold {inside}")
    for first, second in ORDERED:
        start, end = record.get(first), record.get(second)
        if not (isinstance(start, str) and isinstance(end, str)):
            continue
        if MOMENT.match(start) and MOMENT.match(end) and end < start:
            found.append(f"{second} {end} before {first} {start}")
    found += _total(record)
    return found


def _total(record: Mapping[str, Any]) -> list[str]:
    lines = next(
        (v for v in record.values() if isinstance(v, list) and v and isinstance(v[0], dict)), None
    )
    if not lines:
        return []
    tax = sum(float(record[k]) for k in ("vat", "tax", "tax_amount") if _num(record.get(k)))
    found = []
    net = _lines_net(lines, None)
    if _num(record.get("subtotal")) and net is not None and not _close(record["subtotal"], net):
        found.append(f"subtotal {record['subtotal']} != lines {net:.2f}")
    for key, total in record.items():
        money = "_" in key or isinstance(total, float)
        summed = key.startswith("total") and money and _num(total) and "count" not in key
        currency = next((c for c in ("usd", "eur", "gbp") if c in key.split("_")), None)
        net = _lines_net(lines, currency)
        if summed and net is not None and not _close(total, net + tax):
            found.append(f"{key} {total} != lines {net + tax:.2f}")
    return found


def _lines_net(lines: list[Any], currency: str | None) -> float | None:
    """The lines' sum: each line's value in the total's currency (`value_usd` beside a
    `total_usd`), else quantity x unit price, else its amount."""
    amounts: list[float | None] = []
    for line in lines:
        priced = [v for k, v in line.items() if currency and currency in k.split("_") and _num(v)]
        if priced:
            amounts.append(priced[0])
        elif _num(line.get("quantity")) and _num(line.get("unit_price")):
            amounts.append(line["quantity"] * line["unit_price"])
        else:
            amounts.append(
                next((v for k, v in line.items() if _num(v) and k.startswith("amount")), None)
            )
    if any(a is None for a in amounts):
        return None
    return float(sum(a for a in amounts if a is not None))


def _observations(traj: Trajectory) -> Iterable[tuple[str, Any]]:
    """(tool, parsed observation) of every call of the trace."""
    tool = ""
    for turn in traj.turns:
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            tool = turn.action.name
        elif isinstance(turn, EnvironmentTurn):
            try:
                yield tool, json.loads(turn.content)
            except ValueError:
                continue


def _integer_fields(schema: Any) -> set[str]:
    """Names of the fields a return schema types as integer, at any depth."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for key, sub in (schema.get("properties") or {}).items():
            if isinstance(sub, dict) and sub.get("type") == "integer":
                found.add(key)
            found |= _integer_fields(sub)
        found |= _integer_fields(schema.get("items"))
    return found


Rule = Callable[[str, Any, str, dict[str, Any]], str | None]


def objects_in(value: Any) -> Iterable[dict[str, Any]]:
    """Every object of an observation, nested ones too."""
    if isinstance(value, dict):
        yield value
        value = list(value.values())
    if isinstance(value, list):
        for item in value:
            yield from objects_in(item)


def consistency_figures(trajectories: Sequence[Trajectory], out_of_range: Rule) -> dict[str, Any]:
    """Observations whose figures do not add up, by rule; and impossible values by the
    "values" block's `out_of_range`, counted with the tool's schema: an integer `version` or
    HTTP `status_code` the schema declares is a value, not a placeholder (the count in
    "values" counts those too)."""
    inconsistent = impossible = 0
    pool = load_inputs().pool
    rules: Counter[str] = Counter()
    examples: list[str] = []
    for traj in trajectories:
        today = (session_today(traj.profile) or date.min).isoformat()
        prices: dict[str, float] = {}
        for tool, data in _observations(traj):
            wrong = [v for record in objects_in(data) for v in violations(record, prices)]
            inconsistent += bool(wrong)
            rules.update(re.sub(r"[\d.]+", "N", w.split(" ", 2)[0]) for w in wrong)
            examples += [f"{traj.id} {tool}: {w}" for w in wrong[:1]]
            typed = _integer_fields(pool[tool].returns) if tool in pool else set()
            impossible += any(
                found is not None and not _schema_integer(k, v, typed)
                for record in objects_in(data)
                for k, v in record.items()
                if (found := out_of_range(k, v, today, record)) is not None
            )
    return {
        "observations_inconsistent": inconsistent,
        "by_rule": dict(rules.most_common()),
        "observations_with_impossible_value_schema_aware": impossible,
        "examples": examples[:8],
    }


def _schema_integer(key: str, value: Any, typed: set[str]) -> bool:
    """A schema-typed integer version (1 and up) or HTTP status code (100-599)."""
    if key not in typed or not isinstance(value, int):
        return False
    if key == "version":
        return value >= 1
    return key.endswith("status_code") and 100 <= value <= 599
