"""An observed field as an answer says it: 'Hallway thermostat: setpoint 20.5 °C', not
'Setpoint c 20.5. Setpoint c 21.0.' — which record it is about, the field in words, the
unit after the figure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_UNITS = {
    "usd": "USD", "gbp": "GBP", "eur": "EUR", "c": "°C", "kwh": "kWh", "km": "km", "kg": "kg",
    "pct": "%", "percent": "%", "mins": "min", "minutes": "min", "hours": "h", "bar": "bar",
    "psi": "psi", "mgl": "mg/L", "bpm": "bpm",
}  # fmt: skip
"""Last words of a field name that are the unit of its figure (`price_usd`, `setpoint_c`)."""
_ACRONYMS = frozenset(
    ["sla", "vat", "eta", "url", "pin", "iban", "mrn", "nhs", "cvss", "ip", "sku", "ci"]
)
"""Words said in capitals; not 'id', whose parts an answer drops when a fact says more."""
_LABELS = (
    "name", "title", "display_name", "full_name", "label", "symbol", "subject", "headline",
    "username", "author", "code", "number",
)  # fmt: skip
"""Fields that say which record a listing's item is, in the order an answer prefers them (a
channel's message by its author, 'tbrennan', not by the user id 'U05B7TBRN')."""


_SAID = frozenset(["text", "body", "content", "message", "snippet", "reply"])
"""Fields holding what someone wrote, which an answer quotes."""


def labelled(record: Mapping[str, Any], *, several: bool) -> tuple[str, str]:
    """The field naming the record and its value: a name or title, else (among several
    records) its id, so two facts about two records never read alike."""
    keys = [k for k in _LABELS if k in record] + [k for k in record if k.endswith("_name")]
    if several:
        keys += [k for k in record if k == "id" or k.endswith("_id")][:1]
    for key in keys:
        value = record.get(key)
        if isinstance(value, str) and value.strip():
            return key, value
    return "", ""


def described(record: Mapping[str, Any]) -> str:
    """What an item is, where no name of it is in view: 'Penicillin: reaction rash', not
    'alg_ruiz_penicillin: …' (106 answers labelled items by a raw id)."""
    return next((str(v) for k, v in record.items() if _describes(k, v)), "")


def _describes(key: str, value: Any) -> bool:
    """A short string field that says what an item is: a name-like value ('Penicillin',
    'rob.baker@…'), not an id, a moment, a state word or a text."""
    if not isinstance(value, str) or key == "id" or key.endswith("_id") or key in _SAID:
        return False
    if not 2 <= len(value) <= 60 or "\n" in value or _MOMENT_LIKE.match(value):
        return False
    return bool(value[:1].isupper() or "@" in value or " " in value) and "://" not in value


_MOMENT_LIKE = re.compile(r"\d{4}-\d\d-\d\d|\d\d?:\d\d")


def spoken(key: str, value: Any) -> str:
    """'price_usd', 287 -> 'price 287 USD'; 'sla_due' -> 'SLA due …' (the figure as shown)."""
    label, figure = spoken_parts(key, value)
    if isinstance(value, bool):
        return f"{label}: {figure}"
    return f"{label} {figure}" if label else figure


def said_field(key: str, value: bool) -> str:
    """A flag of a call in words: 'admin_override', True -> 'admin override: yes'."""
    return f"{key.replace('_', ' ')}: {'yes' if value else 'no'}"


def spoken_parts(key: str, value: Any) -> tuple[str, str]:
    """The field in words and the figure with its unit, as `spoken` joins them ('price',
    '287 USD'); a quoted message has no label ('', 'says "…"')."""
    words = key.lower().split("_")
    unit = _UNITS.get(words[-1]) if len(words) > 1 else None
    if unit is not None:
        words = words[:-1]
    label = " ".join(w.upper() if w in _ACRONYMS else w for w in words)
    if isinstance(value, bool):
        return label, "yes" if value else "no"
    if words[-1] in _SAID and isinstance(value, str) and len(value.split()) >= 4:
        return "", f'says "{value}"'  # a message's words, quoted: not 'text Mill Lane closed …'
    figure = _figure(words, value, unit)
    if unit is None:
        return label, str(figure)
    return label, f"{figure}{unit}" if unit == "%" else f"{figure} {unit}"


def _figure(words: list[str], value: Any, unit: str | None) -> Any:
    """A figure as people write it: money to the cent ('1,450.00', not '1450.0'), a large
    count grouped ('2,280,000,000'), a whole float without its '.0' ('32')."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if set(words) & _CODES:
        return value
    money = unit in ("USD", "GBP", "EUR") or set(words) & _MONEY
    if isinstance(value, float) and money:
        return f"{value:,.2f}"
    if isinstance(value, float) and value.is_integer() and unit is None:
        value = int(value)
    return f"{value:,}" if isinstance(value, int) and abs(value) >= 10_000 else value


_MONEY = frozenset({
    "amount", "balance", "price", "total", "cost", "fee", "paid", "due", "cash", "debited",
    "credited", "refund", "owed", "outstanding", "premium", "payout", "wages", "salary",
})  # fmt: skip
"""Words of a field whose figure is money, said to the cent."""
_CODES = frozenset({"id", "number", "year", "code", "zip", "port", "pin", "ts", "version", "no"})
"""Words of a field whose figure is a code, said as written ('year 2024', not '2,024')."""


def labelled_parts(fact: str) -> tuple[str, str, str]:
    """A fact split at the ': ' after its record's name, never inside a quoted part of the
    name ("Reported message 'Payroll: confirm your bank details': 312 people" had merged with
    another fact under "Reported message 'Payroll")."""
    at = fact.find(": ")
    while at != -1 and _unclosed(fact[:at]):
        at = fact.find(": ", at + 2)
    return (fact[:at], ": ", fact[at + 2 :]) if at != -1 else (fact, "", "")


def _unclosed(head: str) -> bool:
    """Whether `head` opens more quoted parts than it closes; a quote opens after a space or
    at the start, so O'Brien's opens none."""
    rest, opened = _OPENING.subn("", head)
    return rest.count("'") < opened


_OPENING = re.compile(r"(?<!\S)'")


def merged_by_record(facts: list[str]) -> list[str]:
    """One sentence per record: what two reads showed of Amara Diallo is said under her name
    once ('Amara Diallo: licence class C1, …' twice read as two people to auditors)."""
    merged: dict[str, list[str]] = {}
    for fact in facts:
        label, sep, body = labelled_parts(fact)
        named = sep and len(label) <= 60  # a longer head is no name: the fact stays whole
        parts = merged.setdefault(label if named else fact, [])
        parts += [p for p in (body.split(", ") if named else [fact]) if p not in parts]
    return [
        f"{key}: {', '.join(parts)}" if parts != [key] else key for key, parts in merged.items()
    ]
