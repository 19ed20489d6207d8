"""Which of a run's reads no longer hold by the time it answers: a record a later call
changed, by naming it (a balance read before the transfer that moved it) or by what the
write did to it (the grant a transfer of ownership made an editor's)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.core.generation.content import bare_name
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.spoken import labelled
from pipeline.core.model.world import StepEffect, World


def stale(label: str, index: int, steps: Sequence[StepEffect], world: World) -> bool:
    """Whether a record's fact read at step `index` no longer holds: a later call changed
    that record (a balance read before the transfer that moved it)."""
    if not label:
        return False
    for effect in steps[index + 1 :]:
        change = effect.change
        if change is None:
            continue
        ids = [change.target, *(v for v in change.arguments.values() if isinstance(v, str))]
        changed = {bare_name(r.name) for i in ids if i and (r := world.get(i)) is not None}
        # or a part the call names by its key ('milestone: inspection_contingency')
        named = {i.replace("_", " ").lower() for i in ids if i}
        if label in changed or label.lower() in named:
            return True
    return False


def outdated(data: Any, before: World, after: World) -> set[str] | None:
    """Names of the records a read showed with a value of an attribute the run changed
    (from `before` to `after`) that is not its value now: the grant it listed as Rob's
    ownership before the transfer to Ines, a balance listed between two transfers, an order
    listed as processing before it was cancelled; never the
    van whose position was read before its speed limiter was set. None when the read shows
    no record by its id, so its attributes cannot tell."""
    return _changed(data, before, after) if _identified(data, before) else None


def _identified(data: Any, world: World) -> bool:
    if isinstance(data, list):
        return any(_identified(item, world) for item in data)
    if not isinstance(data, dict):
        return False
    own = any(
        isinstance(v, str) and tokens(k)[-1:] == ["id"] and world.get(v) is not None
        for k, v in data.items()
    )
    return own or any(_identified(v, world) for v in data.values())


def _changed(data: Any, before: World, after: World) -> set[str]:
    found: set[str] = set()
    if isinstance(data, list):
        for item in data:
            found |= _changed(item, before, after)
    elif isinstance(data, dict):
        ids = [v for k, v in data.items() if isinstance(v, str) and tokens(k)[-1:] == ["id"]]
        was = next((r for v in ids if (r := before.get(v)) is not None), None)
        now = after.get(was.id) if was is not None else None
        if was is not None and now is None:  # cancelled or deleted since: 'processing' no more
            found |= {bare_name(was.name), labelled(data, several=False)[1]} - {""}
        elif was is not None and now is not None:
            moved = {k for k, v in was.attributes.items() if now.attributes.get(k) != v}
            if any(k in moved and now.attributes.get(k) != v for k, v in data.items()):
                # under the record's own name and under what the result called it
                found |= {bare_name(was.name), labelled(data, several=False)[1]} - {""}
        for value in data.values():
            if isinstance(value, list | dict):
                found |= _changed(value, before, after)
    return found
