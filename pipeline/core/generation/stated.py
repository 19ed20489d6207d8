"""Values a user states in a request: amounts, dates and times, e-mail addresses, ticker
symbols, quoted references, '#488'-style numbers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from pipeline.core.generation.semantics import tokens

MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
_MONTHS = {m: i + 1 for i, m in enumerate(MONTHS)}

NUMBER = re.compile(r"(?<![\w.-])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?!\w|-\d)")
"""A number as written: '37,500', '27.10', '60' in '60-minute'; not a piece of a date or id."""
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_ISO_DATE = re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")
_DAY_MONTH = re.compile(r"\b(\d{1,2}) (" + "|".join(_MONTHS) + r")\b", re.IGNORECASE)
_TIME = re.compile(r"\b(\d{1,2})[:.](\d{2})\b")
_QUOTED = re.compile(r"['\u2018\"]([^'\u2019\"]{3,60})['\u2019\"]")
_MONTH_YEAR = re.compile(r"\b(" + "|".join(_MONTHS) + r") (20\d\d)\b", re.IGNORECASE)


def stated_value(name: str, schema: Mapping[str, Any], request: str) -> Any:
    """A value the user stated: an amount, a date, a time, an e-mail, an enum option."""
    words = set(tokens(name))
    kind = _type(schema)
    options = schema.get("enum")
    if options:
        lowered = request.lower()
        hit = [o for o in options if isinstance(o, str) and o.lower().replace("_", " ") in lowered]
        return hit[0] if hit else None
    if kind == "integer" and words & {"year"}:
        years = re.findall(r"\b(20\d\d)\b", request)
        return int(years[0]) if years else None
    if kind == "integer" and words & {"quarter"}:
        quarter = re.search(r"\bQ([1-4])\b", request)
        return int(quarter.group(1)) if quarter else None
    if kind in ("number", "integer") and words & (_NUMERIC_WORDS | _UNIT_WORDS):
        chosen = _number_near(words, request)
        low, high = schema.get("minimum", float("-inf")), schema.get("maximum", float("inf"))
        if chosen is None or not low <= chosen <= high:
            return None  # not a number the user gave for this field
        return int(chosen) if kind == "integer" else chosen
    if kind == "string" and (words & {"email"} or schema.get("format") == "email"):
        match = EMAIL.search(request)
        return match.group(0) if match else None
    if kind == "string" and (
        words & {"date", "day"} or schema.get("format") in ("date", "date-time")
    ):
        return _date(request, with_time=schema.get("format") == "date-time" or "time" in words)
    if kind == "integer" and words & {"number", "no"}:
        hashed = re.search(r"#(\d+)", request)
        return int(hashed.group(1)) if hashed else None
    if kind == "string" and schema.get("maxLength") == 3 and words & (_FROM | _TO):
        route = _ROUTE.search(request)  # 'LHR to SFO'
        return route.group(1 if words & _FROM else 2) if route else None
    if kind == "string" and words & {"symbol", "ticker"}:
        tickers = re.findall(r"\b[A-Z]{2,5}\b", request)
        return tickers[0] if tickers else None
    if kind == "string" and words & {"month", "period"}:
        spoken = _MONTH_YEAR.search(request)
        return f"{spoken.group(2)}-{_MONTHS[spoken.group(1).lower()]:02d}" if spoken else None
    if kind == "string" and words & {"reference", "memo", "label", "subject", "title"}:
        quoted = _QUOTED.search(request)
        return quoted.group(1) if quoted else None
    if kind == "string" and words & {"time"}:
        match = _TIME.search(request)
        return f"{int(match.group(1)):02d}:{match.group(2)}" if match else None
    return None


_FROM = frozenset({"origin", "from", "departure"})
_TO = frozenset({"destination", "to", "arrival"})
_ROUTE = re.compile(r"\b([A-Z]{3}) (?:to|-|–) ([A-Z]{3})\b")

_NUMERIC_WORDS = frozenset(
    {"amount", "quantity", "value", "price", "limit", "stop", "shares", "units", "qty", "total"}
    | {"salary", "reserve", "budget", "cap", "fee", "cost"}
)
_UNIT_WORDS = frozenset({"radius", "duration", "minutes", "quantity", "qty", "shares", "units"})
"""Fields whose number the user gives with its unit ('a 400 m geofence', '30 minutes'):
only a number beside such a unit is theirs."""
_NEAR = {
    "quantity": ("shares", "units", "items", "x", "pieces", "qty"),
    "price": ("at", "limit", "price", "to", "€", "$", "£"),
    "minutes": ("minutes", "minute", "min", "mins"),
    "duration": ("minutes", "minute", "min", "mins"),
    "radius": ("m", "metres", "meters", "km", "miles", "mile"),
}


def _number_near(words: set[str], request: str) -> float | None:
    """The stated number a field means: the one next to its own word ('limit at 27.10' for
    `limit_price`, '40 shares' for `quantity`), else the one money is counted in."""
    found = [
        (m.start(), m.end(), n)
        for m in NUMBER.finditer(request)
        if (n := _number(m)) is not None and n >= 1 and not _names_a_record(request, m.start())
    ]
    if not found:
        return None
    lowered = request.lower()
    cues = set(words)
    for word in words:
        cues |= set(_NEAR.get(word, ()))
    for start, end, number in found:
        before = lowered[max(0, start - 16) : start].split()[-2:]
        after = lowered[end : end + 12].split()[:1]
        if cues & {w.strip(".,:;-") for w in [*before, *after]}:
            return number
    if words & ({"limit", "stop"} | _UNIT_WORDS):
        return None  # an optional price, or a measure the user never gave
    money = [
        n for s, e, n in found if re.match(r"\s*(eur|usd|gbp|usdc|€|\$|£)", lowered[e : e + 6])
    ]
    return money[0] if money else max(n for _, _, n in found)


_NUMBERED = frozenset(
    {"bill", "invoice", "order", "case", "ticket", "van", "room", "flat", "no", "number"}
    | {"ref", "pr", "issue", "version", "unit", "lot", "batch", "step", "floor", "suite"}
)


def _names_a_record(request: str, start: int) -> bool:
    """'bill 553', 'PR #488', 'van 17': the number is part of a name, never an amount."""
    before = request[max(0, start - 12) : start].lower().rstrip()
    return before.endswith("#") or (before.split() or [""])[-1] in _NUMBERED


def _number(match: re.Match[str]) -> float | None:
    whole = match.group(1).replace(",", "")
    if len(whole) == 4 and whole.startswith("20"):
        return None  # a year
    return float(f"{whole}.{match.group(2)}") if match.group(2) else float(whole)


def _date(request: str, *, with_time: bool) -> str | None:
    iso = _ISO_DATE.search(request)
    if iso:
        day = iso.group(0)
    else:
        spoken = _DAY_MONTH.search(request)
        if not spoken:
            return None
        day = date(2024, _MONTHS[spoken.group(2).lower()], int(spoken.group(1))).isoformat()
    if not with_time:
        return day
    clock = _TIME.search(request)
    hour, minute = (int(clock.group(1)), clock.group(2)) if clock else (9, "00")
    return f"{day}T{hour:02d}:{minute}:00"


def _type(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return kind if isinstance(kind, str) else "string"
