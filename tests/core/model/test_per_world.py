"""A per-state index is computed once per world state and never served for another state."""

from __future__ import annotations

from pipeline.core.model.per_world import per_world
from pipeline.core.model.world import Record, World


def test_an_index_is_kept_for_its_state_and_rebuilt_after_a_change() -> None:
    calls: list[int] = []

    @per_world
    def ids(records: tuple[Record, ...]) -> set[str]:
        calls.append(len(records))
        return {r.id for r in records}

    world = World(today="2024-09-01", records=(Record(id="a", kind="record", name="A"),))
    assert ids(world) == {"a"} and ids(world) is ids(world)
    changed = world.model_copy(
        update={"records": (*world.records, Record(id="b", kind="record", name="B"))}
    )
    assert ids(changed) == {"a", "b"}
    assert changed.get("b") is not None and world.get("b") is None
    assert calls == [1, 2]
