"""User-facing errors.

    AtbenchError            an expected failure whose message is enough (no traceback)
    ├── InputError          bad input: names the file, the record and the field
    └── NoSpaceError        a full disk: names where the write failed

Everything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations

import errno
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import ValidationError


class AtbenchError(Exception):
    """An expected failure the CLI reports as its message alone."""


class InputError(AtbenchError):
    """Input that cannot be used, located as precisely as we can: file, record, field."""

    def __init__(
        self,
        message: str,
        *,
        file: Path | str | None = None,
        record: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = str(file) if file is not None else None
        self.record = record
        self.field = field
        super().__init__(str(self))

    def __str__(self) -> str:
        where = [part for part in (self.file,) if part]
        if self.record is not None:
            where.append(f"record {self.record!r}")
        if self.field:
            where.append(f"field {self.field!r}")
        return f"{', '.join(where)}: {self.message}" if where else self.message

    @classmethod
    def from_validation(
        cls, err: ValidationError, *, file: Path | str | None, record: str | None = None
    ) -> InputError:
        """Report the first pydantic error with its field path (`tools.3.name`)."""
        first = err.errors(include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"]) or None
        more = err.error_count() - 1
        suffix = f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
        return cls(f"{first['msg']}{suffix}", file=file, record=record, field=field)


class NoSpaceError(AtbenchError):
    """A write failed because its file system is full. Raised once, where the path is known;
    the write's own error (often without a file name) is its cause."""

    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        super().__init__(f"no space left on device: {path}")


_FULL_WORDS = ("no space left on device", "database or disk is full")
"""How libraries that keep no errno (DuckDB, SQLite) say the disk is full."""


def is_disk_full(err: BaseException, path: Path) -> bool:
    """Whether `err`, raised writing under `path`, is a full disk: ENOSPC, a library's words
    for it, or an I/O error on a file system with no free block left (SQLite reports a full
    tmpfs as a plain "disk I/O error")."""
    if isinstance(err, OSError) and err.errno == errno.ENOSPC:
        return True
    text = str(err).lower()
    if any(words in text for words in _FULL_WORDS):
        return True
    return "i/o error" in text and _free_bytes(path) == 0


def _free_bytes(path: Path) -> int | None:
    for folder in (path, *path.parents):
        if folder.exists():
            return shutil.disk_usage(folder).free
    return None


@contextmanager
def naming_full_disk(path: Path) -> Iterator[None]:
    """Turn a full disk while writing under `path` into one `NoSpaceError` naming it."""
    try:
        yield
    except NoSpaceError:
        raise
    except Exception as err:
        if is_disk_full(err, path):
            raise NoSpaceError(path) from err
        raise
