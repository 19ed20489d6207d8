"""The three-axis risk taxonomy: loading, validation and label normalisation.

Leaf ids are the public data's strings; readers meet ids, display names and alias spellings,
and `Taxonomy.normalise` maps all of them onto the id.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pipeline.core.inputs.files import read_structured, validate_model
from pipeline.core.inputs.paths import taxonomy_dir
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES, SNAKE_CASE, AxisId


def _key(text: str) -> str:
    """Spelling-insensitive key: 'Inherent Agent/LLM Failures' -> 'inherent_agent_llm_failures'."""
    return re.sub(r"[^a-z0-9]+", "_", text.strip().lower()).strip("_")


class Leaf(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=SNAKE_CASE)
    """Public id, e.g. `indirect_prompt_injection`."""
    name: str = Field(min_length=1)
    """Display name as judges and dataset cards show it."""
    definition: str = Field(min_length=20)
    """What the leaf is and what separates it from its neighbours."""
    aliases: tuple[str, ...] = ()
    """Other spellings found in public data."""


class Family(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=SNAKE_CASE)
    name: str
    leaves: tuple[Leaf, ...] = Field(min_length=1)


class Axis(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: AxisId
    name: str
    question: str
    families: tuple[Family, ...] = Field(min_length=1)

    @property
    def leaves(self) -> tuple[Leaf, ...]:
        return tuple(leaf for family in self.families for leaf in family.leaves)

    @property
    def leaf_ids(self) -> tuple[str, ...]:
        return tuple(leaf.id for leaf in self.leaves)

    def family_of(self, leaf_id: str) -> Family:
        return next(f for f in self.families if any(leaf.id == leaf_id for leaf in f.leaves))


class Taxonomy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int
    axes: tuple[Axis, ...]

    @model_validator(mode="after")
    def _axes_ids_and_spellings_are_unambiguous(self) -> Taxonomy:
        ids = [axis.id for axis in self.axes]
        if sorted(ids) != sorted(AXES):
            raise ValueError(f"axes must be exactly {list(AXES)}, got {ids}")
        for axis in self.axes:
            for kind, found in (
                ("family", [family.id for family in axis.families]),
                ("leaf", list(axis.leaf_ids)),
            ):
                duplicates = sorted({i for i in found if found.count(i) > 1})
                if duplicates:
                    raise ValueError(f"axis {axis.id}: duplicate {kind} ids {duplicates}")
            seen: dict[str, str] = {}
            for leaf in axis.leaves:
                for spelling in (leaf.id, leaf.name, *leaf.aliases):
                    key = _key(spelling)
                    if seen.setdefault(key, leaf.id) != leaf.id:
                        raise ValueError(
                            f"axis {axis.id}: spelling {spelling!r} names both "
                            f"{seen[key]!r} and {leaf.id!r}"
                        )
        return self

    def axis(self, axis_id: AxisId) -> Axis:
        return next(axis for axis in self.axes if axis.id == axis_id)

    def leaf_ids(self, axis_id: AxisId) -> tuple[str, ...]:
        return self.axis(axis_id).leaf_ids

    def leaf(self, axis_id: AxisId, leaf_id: str) -> Leaf:
        return next(leaf for leaf in self.axis(axis_id).leaves if leaf.id == leaf_id)

    def try_normalise(self, axis_id: AxisId, spelling: str) -> str | None:
        """The leaf id for an id, alias or display name; None if nothing matches."""
        return _lookup(self, axis_id).get(_key(spelling))

    def normalise(self, axis_id: AxisId, spelling: str) -> str:
        found = self.try_normalise(axis_id, spelling)
        if found is None:
            raise ValueError(
                f"{spelling!r} is not a {axis_id} leaf; expected one of "
                f"{', '.join(self.leaf_ids(axis_id))}"
            )
        return found


@cache
def _lookup(taxonomy: Taxonomy, axis_id: AxisId) -> dict[str, str]:
    return {
        _key(spelling): leaf.id
        for leaf in taxonomy.axis(axis_id).leaves
        for spelling in (leaf.id, leaf.name, *leaf.aliases)
    }


def load_taxonomy(path: Path | None = None) -> Taxonomy:
    path = path or taxonomy_dir() / "taxonomy.yaml"
    if not path.exists():
        raise InputError("taxonomy file not found", file=path)
    return validate_model(Taxonomy, read_structured(path), file=path)


@cache
def default_taxonomy() -> Taxonomy:
    """The repository's taxonomy, loaded once per process."""
    return load_taxonomy()
