import gc
from collections.abc import Iterator
from typing import Any

import pytest

from pipeline.core.build.collector import YOUNG_THRESHOLD, tune_collector


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generations collected while the test runs; the suite's thresholds come back after."""
    saved = gc.get_threshold()
    seen: list[int] = []

    def count(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.collect()
    gc.callbacks.append(count)
    yield seen
    gc.callbacks.remove(count)
    gc.set_threshold(*saved)


def _allocate(n: int) -> list[dict[str, int]]:
    return [{"i": i} for i in range(n)]


def test_a_stage_worth_of_allocations_no_longer_triggers_collections(
    collections: list[int],
) -> None:
    gc.set_threshold(700, 10, 10)  # CPython's default
    kept = _allocate(YOUNG_THRESHOLD // 2)
    assert len(collections) > 50
    del kept
    gc.collect()
    collections.clear()

    tune_collector()
    kept = _allocate(YOUNG_THRESHOLD // 2)
    assert collections == []
    assert len(kept) == YOUNG_THRESHOLD // 2
