"""The direct answer to a question an answer's facts only circle: a 'how many' by a number,
the figure a field of that name holds ('how many minutes did the excursion last?' is '41
minutes', where answers said 'minutes 41, start …') else how many items a listing of that
name showed ('how many showings …' was answered with one showing's feedback and no count);
a 'which' (or 'what <things>') by the names of the listed items it asks for ('which courses
am I teaching?' was answered with two students of one roster)."""

from __future__ import annotations

import re
from typing import Any

from pipeline.core.generation.asked import singular, unplanted, words_of
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.spoken import labelled, spoken, spoken_parts
from pipeline.core.inputs.seeds import Verdict
from pipeline.core.model.world import Record, World

_HOW_MANY = re.compile(r"\bhow many ((?:[a-z-]+ ){0,2}?(?:[a-z-]*[a-rtv-z]s|people))\b", re.I)
"""The plural a question counts, with up to two words before it ('cumulative excursion
hours'); a word in 'ss' or 'us' ('address', 'status') is no plural, 'people' is."""

_WHICH = re.compile(
    r"\b(?:which|what) (?:of [^,?]+?'s )?"
    r"((?:[a-z-]+ ){0,2}?(?!(?:does|goes|this)\b)[a-z-]{2,}[a-rtv-z]s)\b"
    r"((?:(?!\band\b)[^?.,])*)",
    re.I,
)
_HOW_MUCH_LEFT = re.compile(
    r"\bhow much\b[^?.]*?\b(?P<word>still open|outstanding|left|remaining|still owed|unpaid)\b",
    re.I,
)
VERDICT_LEADS = ("Yes — ", "No — ")
"""How a verdict's sentence begins: the answer puts it first, before any opener."""
_TOTALS = ("total", "count", "total_count")
_STATES = ("status", "state", "stage", "response")


def counted_things(request: str) -> list[str]:
    """What the request asks the number of: 'how many refills are left' -> ['refills']."""
    return [m.group(1).lower() for m in _HOW_MANY.finditer(request)]


def which_things(request: str) -> list[tuple[str, set[str]]]:
    """What the request asks to be named, with the words of its condition: 'which invoices
    are still sitting in draft?' -> [('invoices', {'still', 'sitting', 'draft'})]; 'who still
    hasn't responded?' asks for people."""
    asked = [(m.group(1).lower(), words_of(m.group(2))) for m in _WHICH.finditer(request)]
    return asked + [("people", words_of(m.group(1))) for m in _WHO.finditer(request)]


_WHO = re.compile(r"\bwho\b([^?.]*)", re.I)
_NOT_YET = frozenset({"hasn", "haven", "didn", "doesn"})
"""Words of a condition no item's state says: 'who hasn't responded' are those pending."""
_PENDING = frozenset(
    {"needs_action", "pending", "awaiting", "invited", "no_response", "unanswered"}
)


def which_fact(
    thing: str, condition: set[str], data: Any, untrusted: tuple[str, ...] = ()
) -> str | None:
    """The names of a listing's items of that name, those whose state the condition says
    ('open', 'draft') when any item's does; None without such a listing. An item with no
    name is told by what it says ('which alarms are active?' is answered by their messages),
    never by text a risk put there."""
    if not isinstance(data, dict):
        return None
    word = singular(thing.split()[-1])
    for key, value in data.items():
        items = [i for i in value if isinstance(i, dict)] if isinstance(value, list) else []
        if items and not _names(word, key):  # 'which cards?': `payment_methods` of type card
            items = [i for i in items if i.get("type") == word]
        if not items:
            continue
        if condition & _NOT_YET:
            meeting = [i for i in items if _state(i).lower() in _PENDING]
        else:
            meeting = [
                i for i in items if words_of(_state(i)) & condition or _flagged(i, condition)
            ]
        if not meeting and thing == "people":
            continue  # 'who is external?' is not answered by every member
        names = [name for i in meeting or items if (name := _name(i, word, untrusted))]
        if names:
            shown = ", ".join(dict.fromkeys(names[:6]))
            more = f" and {len(names) - 6} more" if len(names) > 6 else ""
            return f"{thing.capitalize()}: {shown}{more}"
    return None


def _names(word: str, key: str) -> bool:
    said = {singular(t) for t in tokens(key)}
    return word in said or (word in _PEOPLE and bool(said & _PEOPLE))


_PEOPLE = frozenset({"people", "person", "recipient", "user", "member", "attendee", "employee"})
"""'How many people got the email?' counts its `recipients`."""


def _name(item: dict[str, Any], word: str, untrusted: tuple[str, ...] = ()) -> str:
    """What the question calls an item: its field of that name ('which roles exist?' is
    answered by each item's `role`), else its name or title, else its short message."""
    named = next(
        (
            v
            for k, v in item.items()
            if _names(word, k) and tokens(k)[-1:] != ["id"] and isinstance(v, str)
        ),
        "",
    )
    said = (unplanted(v, untrusted) for k in _SAYS if isinstance(v := item.get(k), str))
    told = next((s for s in said if 0 < len(s) <= 100), "")
    return named or labelled(item, several=False)[1] or told


_SAYS = ("message", "summary", "description", "subject")


def _flagged(item: dict[str, Any], condition: set[str]) -> bool:
    """A flag the condition names is set: 'who is external?' is `is_external: true`."""
    return any(v is True and set(tokens(k)) & condition for k, v in item.items())


def _state(item: dict[str, Any]) -> str:
    return " ".join(str(item[k]) for k in _STATES if isinstance(item.get(k), str))


def count_fact(thing: str, data: Any, about: str, request: str = "") -> str | None:
    """The sentence that answers 'how many <thing>' from one result, or None when the result
    has neither a number nor a listing of that name."""
    if not isinstance(data, dict):
        return None
    word = singular(thing.split()[-1])
    held = _named_number(data, word)
    if held is not None:
        return _said(f"{_number(held)} {thing}", about)
    summed = _summed(data, thing, word, words_of(request))
    if summed is not None:  # 'how many restarts have the pods had?': the pods' restarts
        return _said(summed, about)
    for key, value in data.items():
        if isinstance(value, list) and _names(word, key):
            total = next(
                (data[k] for k in _TOTALS if _is_number(data.get(k))), len(value)
            )  # a page of results says its total beside it
            return _said(f"{_number(total)} {thing} listed", about)
    return None


def _summed(data: dict[str, Any], thing: str, word: str, asked: set[str]) -> str | None:
    """The total of a number each item of a listing holds under the thing's name, over the
    items whose name the request says ('the ticketing-api pods', not the namespace's other
    services) where some do, with how many ('3 restarts across 4 pods'); None without one."""
    for key, value in data.items():
        items = [i for i in value if isinstance(i, dict)] if isinstance(value, list) else []
        named = [i for i in items if words_of(labelled(i, several=True)[1]) & asked]
        items = named or items
        counted = [v for i in items for k, v in i.items() if _is_number(v) and _names(word, k)]
        if len(items) > 1 and len(counted) == len(items):
            return f"{_number(sum(counted))} {thing} across {len(items)} {key.replace('_', ' ')}"
    return None


def _said(count: str, about: str) -> str:
    return f"{about}: {count}" if about else count


def _named_number(data: dict[str, Any], word: str) -> int | float | None:
    """A number whose field names the thing ('minutes', 'refills_remaining'), in the
    result itself or in a list's only record (the one excursion beside a logger's
    readings)."""
    records = [data] + [
        v[0]
        for v in data.values()
        if isinstance(v, list) and len(v) == 1 and isinstance(v[0], dict)
    ]
    for record in records:
        for key, value in record.items():
            if _is_number(value) and _names(word, key):
                return value  # type: ignore[no-any-return]
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: Any) -> str:
    """41.0 is said '41'."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def record_marks(record: Record, world: World) -> frozenset[tuple[str, str]]:
    """What tells a record's row apart in a result, as (field, value): its id under any
    field, and each identifier of its own it holds under that identifier's field (a
    payment's `tx_hash`, where the listing shows no id) — not another record's id (its
    `invoice_id` is the invoice's, whose row is no payment)."""
    held = [
        (key, str(value))
        for key, value in record.attributes.items()
        if isinstance(value, str | int)
        and not isinstance(value, bool)  # a CI run's `run_id: 48241`, a number
        and tokens(key)[-1:] in _IDENTIFIERS
        and _MARK.search(str(value))
        and world.get(str(value)) is None
    ]
    return frozenset([("", record.id), *held])


_IDENTIFIERS = (["id"], ["hash"], ["number"], ["ref"], ["reference"], ["code"], ["sku"])
_MARK = re.compile(r"\d")


def observed_value(
    verdict: Verdict, data: Any, asked: dict[str, Any], marks: frozenset[tuple[str, str]]
) -> Any:
    """The verdict's field of its record as one result shows it (an item holding one of the
    record's `marks`, or the result of a call that named the record), else None."""
    found: list[Any] = []

    def walk(node: Any, top: bool) -> None:
        if isinstance(node, dict):
            value = node.get(verdict.field)
            shown = {(k, str(v)) for k, v in node.items()} | {("", str(v)) for v in node.values()}
            named = top and verdict.record in (str(v) for v in asked.values())
            if (
                value is not None
                and not isinstance(value, dict | list)
                and (shown & marks or named)
            ):
                found.append(value)
            for child in node.values():
                walk(child, False)
        elif isinstance(node, list):
            for child in node:
                walk(child, False)

    walk(data, True)
    return found[-1] if found else None


def verdict_fact(verdict: Verdict, value: Any) -> str:
    """'Yes — the payment went through (status confirmed)' from the value the run read."""
    below = verdict.below is not None and _is_number(value) and value < verdict.below
    meant = {str(v).lower() for v in verdict.yes_when}
    yes = below or str(value).lower() in meant
    lead, said = (VERDICT_LEADS[0], verdict.if_yes) if yes else (VERDICT_LEADS[1], verdict.if_no)
    if isinstance(value, bool):  # 'Tara Brennan is on call today' says it all
        return f"{lead}{said}"
    return f"{lead}{said} ({spoken(verdict.field, value)})"


def left_asked(request: str) -> str | None:
    """The words a 'how much … is still open?' question asks with ('still open'), or None."""
    asked = _HOW_MUCH_LEFT.search(request)
    return asked["word"].lower() if asked else None


def left_fact(word: str, data: Any, about: str) -> str | None:
    """'Invoice LPS-2024-117: 1,280.00 EUR still open': the amount a result says is left (its
    balance or amount due), else its total less what was paid; None without either. The
    answer had given 'total 2480.0, amount paid 1200.0' and left the sum to the user."""
    if not isinstance(data, dict):
        return None
    currency = f" {data['currency']}" if isinstance(data.get("currency"), str) else ""
    held = next(
        (spoken_parts(k, v)[1] for k, v in data.items() if _is_number(v) and _LEFT & {*tokens(k)}),
        None,
    )  # with the unit its name says: 'balance_usd' is '310.50 USD'
    paid = next((v for k, v in data.items() if _is_number(v) and "paid" in tokens(k)), None)
    total = data.get("total")
    if held is None and _is_number(total) and paid is not None:
        held = f"{total - paid:,.2f}{currency}"  # what is left of it, which the answer had not said
    elif held is not None and currency and not held[-1].isalpha():
        held = f"{float(held.replace(',', '')):,.2f}{currency}"
    return _said(f"{held} {word}", about) if held is not None else None


_LEFT = frozenset({"balance", "outstanding", "remaining", "due"})
