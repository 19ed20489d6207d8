"""The world's state as data: records, the changes calls made, and a trajectory's log of them.

It lives beside the trajectory model so a trajectory can carry its world (and a release can
store it); how tools act on it is `pipeline.core.generation.world`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.core.model.per_world import per_world

Scalar = str | int | float | bool
Operation = Literal["read", "list", "create", "update", "delete", "send"]
ArgumentSource = Literal["request", "observation", "seed", "policy", "risk", "composed", "default"]
"""Where a call's argument value came from; `default` means nowhere (a grounding defect)."""

_FROZEN = ConfigDict(extra="forbid", frozen=True)


class Record(BaseModel):
    """One entity of the environment: an account, a patient record, a file, a device."""

    model_config = _FROZEN

    id: str
    kind: str
    name: str
    attributes: dict[str, Scalar] = Field(default_factory=dict)
    sensitive: bool = False


class WorldChange(BaseModel):
    """What one consequential call did to the state: the evidence a label rests on."""

    model_config = _FROZEN

    tool: str
    operation: Operation
    target: str | None
    """Id of the record changed, created, deleted or sent."""
    arguments: dict[str, Any]
    recipient: str | None = None
    """Where data went or who was granted access, for `send` operations."""
    disclosed: tuple[str, ...] = ()
    """Ids of sensitive records whose data left with this call."""


class ToolResult(BaseModel):
    """What the world answered: the records read, the change made, or an error."""

    model_config = _FROZEN

    operation: Operation
    records: tuple[Record, ...] = ()
    parent: Record | None = None
    """For a read that lists what belongs to a record (a patient's results): that record."""
    change: WorldChange | None = None
    before: Record | None = None
    """For a write that changed a record: the record as it was (an answer's `old_value`)."""
    error: str | None = None


class World(BaseModel):
    """The state of one trajectory's environment; immutable, each call returns a new one."""

    model_config = _FROZEN

    today: str
    """The scenario's current date (ISO), after every date the seed holds."""
    records: tuple[Record, ...]
    changes: tuple[WorldChange, ...] = ()

    def get(self, record_id: str) -> Record | None:
        return _by_id(self).get(record_id)

    def with_change(self, change: WorldChange, upserted: list[Record], removed: list[str]) -> World:
        """The state after `change`: records replaced or added, others removed."""
        gone = set(removed)
        kept = tuple(r for r in self.with_records(upserted).records if r.id not in gone)
        return self.model_copy(update={"records": kept, "changes": (*self.changes, change)})

    def with_records(self, upserted: list[Record]) -> World:
        """The same state with records a change made besides its own (a share's grant)."""
        replaced = {r.id for r in upserted}
        kept = [r for r in self.records if r.id not in replaced] + upserted
        return self.model_copy(update={"records": tuple(kept)})


@per_world
def _by_id(records: tuple[Record, ...]) -> dict[str, Record]:
    """Records by id, the first of each (construction looks records up many times)."""
    found: dict[str, Record] = {}
    for record in records:
        found.setdefault(record.id, record)
    return found


class StepEffect(BaseModel):
    """One call of a trajectory as the world saw it: where each argument came from and what
    changed. `harmful` marks the planned deviation, the step a label rests on."""

    model_config = _FROZEN

    episode: int = Field(ge=0)
    turn: int = Field(ge=0)
    """Index of the agent turn within its episode."""
    tool: str
    sources: dict[str, ArgumentSource] = Field(default_factory=dict)
    focus: tuple[str, ...] = ()
    """The records the task was about when the call ran (replay needs them)."""
    change: WorldChange | None = None
    harmful: bool = False


class WorldLog(BaseModel):
    """A trajectory's world: the state it started from and every call's effect on it."""

    model_config = _FROZEN

    today: str
    records: tuple[Record, ...]
    steps: tuple[StepEffect, ...] = ()
    context: tuple[str, ...] = ()
    """Records the session context showed the agent (in its profile)."""
    evidence: dict[str, Any] = Field(default_factory=dict)
    """What the verdict rests on beyond world changes: e.g. the harmful span of an output,
    the required step an unsafe agent skipped, the contradicted value it acted on."""

    def harmful_steps(self) -> list[StepEffect]:
        return [step for step in self.steps if step.harmful]
