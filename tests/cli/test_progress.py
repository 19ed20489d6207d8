"""The progress display: one line per stage on a terminal, nothing anywhere else."""

from __future__ import annotations

import io
import re

from rich.console import Console

from pipeline.cli.progress import StageProgress
from pipeline.core.model.progress import report as progress


def shown(terminal: bool) -> str:
    screen = io.StringIO()
    with StageProgress(Console(file=screen, force_terminal=terminal, width=120)):
        progress().start("evaluate")
        progress().planned(3)
        for rejected in (False, True, False):
            progress().item_done(rejected=rejected)
        progress().call_done(cached=True)
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())


def test_a_terminal_shows_items_rejections_and_calls() -> None:
    last = shown(terminal=True).strip().splitlines()[-1]
    assert last.split()[0] == "evaluate" and "3/3" in last
    assert "1 rej" in last and "1 calls (1 cached)" in last


def test_a_pipe_or_file_gets_nothing() -> None:
    assert shown(terminal=False) == ""
