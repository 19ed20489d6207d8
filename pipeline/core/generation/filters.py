"""A list call's filters over the world's records: `from_date`, `min_amount`, `status`, a
bare `since`, a name that names a linked record."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pipeline.core.generation.population import FUTURE_DATE_WORDS
from pipeline.core.generation.semantics import tokens
from pipeline.core.model.world import Record, Scalar, World

DAY = re.compile(r"20\d\d-[01]\d-[0-3]\d")
"""A calendar day as records and arguments write it, at the start of a date or a moment."""
_DATED = re.compile(DAY.pattern + ".*")
"""A one-line value that is a date or a moment."""


def honours(record: Record, arguments: Mapping[str, Any], world: World | None = None) -> bool:
    """Whether a record passes a list call's filters (`from_date`, `min_amount`, `status`)."""
    for key, value in arguments.items():
        words = tokens(key)
        if not words or isinstance(value, bool | list | dict):
            continue
        bound = words[0] if words[0] in ("from", "min", "since", "to", "max", "until") else None
        field = "_".join(words[1:] if bound else words)
        if bound is None and len(words) > 1 and words[-1] in _AFTER_WORDS:
            # `due_before`, `created_after`, `amount_over`: the bound follows its field
            bound, field = _AFTER_WORDS[words[-1]], _field_like(record, words[:-1])
        if bound is None and words[-1] in ("start", "end") and _comparable(value) is not None:
            # a window (`start`, `end`, `window_end`) bounds when a record starts
            bound, field = ("from" if words[-1] == "start" else "to"), "start"
        current = record.attributes.get(field) if field else _own_date(record, world)
        if current is None and bound is None and words[-1] == "date" and DAY.fullmatch(str(value)):
            # `depart_date` bounds the day of the offer's `depart_at`
            day = _day_under(record, words[:-1])
            if day is not None and day != value:
                return False
        if current is None:
            continue
        if bound is None:
            if not _names(str(value), str(current), world):
                return False
            continue
        left, right = _comparable(current), _comparable(value)
        if left is None or right is None or type(left) is not type(right):
            continue
        if bound in ("from", "min", "since") and left < right:  # type: ignore[operator]
            return False
        if bound in ("to", "max", "until") and left > right:  # type: ignore[operator]
            return False
    return True


_AFTER_WORDS = {
    "before": "to", "after": "from", "over": "min", "under": "max", "above": "min",
    "below": "max",
}  # fmt: skip


def _field_like(record: Record, words: list[str]) -> str:
    """The record's field a bound names: itself, else the one whose name holds its words
    (`due` bounds a refill's `next_fill_due`)."""
    field = "_".join(words)
    if field in record.attributes:
        return field
    return next((k for k in record.attributes if set(words) <= set(tokens(k))), field)


def _day_under(record: Record, head: list[str]) -> str | None:
    """The day of the record's moment whose name begins with `head` (`depart_at` for
    `depart_date`, `check_in` and never `check_out` for `check_in_date`)."""
    if not head:
        return None
    return next(
        (
            v[:10]
            for k, v in record.attributes.items()
            if tokens(k)[: len(head)] == head and isinstance(v, str) and DAY.match(v)
        ),
        None,
    )


def _own_date(record: Record, world: World | None = None) -> Scalar | None:
    """The date a bare `since`/`until` filter bounds: the record's first past date (a
    payment's `date`, a message's `sent_at`), not a due date or an expiry; for a record with
    none, a date it holds that has passed (a completed trip's `start`: auditors found trips
    of 1 November listed 'since 4 November')."""
    dated = [
        (k, v) for k, v in record.attributes.items() if isinstance(v, str) and _DATED.fullmatch(v)
    ]
    own = next((v for k, v in dated if not set(tokens(k)) & FUTURE_DATE_WORDS), None)
    if own is not None or world is None:
        return own
    return next((v for _, v in dated if v[:10] < world.today), None)


def _names(said: str, held: str, world: World | None) -> bool:
    """Whether a filter's value names what the record holds: the same text, or the record
    the attribute links to by id (`repo: northwind/payments-api` for `repo_payments_api`)."""
    if said.lower() in held.lower():
        return True
    linked = world.get(held) if world is not None else None
    if linked is None:
        return False
    name, said = linked.name.lower(), said.lower()
    shorter, longer = sorted((name, said), key=len)
    return len(shorter) >= 6 and shorter in longer


def _comparable(value: Any) -> float | str | None:
    if isinstance(value, int | float):
        return abs(float(value))
    text = str(value)
    if _DATED.fullmatch(text):
        return text[:10]
    try:
        return abs(float(text))
    except ValueError:
        return None
