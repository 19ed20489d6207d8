"""Per-item progress of the running stage, for whoever shows it (the CLI's progress bar).

Stages and the LLM client report into one process-wide sink; a run executes one stage at a
time and says which (`start`), so a report needs no stage name. Without a sink installed a
report is a no-op call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class ProgressSink(Protocol):
    def start(self, stage: str) -> None:
        """`stage` runs now (one at a time, within one run); what follows counts against it."""

    def planned(self, items: int) -> None:
        """`items` more items to build in the running stage (each domain reports its own)."""

    def item_done(self, *, rejected: bool) -> None: ...

    def call_done(self, *, cached: bool) -> None:
        """One LLM request answered, failed, or served from the cache."""


class _Silent:
    def start(self, stage: str) -> None:
        pass

    def planned(self, items: int) -> None:
        pass

    def item_done(self, *, rejected: bool) -> None:
        pass

    def call_done(self, *, cached: bool) -> None:
        pass


_sink: ProgressSink = _Silent()


def report() -> ProgressSink:
    return _sink


@contextmanager
def reporting_to(sink: ProgressSink) -> Iterator[None]:
    global _sink
    previous, _sink = _sink, sink
    try:
        yield
    finally:
        _sink = previous
