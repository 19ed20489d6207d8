"""JSON Schema meta-validation, remembered across processes.

Meta-validating one schema costs about 2.5 ms, so the 1,300 schemas of the tool pool cost
3 s in every process that loads it. Whether a schema is valid depends only on its content and
the jsonschema version, so the digests of schemas that passed are kept in a file under
`outputs/cache/` and are not checked again; a schema that fails is never remembered.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from importlib.metadata import version
from pathlib import Path
from typing import Any

from pipeline.core.inputs.files import write_text_atomic
from pipeline.core.inputs.paths import outputs_dir

_known: dict[Path, set[str]] = {}
"""Digests known valid, per memo file (tests move outputs between runs)."""


def memo_file() -> Path:
    return outputs_dir() / "cache" / f"valid-json-schemas-{_jsonschema_version()}.txt"


@cache
def _jsonschema_version() -> str:
    return version("jsonschema")


def check_once(schema: dict[str, Any], check: Callable[[dict[str, Any]], None]) -> None:
    """`check(schema)` unless a schema with this content passed it before."""
    path = memo_file()
    known = _known.get(path)
    if known is None:
        try:
            known = set(path.read_text(encoding="utf-8").split())
        except OSError:
            known = set()
        _known[path] = known
    digest = hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()
    if digest in known:
        return
    check(schema)
    known.add(digest)


def save() -> None:
    """Write what this process learnt; an unwritable outputs folder only costs time."""
    path = memo_file()
    known = _known.get(path)
    if not known:
        return
    try:
        if set(path.read_text(encoding="utf-8").split()) >= known:
            return
    except OSError:
        pass
    try:
        write_text_atomic(path, "\n".join(sorted(known)) + "\n")
    except OSError:
        return
