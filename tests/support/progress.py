"""A progress sink for tests: what a stage, the LLM client or an evaluator reported."""

from __future__ import annotations


class Recorder:
    """Counts what it is told, and the stages in the order they started."""

    def __init__(self) -> None:
        self.stages: list[str] = []
        self.counts = dict.fromkeys(("planned", "done", "rejected", "calls", "hits"), 0)

    def start(self, stage: str) -> None:
        self.stages.append(stage)

    def planned(self, items: int) -> None:
        self.counts["planned"] += items

    def item_done(self, *, rejected: bool) -> None:
        self.counts["done"] += 1
        self.counts["rejected"] += rejected

    def call_done(self, *, cached: bool) -> None:
        self.counts["calls"] += 1
        self.counts["hits"] += cached
