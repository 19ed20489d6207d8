"""User-facing errors.

    AtbenchError            an expected failure whose message is enough (no traceback)
    └── InputError          bad input: names the file, the record and the field

Everything else that escapes is a bug and keeps its traceback.
"""

from __future__ import annotations

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
