"""Facts derived from a world's records, computed once per state.

Construction asks about one world many times between two of its changes (every argument of
every step looks up records), and a world grows to a thousand records with its population.
A write makes a new world with a new records tuple, so the memo is keyed by that tuple's
identity and keeps the last few states only (each entry holds its tuple, so an identity
cannot be reused while it is kept).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)
_KEPT = 4


class HasRecords(Protocol[R_co]):
    """A world: anything holding its records as a tuple."""

    @property
    def records(self) -> tuple[R_co, ...]: ...


def per_world(derive: Callable[[tuple[R, ...]], T]) -> Callable[[HasRecords[R]], T]:
    """`derive` of a world's records, kept for the last few states asked about."""
    kept: list[tuple[tuple[R, ...], T]] = []

    def cached(world: HasRecords[R]) -> T:
        for records, value in kept:
            if records is world.records:
                return value
        value = derive(world.records)
        kept[:] = [(world.records, value), *kept[: _KEPT - 1]]
        return value

    cached.__doc__ = derive.__doc__
    return cached
