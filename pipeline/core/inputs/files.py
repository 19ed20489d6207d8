"""Reading inputs with located errors, and writing outputs atomically.

Every writer goes through a temporary file in the target's folder and `os.replace`, so a killed
process leaves either the old file or the new one, never half of one. That is what makes
per-domain stage files safe on shared storage and lets a rerun trust what it finds.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from pipeline.core.model.errors import InputError, naming_full_disk

M = TypeVar("M", bound=BaseModel)

_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_structured(path: Path) -> Any:
    """Parse a YAML or JSON file, turning syntax errors into an `InputError` with the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror}", file=path) from None
    except UnicodeDecodeError as err:
        raise InputError(f"not valid UTF-8 at byte {err.start}", file=path) from None
    try:
        if path.suffix == ".json":
            return json.loads(text)
        return yaml.load(text, Loader=_YAML_LOADER)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON at line {err.lineno}: {err.msg}", file=path) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err)
        raise InputError(f"invalid YAML{line}: {problem}", file=path) from None


def validate_model(model: type[M], data: Any, *, file: Path, record: str | None = None) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise InputError.from_validation(err, file=file, record=record) from None


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path beside `target`; it replaces `target` only if the block succeeds.
    A full disk is reported as a `NoSpaceError` naming `target`."""
    with naming_full_disk(target):
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        os.close(fd)
        tmp = Path(tmp_name)
        try:
            yield tmp
            os.replace(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)


def write_text_atomic(target: Path, text: str) -> None:
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_json_atomic(target: Path, data: Any) -> None:
    write_text_atomic(target, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def write_jsonl_atomic(target: Path, records: Iterable[BaseModel]) -> int:
    count = 0
    with atomic_path(target) as tmp, tmp.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(record.model_dump_json())
            handle.write("\n")
            count += 1
    return count


def read_jsonl(path: Path, model: type[M], context: Mapping[str, Any] | None = None) -> list[M]:
    """Validated records of a JSON Lines file; `context` reaches the model's validators."""
    records = []
    with path.open(encoding="utf-8") as handle:
        for line_no, line in enumerate(handle, start=1):
            if line.strip():
                try:
                    records.append(model.model_validate_json(line, context=context))
                except ValidationError as err:
                    raise InputError.from_validation(
                        err, file=path, record=f"line {line_no}"
                    ) from None
    return records
