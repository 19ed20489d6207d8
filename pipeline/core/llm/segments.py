"""Append-only JSONL segment files: one per writer process, so writers never share a file.

This is the storage under both the response cache and the ledger. It works on local disks and
on shared storage (NFS) alike because no two processes ever write the same file and nothing
needs a lock: a writer creates `<prefix>-<pid>-<random>.jsonl` on its first write and flushes
each line as it goes. A process killed mid-write leaves at most one torn last line, which
readers skip. (Flushing hands the line to the OS, which survives kill -9; surviving power loss
would need an fsync per line, which we do not pay for.)
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from pipeline.core.model.errors import naming_full_disk

logger = logging.getLogger(__name__)


class SegmentWriter:
    """Appends JSON lines to this process's own segment in `folder`, created lazily."""

    def __init__(self, folder: Path, prefix: str) -> None:
        self.folder = folder
        self.prefix = prefix
        self._handle: IO[str] | None = None
        self._pid = 0

    @property
    def path(self) -> Path | None:
        """This process's segment, or None before the first write."""
        return Path(self._handle.name) if self._handle is not None else None

    def write(self, line: str) -> None:
        """Append one line (no newline in it) and flush it to the OS."""
        with naming_full_disk(self.path or self.folder):
            if self._handle is None or self._pid != os.getpid():
                # A forked child must not append to its parent's file: it gets its own.
                self._open()
            assert self._handle is not None
            self._handle.write(line + "\n")
            self._handle.flush()

    def _open(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._pid = os.getpid()
        name = f"{self.prefix}-{self._pid}-{secrets.token_hex(4)}.jsonl"
        self._handle = (self.folder / name).open("x", encoding="utf-8")

    def close(self) -> None:
        if self._handle is not None and self._pid == os.getpid():
            self._handle.close()
        self._handle = None


def segment_files(folder: Path, prefix: str) -> list[Path]:
    return sorted(folder.glob(f"{prefix}-*.jsonl")) if folder.is_dir() else []


def read_lines(path: Path) -> Iterator[dict[str, Any]]:
    """Parsed lines of one segment, skipping a torn last line or any unparseable one."""
    data = path.read_bytes()
    if data and not data.endswith(b"\n"):
        logger.warning("skipping torn last line of %s (a writer was killed mid-write)", path)
    yield from _parse(data[: data.rfind(b"\n") + 1], path)


class SegmentReader:
    """Reads the complete lines appended to a folder's segments since its last call.

    A line still being written by a live writer has no newline yet; it is read next time.
    """

    def __init__(self, folder: Path, prefix: str) -> None:
        self.folder = folder
        self.prefix = prefix
        self._offsets: dict[Path, int] = {}

    def new_records(self, skip: Path | None = None) -> Iterator[tuple[Path, dict[str, Any]]]:
        for path in segment_files(self.folder, self.prefix):
            if path == skip:
                continue
            start = self._offsets.get(path, 0)
            with path.open("rb") as handle:
                handle.seek(start)
                data = handle.read()
            complete = data[: data.rfind(b"\n") + 1]
            self._offsets[path] = start + len(complete)
            for record in _parse(complete, path):
                yield path, record


def _parse(data: bytes, path: Path) -> Iterator[dict[str, Any]]:
    for raw in data.split(b"\n"):
        if not raw:
            continue
        try:
            record = json.loads(raw)
        except ValueError:
            logger.warning("skipping unreadable line in %s", path)
            continue
        if isinstance(record, dict):
            yield record
