"""One copy per test session of a costly build, whichever xdist worker asks for it first.

`make test` runs the suite on several pytest-xdist workers, each its own process with its own
session fixtures: a session-scoped build made in a plain fixture is made once per worker. A
build made through `shared_folder` is made once per session: the workers of one session share
the parent of their temporary folders, the first worker to take the build's file lock makes it
there, and every later caller (another worker, or the same one) finds it done and reads it.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

DONE = ".done"
"""Written last, after the build returned: a folder without it was never finished."""


def session_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this session sees: the parent of the workers' own temporary
    folders under xdist, the session's temporary folder without it."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def shared_folder(
    tmp_path_factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]
) -> Path:
    """The folder `name` of this session, filled by `make(folder)` exactly once.

    A worker that finds another making it waits on the lock; a `make` that raised leaves no
    `.done`, so the next caller builds again from an empty folder (and meets the same error).
    """
    root = session_root(tmp_path_factory) / "shared"
    root.mkdir(exist_ok=True)
    folder = root / name
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / DONE).exists():
            if folder.exists():
                shutil.rmtree(folder)
            folder.mkdir()
            make(folder)
            (folder / DONE).touch()
    return folder
