"""One writer per release directory: a lock file beside it, holding the writer's pid.

The lock is an advisory `flock` on `.<name>.lock` in the release's parent folder, so it is
released by the kernel when its holder exits, even by kill -9; a lock file left behind by a
dead holder is simply taken over. The holder removes the file when it is done; a writer that
locked a file just removed that way notices (the path no longer names its file) and retries.
A second writer fails at once, naming the holder, instead of waiting through a whole build.
Within one process the lock is re-entrant, so a build that holds it for its whole run can
publish under it.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.core.model.errors import AtbenchError, naming_full_disk

_held: set[Path] = set()
"""Lock files this process holds."""


def lock_path(out_dir: Path) -> Path:
    return out_dir.parent / f".{out_dir.name}.lock"


@contextmanager
def release_lock(out_dir: Path) -> Iterator[None]:
    """Hold the right to write `out_dir`; an `AtbenchError` naming the holder if taken."""
    path = lock_path(out_dir.resolve())
    if path in _held:
        yield
        return
    with naming_full_disk(path):
        fd = _acquire(path, out_dir)
    try:
        with naming_full_disk(path):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        _held.add(path)
        try:
            yield
        finally:
            _held.discard(path)
            path.unlink(missing_ok=True)
    finally:
        os.close(fd)


def _acquire(path: Path, out_dir: Path) -> int:
    """An open, locked descriptor of the file at `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = path.read_text(encoding="utf-8", errors="replace").strip() or "unknown"
            raise AtbenchError(
                f"{out_dir} is being written by another build (pid {holder}, lock {path}); "
                "wait for it to finish or choose another --out"
            ) from None
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return fd
        except FileNotFoundError:
            pass
        os.close(fd)  # the holder removed this file between our open and our lock
