"""A field a record lacks, answered as its siblings answer it: a family of records (one id
prefix, one shape) shares its categories, never what identifies one of them."""

from __future__ import annotations

from typing import Any

from pipeline.core.generation.population import IDENTIFIERS
from pipeline.core.generation.semantics import tokens
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.world import Record, World


def borrowed(world: World, name: str, kind: str, record: Record | None) -> Any:
    """The same field of a sibling record of the same shape (a cloned driver's licence
    class), so a family of records answers alike; never what identifies the sibling (its
    VIN, its number, its account). None when no sibling holds it."""
    if record is None or set(tokens(name)) & IDENTIFIERS:
        return None
    prefix, shape = record.id.split("_")[0], set(record.attributes)
    values = sorted(
        {
            str(v)
            for r in world.records
            if r.id.split("_")[0] == prefix and r.id != record.id and shape <= set(r.attributes)
            for k, v in r.attributes.items()
            if k == name and _type_of_value(v) in _COMPATIBLE.get(kind, ())
        }
    )
    if not values:
        return None
    chosen = values[seeded_rng("borrow", record.id, name).randrange(len(values))]
    return _as(chosen, kind)


def _type_of_value(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


_COMPATIBLE = {
    "string": ("string",),
    "integer": ("integer",),
    "number": ("integer", "number"),
    "boolean": ("boolean",),
    "object": (),
    "array": (),
}


def _as(text: str, kind: str) -> Any:
    if kind == "boolean":
        return text == "True"
    if kind == "integer":
        return int(text)
    if kind == "number":
        return float(text)
    return text
