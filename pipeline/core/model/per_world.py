"""Facts derived from a world's records, computed once per state.

Construction asks about one world many times between two of its changes (every argument of
every step looks up records), and a world grows to a thousand records with its population.
A write makes a new world with a new records tuple, so the memo is keyed by that tuple's
identity and keeps the last few states only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:  # the world model indexes its own records with this
    from pipeline.core.model.world import Record, World

T = TypeVar("T")
_KEPT = 4


def per_world(derive: Callable[[tuple[Record, ...]], T]) -> Callable[[World], T]:
    """`derive` of a world's records, kept for the last few states asked about."""
    kept: list[tuple[tuple[Record, ...], T]] = []

    def cached(world: World) -> T:
        for records, value in kept:
            if records is world.records:
                return value
        value = derive(world.records)
        kept[:] = [(world.records, value), *kept[: _KEPT - 1]]
        return value

    cached.__doc__ = derive.__doc__
    return cached
