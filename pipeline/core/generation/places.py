"""Where a thing is: the places a world names (depots, warehouses, rooms, sites), so a
location field never holds a record's description ('Vaccine consignment')."""

from __future__ import annotations

from collections.abc import Sequence
from random import Random

from pipeline.core.generation.semantics import related, tokens
from pipeline.core.model.world import Record, World

PLACE_KEYS = frozenset([
    "room", "location", "zone", "area", "site", "warehouse", "depot", "hub", "facility",
    "origin", "city", "port",
])  # fmt: skip
"""Words of attributes whose values are places a location field can hold."""
_ROOMS = frozenset([
    "hallway", "hall", "kitchen", "bedroom", "living", "lounge", "garage", "office", "bathroom",
    "garden", "porch", "front", "back", "basement", "attic", "loft", "landing", "study",
    "nursery", "utility", "dining", "entrance", "lobby", "reception", "patio", "driveway",
    "upstairs", "downstairs", "shed", "cellar", "conservatory",
])  # fmt: skip
"""Words that make the start of a device's name a place ('Hallway thermostat')."""
_PLACE_NOUNS = frozenset([
    "warehouse", "depot", "hub", "terminal", "port", "site", "office", "branch", "clinic",
    "store", "yard", "dc", "boardroom", "room", "plant", "station", "campus", "hq",
])  # fmt: skip
"""Words of a record's name that make the record a place ('Rotterdam warehouse 2')."""


def names_room(words: Sequence[str]) -> bool:
    """Whether the leading words of a record's name are a place ('Hallway', 'Living room')."""
    return bool({w.lower() for w in words} & _ROOMS)


def is_place(record: Record) -> bool:
    """Whether a record is itself a place (a warehouse, a depot, a meeting room)."""
    return bool({w.lower() for w in record.name.split()} & _PLACE_NOUNS)


def place_of(world: World, record: Record | None, rng: Random) -> str | None:
    """A place the record itself keeps, else one a related record keeps, else a place of
    the world (a warehouse, a depot, a place another record keeps, the town of an address);
    None when the world names no place."""
    near = related(world, record) if record is not None else []
    for pool in ([record] if record is not None else [], near):
        found = _kept(pool, rng)
        if found is not None:
            return found
    named = sorted(r.name for r in world.records if is_place(r))
    if named:
        return named[rng.randrange(len(named))]
    found = _kept(world.records, rng)
    if found is not None:
        return found
    towns = sorted(
        {
            str(v).rsplit(",", 1)[-1].strip()
            for r in world.records
            for k, v in r.attributes.items()
            if "address" in tokens(k) and "," in str(v)
        }
    )
    return towns[rng.randrange(len(towns))] if towns else None


def _kept(pool: Sequence[Record], rng: Random) -> str | None:
    places = sorted(
        {
            v
            for r in pool
            for k, v in r.attributes.items()
            if isinstance(v, str)
            and set(tokens(k)) & PLACE_KEYS
            and 0 < len(v) <= 50
            and not v.startswith(("http", "/"))
        }
    )
    return places[rng.randrange(len(places))] if places else None
