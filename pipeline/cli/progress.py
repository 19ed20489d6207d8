"""The build's progress display: one line per stage with items, rejections, calls, rate and
time left, fed per item by `pipeline.core.progress`. Silent when not on a terminal."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from pipeline.cli.console import plain_console
from pipeline.core.model.progress import reporting_to

_COUNTS = ("total", "rejected", "calls", "hits")


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:5.1f}/s" if speed else "    -/s", style="progress.data.speed")


class StageProgress:
    """A `ProgressSink` for the stage that runs now; `start` switches stages."""

    def __init__(self, console: Console | None = None) -> None:
        console = console or plain_console(stderr=True)
        self._progress = Progress(
            TextColumn("{task.description:<10}"),
            BarColumn(bar_width=16),
            TextColumn("{task.completed:>4.0f}/{task.total:<4.0f}"),
            TextColumn("{task.fields[rejected]} rej"),
            TextColumn("{task.fields[calls]} calls ({task.fields[hits]} cached)"),
            _Rate(),
            TimeRemainingColumn(),
            TimeElapsedColumn(),
            console=console,
            disable=not console.is_terminal,
        )
        self._tasks: dict[str, TaskID] = {}
        self._counts: dict[TaskID, dict[str, int]] = {}
        self._task: TaskID | None = None
        self._reporting = reporting_to(self)

    def __enter__(self) -> StageProgress:
        self._progress.start()
        self._reporting.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._reporting.__exit__(exc_type, exc, tb)
        self._progress.stop()

    def start(self, stage: str) -> None:
        """Count what follows against `stage` (a stage over several runs keeps one line)."""
        if stage not in self._tasks:
            task = self._progress.add_task(stage, total=0, rejected=0, calls=0, hits=0)
            self._tasks[stage] = task
            self._counts[task] = dict.fromkeys(_COUNTS, 0)
        self._task = self._tasks[stage]

    def planned(self, items: int) -> None:
        self._bump(total=items)

    def item_done(self, *, rejected: bool) -> None:
        self._bump(advance=1, rejected=int(rejected))

    def call_done(self, *, cached: bool) -> None:
        self._bump(calls=1, hits=int(cached))

    def _bump(self, advance: int = 0, **more: int) -> None:
        if self._task is None:
            self.start("build")
        assert self._task is not None
        counts = self._counts[self._task]
        for name, n in more.items():
            counts[name] += n
        self._progress.update(
            self._task,
            advance=advance,
            total=counts["total"],
            rejected=counts["rejected"],
            calls=counts["calls"],
            hits=counts["hits"],
        )
