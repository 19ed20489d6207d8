"""The figures of one observation made to agree with each other, as a real system's do: a
position is worth its quantity at the symbol's price, a quote's bid sits under its ask and
inside the day's range, an invoice's total is the sum of its lines, a trip ends after it
starts. Prices are the world's: one price per symbol, the same in every observation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping
from datetime import date, datetime, timedelta
from typing import Any, TypeGuard

from pipeline.core.generation.semantics import tokens
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.world import Record, World

_PRICES = ("last", "price", "current_price", "last_price", "market_price", "price_usd")
_PAIRS = (
    ("start", "end"), ("started_at", "ended_at"), ("start_date", "end_date"),
    ("depart_at", "arrive_at"), ("check_in", "check_out"), ("starts_at", "ends_at"),
    ("window_start", "window_end"), ("pickup_at", "dropoff_at"), ("opened_at", "closed_at"),
    ("opens_at", "closes_at"),
)  # fmt: skip
"""Fields whose second value lies after the first."""
_ISSUERS = {
    "VTI": "Vanguard Total Stock Market ETF", "NVDA": "NVIDIA Corporation",
    "SCHD": "Schwab U.S. Dividend Equity ETF", "GLMR": "Glimmer Biotech Inc.",
    "SOUN": "SoundHound AI, Inc.", "IONQ": "IonQ, Inc.", "AAPL": "Apple Inc.",
    "MSFT": "Microsoft Corporation", "ACME": "Acme Corporation",
}  # fmt: skip
"""Issuers of the symbols the seeds trade; any other symbol reads as its own issuer."""
_MOMENT = re.compile(r"20\d\d-[01]\d-[0-3]\d(?:T[0-2]\d:[0-5]\d(?::[0-5]\d)?Z?)?")


def symbol_price(world: World, symbol: str) -> float:
    """The symbol's market price: a price the world holds for it, else one drawn for the
    symbol (near the average cost of a position in it), the same in every observation."""
    held: list[float] = []
    costs: list[float] = []
    for record in world.records:
        if symbol not in (record.attributes.get("symbol"), *record.name.split()):
            continue
        for key, value in record.attributes.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                if key in _PRICES:
                    held.append(float(value))
                elif key == "avg_cost":
                    costs.append(float(value))
    if held:
        return held[0]
    rng = seeded_rng("price", symbol)
    base = costs[0] * rng.uniform(0.85, 2.2) if costs else rng.uniform(8, 420)
    return round(base, 2)


def cohere(
    value: MutableMapping[str, Any], world: World, arguments: Mapping[str, Any] | None = None
) -> None:
    """Make one rendered object's figures agree (in place); nested objects first. An
    order's answer costs the ordered quantity at its limit or the symbol's price."""
    for item in value.values():
        if isinstance(item, MutableMapping):
            cohere(item, world)
        elif isinstance(item, list):
            for sub in item:
                if isinstance(sub, MutableMapping):
                    cohere(sub, world)
    ordered = arguments or {}
    if isinstance(ordered.get("symbol"), str) and _number(ordered.get("quantity")):
        limit = ordered.get("limit_price")
        price = limit if _number(limit) else symbol_price(world, ordered["symbol"])
        for key in ("estimated_cost", "estimated_total", "notional", "estimated_proceeds"):
            if _number(value.get(key)):
                value[key] = round(ordered["quantity"] * price, 2)
    symbol = value.get("symbol")
    if isinstance(symbol, str) and symbol:
        _priced(value, symbol_price(world, symbol))
        for key in ("company_name", "issuer", "issuer_name", "company"):
            if isinstance(value.get(key), str):
                value[key] = _ISSUERS.get(symbol.upper(), f"{symbol.upper()} Inc.")
    _capped(value, ordered)
    if _number(value.get("cash")) and _number(value.get("buying_power")):
        value["buying_power"] = value["cash"] * (2 if value.get("margin_enabled") else 1)
    _quoted(value)
    _lines(value)
    _lasting(value, ordered)
    _travelled(value, ordered)
    _ordered(value)
    _remaining(value, world, ordered)


def _travelled(value: MutableMapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """A route arrives as long after it leaves as its distance takes to drive, with a stop's
    few minutes each (auditors: 292 km from 00:00 arriving at 01:05)."""
    distance = next((k for k, v in value.items() if "km" in tokens(k) and _number(v)), None)
    leaves = next(
        (v for v in arguments.values() if isinstance(v, str) and _MOMENT.fullmatch(v) and "T" in v),
        None,
    )
    if distance is None or leaves is None:
        return
    stops = next((len(v) for v in arguments.values() if isinstance(v, list)), 0)
    if stops:  # a multi-drop round runs 10-35 km a stop, not 460 km for two streets
        value[distance] = round((10 + value[distance] % 25) * stops, 2)
    km = value[distance]
    start = datetime.fromisoformat(leaves.replace("Z", "+00:00"))
    arrives = start + timedelta(hours=km / _ROAD_KMH, minutes=_STOP_MINUTES * stops)
    for key in value:
        if set(tokens(key)) & {"eta", "arrival", "arrives"} and isinstance(value[key], str):
            value[key] = arrives.strftime("%Y-%m-%dT%H:%M:00Z")


_ROAD_KMH = 55
"""A van's average speed over a day's route, towns and motorway together."""
_STOP_MINUTES = 12
"""A delivery stop's minutes at the kerb."""
_CAPS = frozenset(["max", "maximum", "cap", "budget"])
_CHARGES = frozenset(["charged", "price", "cost", "fee", "paid", "amount", "total", "spend"])
_CURRENCIES = frozenset(["usd", "eur", "gbp"])


def _capped(value: MutableMapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """What a call that set a ceiling (`max_price_usd: 5`) was charged stays under it: a
    purchase capped at 5 USD is not charged 618.77."""
    caps = [float(v) for k, v in arguments.items() if _number(v) and v > 0 and _is_cap(k)]
    if not caps:
        return
    ceiling = min(caps)
    for key, charged in value.items():
        if _number(charged) and set(tokens(key)) & _CHARGES and charged > ceiling:
            share = seeded_rng("capped", key, str(charged)).uniform(0.55, 0.95)
            value[key] = round(ceiling * share, 2) if isinstance(charged, float) else int(ceiling)


def _is_cap(key: str) -> bool:
    """`max_price_usd`, `budget_eur`: a ceiling on money, not a page `limit`."""
    words = tokens(key)
    return bool(words) and words[0] in _CAPS and bool(set(words[1:]) & (_CHARGES | _CURRENCIES))


def _number(value: Any) -> TypeGuard[float]:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _priced(value: MutableMapping[str, Any], price: float) -> None:
    """A symbol's quote or position at its one price."""
    for key in _PRICES:
        if _number(value.get(key)):
            value[key] = price
    if _number(value.get("quantity")) and _number(value.get("market_value")):
        value["market_value"] = round(value["quantity"] * price, 2)
        if _number(value.get("avg_cost")) and _number(value.get("unrealized_pl")):
            cost = value["quantity"] * value["avg_cost"]
            value["unrealized_pl"] = round(value["market_value"] - cost, 2)
    if _number(value.get("bid")) and _number(value.get("ask")):
        spread = max(0.01, round(price * 0.0006, 2))
        value["bid"], value["ask"] = round(price - spread, 2), round(price + spread, 2)
    if _number(value.get("day_low")) and _number(value.get("day_high")):
        rng = seeded_rng("range", str(value.get("symbol")))
        value["day_low"] = round(min(price * (1 - rng.uniform(0.004, 0.03)), price - 0.02), 2)
        value["day_high"] = round(max(price * (1 + rng.uniform(0.004, 0.03)), price + 0.02), 2)


def _quoted(value: MutableMapping[str, Any]) -> None:
    """Any bid and ask (an option's too) in order, inside the day's range, which holds the
    day's open (SOUN opened at 3.05 under a day's low of 5.37) and lies inside the year's."""
    bid, ask = value.get("bid"), value.get("ask")
    if _number(bid) and _number(ask) and bid > ask:
        value["bid"], value["ask"] = ask, bid
    low, high = value.get("day_low"), value.get("day_high")
    if _number(low) and _number(high):
        shown = [v for k in ("bid", "ask", "last", "open") if _number(v := value.get(k))]
        value["day_low"] = min([low, high, *shown])
        value["day_high"] = max([low, high, *shown])
        if _number(value.get("week52_low")):
            value["week52_low"] = min(value["week52_low"], value["day_low"])
        if _number(value.get("week52_high")):
            value["week52_high"] = max(value["week52_high"], value["day_high"])


def _lines(value: MutableMapping[str, Any]) -> None:
    """Totals that are the sum of the lines beside them (quantity x unit price, or the
    line's own amount, in the total's currency where it names one), tax added where the
    answer shows it."""
    lines = next(
        (v for v in value.values() if isinstance(v, list) and v and isinstance(v[0], dict)), None
    )
    if not lines:
        _netted(value)
        return
    tax_key = next((k for k in ("vat", "tax", "tax_amount") if _number(value.get(k))), None)
    tax = float(value[tax_key]) if tax_key else 0.0
    for key in list(value):
        words = tokens(key)
        money = len(words) > 1 or isinstance(value[key], float)  # a bare int `total` counts
        summed = words[:1] == ["total"] and money and "count" not in words
        if not (_number(value[key]) and (summed or key == "subtotal")):
            continue
        net = _net(lines, _line_currency(words))
        if net is not None:
            value[key] = net if key == "subtotal" else round(net + tax, 2)


def _line_currency(words: list[str]) -> str | None:
    """The currency a total is in (`total_usd`), whose lines add their own USD values, not
    their token amounts."""
    return next((w for w in words if w in _CURRENCIES), None)


def _net(lines: list[Any], currency: str | None) -> float | None:
    amounts = [_line_amount(line, currency) for line in lines if isinstance(line, dict)]
    if not amounts or any(a is None for a in amounts):
        return None
    return round(sum(a for a in amounts if a is not None), 2)


def _netted(value: MutableMapping[str, Any]) -> None:
    """With no lines to add up, the subtotal is the total less its tax."""
    tax = next((value[k] for k in ("vat", "tax", "tax_amount") if _number(value.get(k))), 0)
    if _number(value.get("subtotal")) and _number(value.get("total")) and _number(tax):
        value["subtotal"] = round(float(value["total"]) - float(tax), 2)


def _line_amount(line: dict[str, Any], currency: str | None = None) -> float | None:
    quantity, unit = line.get("quantity"), line.get("unit_price")
    if currency is not None:
        priced = [v for k, v in line.items() if _number(v) and currency in tokens(k)]
        if priced:
            return float(priced[0])
    if _number(quantity) and _number(unit):
        return float(quantity) * float(unit)
    for key, amount in line.items():
        if _number(amount) and tokens(key)[:1] in (["amount"], ["line"], ["total"]):
            return float(amount)
    return None


def _ordered(value: MutableMapping[str, Any]) -> None:
    """An end before its start moves to after it, keeping the span the pair showed."""
    for first, second in _PAIRS:
        start, end = value.get(first), value.get(second)
        if not (isinstance(start, str) and isinstance(end, str)):
            continue
        if not (_MOMENT.fullmatch(start) and _MOMENT.fullmatch(end)) or end > start:
            continue
        value[second] = _after(start, end)


def _after(start: str, end: str) -> str:
    if "T" not in start:
        return (date.fromisoformat(start) + timedelta(days=1)).isoformat()
    begun = datetime.fromisoformat(start.rstrip("Z"))
    hours = seeded_rng("span", start, end).choice((1, 2, 3, 5))
    stamp = (begun + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%S")
    return stamp + ("Z" if start.endswith("Z") else "")


_DURATIONS = {"minutes": 1, "mins": 1, "hours": 60, "days": 1440}


def _lasting(value: MutableMapping[str, Any], arguments: Mapping[str, Any]) -> None:
    """A span the call set (`minutes: 5`) ends that long after it starts: a 5-minute quiz
    opening at 00:00 closes at 00:05."""
    span = next(
        (
            float(v) * _DURATIONS[w]
            for k, v in arguments.items()
            if _number(v) and v > 0
            for w in tokens(k)[-1:]
            if w in _DURATIONS
        ),
        None,
    )
    if span is None:
        return
    for first, second in _PAIRS:
        start = value.get(first, arguments.get(first))  # a quiz's answer may give only its end
        if isinstance(start, str) and "T" in start and _MOMENT.fullmatch(start):
            begun = datetime.fromisoformat(start.rstrip("Z")) + timedelta(minutes=span)
            end = begun.strftime("%Y-%m-%dT%H:%M:%S")
            if isinstance(value.get(second), str):
                value[second] = end + ("Z" if start.endswith("Z") else "")


def overdue_as_dated(records: tuple[Record, ...], today: date) -> tuple[Record, ...]:
    """Days overdue are the days since the due date; an invoice its seed calls overdue fell
    due that many days ago (and was issued before), never on a date still to come. Done once
    on the world, so every read of the record shows the same dates."""
    return tuple(_dated(r, today) for r in records)


def _dated(record: Record, today: date) -> Record:
    held = record.attributes
    key = next((k for k in ("due_date", "due", "due_on") if k in held), None)
    due, late = (held.get(key), held.get("days_overdue")) if key else (None, None)
    if key is None or not (isinstance(due, str) and _MOMENT.fullmatch(due) and _number(late)):
        return record
    fixed: dict[str, Any] = {}
    if held.get("status") == "overdue" and date.fromisoformat(due[:10]) >= today:
        fixed["days_overdue"] = max(int(late), 1)
        fell_due = today - timedelta(days=fixed["days_overdue"])
        fixed[key] = fell_due.isoformat() + due[10:]
        issued = held.get("issue_date")
        if isinstance(issued, str) and _MOMENT.fullmatch(issued) and issued[:10] > fixed[key]:
            fixed["issue_date"] = (fell_due - timedelta(days=30)).isoformat() + issued[10:]
    else:
        fixed["days_overdue"] = max(0, (today - date.fromisoformat(due[:10])).days)
    return record.model_copy(update={"attributes": {**held, **fixed}})


_OWED = frozenset(["remaining", "outstanding", "owed"])


def _remaining(value: MutableMapping[str, Any], world: World, arguments: Mapping[str, Any]) -> None:
    """What is still owed is the total less what was paid, less what this call paid or
    credited: an invoice's own figures, else those of the invoice the call names."""
    owed = [
        k
        for k, v in value.items()
        if _number(v) and (set(tokens(k)) & _OWED or k in ("balance_due", "amount_due"))
    ]
    if not owed:
        return
    figures: Mapping[str, Any] = value
    if not (_number(value.get("total")) and _number(value.get("amount_paid"))):
        named = [world.get(v) for v in arguments.values() if isinstance(v, str)]
        figures = next(
            (
                r.attributes
                for r in named
                if r is not None
                and _number(r.attributes.get("total"))
                and _number(r.attributes.get("amount_paid"))
            ),
            {},
        )
    if not figures:
        return
    paid = arguments.get("amount")
    left = float(figures["total"]) - float(figures["amount_paid"])
    left -= float(paid) if _number(paid) else 0.0
    for key in owed:
        value[key] = round(max(0.0, left), 2)
