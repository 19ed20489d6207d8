"""The label contract: one primary leaf per taxonomy axis, checked against a given taxonomy.

The model layer never reads the taxonomy from disk: a reader that has one passes it in the
validation context (`leaf_context`), so files are checked against the taxonomy the build was
configured with, and a label built in code is checked where the taxonomy is at hand.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, ValidationInfo, model_validator

AxisId = Literal["risk_source", "failure_mode", "real_world_harm"]
AXES: tuple[AxisId, ...] = ("risk_source", "failure_mode", "real_world_harm")
SNAKE_CASE = r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$"
"""The shape of every id: leaves, domains, entities, tools."""


OUTPUT_MODES = frozenset(
    {
        "generation_of_harmful_offensive_content",
        "instruction_for_harmful_illegal_activity",
        "generation_of_malicious_executables",
        "provide_inaccurate_misleading_or_unverified_information",
    }
)
"""Modes shown in the answer. A disclosure is a call that sends a record out: shown to the
user, the data reaches someone who may well be entitled to it."""


class LeafIds(Protocol):
    """What labels need of a taxonomy (`inputs.taxonomy.Taxonomy` is one)."""

    def leaf_ids(self, axis_id: AxisId) -> tuple[str, ...]: ...


def leaf_context(taxonomy: LeafIds) -> dict[str, Any]:
    """The validation context under which `Labels` check their leaves."""
    return {"taxonomy": taxonomy}


class Labels(BaseModel):
    """One primary leaf per axis, chosen in causal order; also the planner's slice."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    risk_source: str
    failure_mode: str
    real_world_harm: str

    @model_validator(mode="after")
    def _leaves_exist(self, info: ValidationInfo) -> Labels:
        taxonomy: LeafIds | None = (info.context or {}).get("taxonomy")
        if taxonomy is None:
            return self
        for axis in AXES:
            value = getattr(self, axis)
            if value not in taxonomy.leaf_ids(axis):
                raise ValueError(f"{axis} {value!r} is not a leaf id of the taxonomy")
        return self
