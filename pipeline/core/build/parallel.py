"""A stage's domains over several processes, for backends whose work is CPU, not waiting.

The procedural backend spends a build's time computing, in one event loop, on one core; its
domains are independent (each has its own stage files, cache namespace and ledger folder), so
they can run in forked processes side by side and give the same files. A forked child inherits
what the parent loaded (inputs, memos) and reports its progress back through a pipe; the
parent runs one group itself. Models behind an endpoint keep one loop: their time is latency,
and one bound on requests in flight has to hold across every domain.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import threading
import time
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from pipeline.core.build.workspace import StageReport
from pipeline.core.model.progress import ProgressSink, reporting_to
from pipeline.core.model.progress import report as progress

Stage = Callable[[str], Awaitable[StageReport]]
"""A stage over one domain."""
R = TypeVar("R")

_FLUSH_S = 0.2


def processes_for(backend: str) -> int:
    """How many processes a stage's domains get: one per usable core for the procedural
    backend (`ATBENCH_PROCESSES` overrides), one for a model behind an endpoint."""
    if backend != "procedural" or not hasattr(os, "fork"):
        return 1
    given = os.environ.get("ATBENCH_PROCESSES", "")
    return max(1, int(given)) if given.strip() else len(os.sched_getaffinity(0))


def groups(domains: Sequence[str], weights: Mapping[str, float], n: int) -> list[list[str]]:
    """`domains` in at most `n` groups of about equal weight (heaviest first, each to the
    lightest group so far); each group keeps the order of `domains`."""
    loads: list[tuple[float, int, list[str]]] = [(0.0, i, []) for i in range(max(1, n))]
    for domain in sorted(domains, key=lambda d: -weights.get(d, 1.0)):
        load, index, members = min(loads)
        members.append(domain)
        loads[index] = (load + weights.get(domain, 1.0), index, members)
    order = {d: i for i, d in enumerate(domains)}
    return [sorted(m, key=order.__getitem__) for _, _, m in sorted(loads, key=lambda g: g[1]) if m]


def run_domains(
    domains: Sequence[str],
    stage: Stage,
    *,
    processes: int = 1,
    weights: Mapping[str, float] | None = None,
) -> list[StageReport]:
    """Every domain's report, in the order of `domains`: all in this process's event loop, or
    split over `processes` forked processes (this one runs the first group)."""
    reports = map_domains(
        domains,
        lambda group: asyncio.run(_gather(stage, group)),
        processes=processes,
        weights=weights,
    )
    by_domain = {r.domain: r for r in reports}
    return [by_domain[d] for d in domains]


def map_domains(
    domains: Sequence[str],
    work: Callable[[list[str]], list[R]],
    *,
    processes: int = 1,
    weights: Mapping[str, float] | None = None,
) -> list[R]:
    """`work` over groups of `domains` (see `groups`), the results of every group joined:
    here, or over `processes` forked processes, this one doing the first group. Each child
    sends its progress and its results (or the error that stopped it) up a pipe."""
    split = groups(domains, weights or {}, min(processes, len(domains)))
    if len(split) <= 1:
        return work(list(domains))
    sink = _Locked(progress())
    fork = multiprocessing.get_context("fork")
    children = []
    for group in split[1:]:
        reader, writer = fork.Pipe(duplex=False)
        child = fork.Process(target=_child, args=(work, group, writer), daemon=True)
        child.start()
        writer.close()
        outcome: dict[str, Any] = {}
        listener = threading.Thread(target=_listen, args=(reader, sink, outcome), daemon=True)
        listener.start()
        children.append((child, listener, outcome))
    with reporting_to(sink):
        results = work(split[0])
    for child, listener, outcome in children:
        listener.join()
        child.join()
        if "error" in outcome:
            raise outcome["error"]
        if "results" not in outcome:
            raise RuntimeError(f"a stage process ended with exit code {child.exitcode}")
        results += outcome["results"]
    return results


async def _gather(stage: Stage, domains: list[str]) -> list[StageReport]:
    return list(await asyncio.gather(*(stage(d) for d in domains)))


def _child(work: Callable[[list[str]], list[Any]], domains: list[str], writer: Connection) -> None:
    """A forked process's work: its domains, progress sent up the pipe, then its results (or
    the error that stopped it). Leaves with `os._exit`: the parent's exit handlers are not its
    to run."""
    forward = _Forward(writer)
    try:
        with reporting_to(forward):
            results = work(domains)
        forward.flush()
        writer.send(("results", results))
    except BaseException as err:  # every failure goes to the parent
        forward.flush()
        try:
            writer.send(("error", err))
        except Exception:  # an error that does not pickle travels as its traceback
            writer.send(("error", RuntimeError(traceback.format_exc())))
    finally:
        writer.close()
        os._exit(0)


def _listen(reader: Connection, sink: ProgressSink, outcome: dict[str, Any]) -> None:
    """Replay a child's progress into `sink` until it sends its outcome or its pipe closes."""
    while True:
        try:
            kind, value = reader.recv()
        except EOFError:
            return
        if kind == "progress":
            planned, done, rejected, calls, hits = value
            if planned:
                sink.planned(planned)
            for index in range(done):
                sink.item_done(rejected=index < rejected)
            for index in range(calls):
                sink.call_done(cached=index < hits)
        else:
            outcome[kind] = value


class _Forward:
    """A child's progress sink: counts, sent up the pipe at most every 0.2 s."""

    def __init__(self, writer: Connection) -> None:
        self._writer = writer
        self._counts = [0, 0, 0, 0, 0]  # planned, done, rejected, calls, cache hits
        self._sent = time.monotonic()

    def start(self, stage: str) -> None:
        pass  # the parent said which stage runs

    def planned(self, items: int) -> None:
        self._bump(0, items)

    def item_done(self, *, rejected: bool) -> None:
        self._bump(1, 1)
        self._bump(2, int(rejected))

    def call_done(self, *, cached: bool) -> None:
        self._bump(3, 1)
        self._bump(4, int(cached))

    def _bump(self, index: int, n: int) -> None:
        self._counts[index] += n
        if time.monotonic() - self._sent >= _FLUSH_S:
            self.flush()

    def flush(self) -> None:
        if any(self._counts):
            self._writer.send(("progress", tuple(self._counts)))
            self._counts = [0, 0, 0, 0, 0]
        self._sent = time.monotonic()


class _Locked:
    """A sink fed from this process's loop and from the threads replaying children."""

    def __init__(self, sink: ProgressSink) -> None:
        self._sink = sink
        self._lock = threading.Lock()

    def start(self, stage: str) -> None:
        with self._lock:
            self._sink.start(stage)

    def planned(self, items: int) -> None:
        with self._lock:
            self._sink.planned(items)

    def item_done(self, *, rejected: bool) -> None:
        with self._lock:
            self._sink.item_done(rejected=rejected)

    def call_done(self, *, cached: bool) -> None:
        with self._lock:
            self._sink.call_done(cached=cached)
