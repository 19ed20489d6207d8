"""Which import format a file has the shape of.

Each importer rejects what it cannot read record by record, so a file read under the wrong
format would "succeed" with every record rejected (a ToolBench file read as ToolAlpaca). The
shape of the records tells the formats apart, so such a file fails before anything is written,
naming the format it looks like.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pipeline.core.inputs.files import read_structured
from pipeline.core.model.errors import InputError

Format = Literal["toolbench", "toolalpaca", "openai", "openapi"]

EXPECTED: dict[Format, str] = {
    "toolbench": "a list of query records with an api_list, or of api_list entries with "
    "tool_name and api_name",
    "toolalpaca": "a list of entries with a Name and an OpenAPI Documentation",
    "openai": "a list of function definitions (name, description, parameters), or an object "
    "with a 'tools' or 'functions' list",
    "openapi": "an OpenAPI 3 (or Swagger 2) document with 'openapi' and 'paths'",
}


def record_format(record: Any) -> Format | None:
    """The format one record (or a whole document) has the keys of, if any."""
    if not isinstance(record, dict):
        return None
    keys = record.keys()
    if "api_list" in keys or {"tool_name", "api_name"} <= keys:
        return "toolbench"
    if "Documentation" in keys or "Function_Description" in keys:
        return "toolalpaca"
    if ("openapi" in keys or "swagger" in keys) and "paths" in keys:
        return "openapi"
    if isinstance(record.get("function"), dict) or (
        "name" in keys and ("parameters" in keys or "description" in keys)
    ):
        return "openai"
    return None


def file_formats(data: Any) -> Counter[Format]:
    """How many of the file's records have each format's shape; a container counts once."""
    if isinstance(data, dict) and any(key in data for key in ("tools", "functions")):
        return Counter({"openai": 1})
    records = data if isinstance(data, list) else [data]
    return Counter(shape for shape in map(record_format, records) if shape is not None)


def check_shape(data: Any, fmt: Format, path: Path) -> None:
    """Refuse data most of whose records have another format's shape, or none at all."""
    shapes = file_formats(data)
    if not shapes:
        if isinstance(data, (list, dict)) and data:
            raise InputError(
                f"does not look like a {fmt} file: expected {EXPECTED[fmt]}", file=path
            )
        return
    most = max(shapes.values())
    if shapes[fmt] == most:
        return
    looks = next(shape for shape, count in shapes.most_common() if count == most)
    raise InputError(
        f"looks like {_article(looks)} {looks} file ({EXPECTED[looks]}), not {fmt}; "
        f"use --format {looks}",
        file=path,
    )


def read_as(path: Path, fmt: Format) -> Any:
    """The parsed file, once it has `fmt`'s shape; only openapi reads a directory."""
    if path.is_dir():
        raise InputError(
            f"is a directory; --format {fmt} reads one file, and only --format openapi reads "
            "a directory (of OpenAPI documents)",
            file=path,
        )
    data = read_structured(path)
    check_shape(data, fmt, path)
    return data


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"
