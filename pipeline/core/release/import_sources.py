"""The rows of an import's source files: a file or a folder of .json (an array) and .jsonl
files, each row with its file and position, and syntax errors naming the file and line."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.core.model.errors import InputError


@dataclass(frozen=True)
class SourceRow:
    """One source row and where it came from (file name and position in it)."""

    file: str
    index: int
    data: Any

    @property
    def id(self) -> Any:
        return self.data.get("id") if isinstance(self.data, dict) else None


def source_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.suffix in (".json", ".jsonl"))
        if not files:
            raise InputError("the folder holds no .json or .jsonl file", file=path)
        return files
    if not path.is_file():
        raise InputError("no such file or folder", file=path)
    return [path]


def display_name(file: Path, root: Path) -> str:
    return file.relative_to(root).as_posix() if root.is_dir() else file.name


def read_source_file(file: Path, name: str) -> list[SourceRow]:
    """A JSON array of rows, or JSON Lines; syntax errors name the file and line."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the file: {err}", file=file) from None
    if file.suffix == ".jsonl":
        rows: list[SourceRow] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                try:
                    rows.append(SourceRow(name, len(rows), json.loads(line)))
                except json.JSONDecodeError as err:
                    raise InputError(
                        f"invalid JSON: {err.msg}", file=file, record=f"line {number}"
                    ) from None
        return rows
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON at line {err.lineno}: {err.msg}", file=file) from None
    if not isinstance(data, list):
        raise InputError("expected a JSON array of rows (or a .jsonl file)", file=file)
    return [SourceRow(name, index, item) for index, item in enumerate(data)]


def row_mapping(row: SourceRow) -> Mapping[str, Any]:
    if not isinstance(row.data, dict):
        raise InputError(f"a row must be a JSON object, got {type(row.data).__name__}")
    return row.data
