"""OpenAI function-calling definitions: a list, or `{"tools": [...]}` / `{"functions": [...]}`."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.common import (
    DEFAULT_DOMAIN,
    Collector,
    ImportResult,
    Rejected,
    make_tool,
    normalise_name,
    required_text,
)
from pipeline.core.tools.importers.refs import resolve_refs
from pipeline.core.tools.importers.shapes import read_as

_READ_VERBS = {
    "get", "list", "search", "find", "lookup", "read", "fetch", "query", "check",
    "describe", "show", "view", "count", "retrieve",
}  # fmt: skip
"""Leading name verbs of OpenAI functions that only read; other functions may write."""

OPENAI_RETURNS: dict[str, Any] = {
    "type": "object",
    "description": "Unspecified result of an OpenAI function definition",
    "additionalProperties": True,
}
_EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "required": []}


def import_openai(path: Path) -> ImportResult:
    """OpenAI function definitions: a list, or `{"tools": [...]}` / `{"functions": [...]}`.

    Entries may be wrapped (`{"type": "function", "function": {...}}`) or bare. The format says
    nothing about effects, so a function whose name starts with a read verb (get, list, search...)
    has no side effect and any other is taken to be reversible.
    """
    data = read_as(path, "openai")
    container = "(root)"
    if isinstance(data, dict):
        container = next((key for key in ("tools", "functions") if key in data), "(root)")
        data = data.get(container)
    if not isinstance(data, list):
        raise InputError(
            "expected a list of function definitions, or an object with a 'tools' list",
            file=path,
            field=None if container == "(root)" else container,
        )
    collector = Collector()
    for index, entry in enumerate(data):
        original = _openai_original_name(entry)
        collector.add(str(index), original, partial(_openai_tool, entry))
    return collector.result()


def _openai_original_name(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    function = entry.get("function", entry)
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _openai_tool(entry: Any) -> Tool:
    if not isinstance(entry, dict):
        raise Rejected(None, "a tool definition must be an object")
    kind = entry.get("type", "function")
    if kind != "function":
        raise Rejected("type", f"unsupported tool type {kind!r}; only functions can be imported")
    prefix = "function." if "function" in entry else ""
    function = entry.get("function", entry)
    if not isinstance(function, dict):
        raise Rejected("function", "must be an object")
    original = required_text(function, "name", f"{prefix}name")
    name = normalise_name(original)
    if not name:
        raise Rejected(f"{prefix}name", "name has no ASCII letters or digits")
    description = function.get("description")
    if not isinstance(description, str) or not description.strip():
        raise Rejected(f"{prefix}description", "missing description")
    parameters = function.get("parameters", _EMPTY_PARAMETERS)
    if not isinstance(parameters, dict):
        raise Rejected(f"{prefix}parameters", "must be a JSON Schema object")
    parameters = resolve_refs(parameters, parameters, f"{prefix}parameters")
    parameters = {
        key: value for key, value in parameters.items() if key not in ("$defs", "definitions")
    }
    if parameters.get("type") == "object":
        parameters.setdefault("properties", {})
        parameters.setdefault("required", [])
    verb = name.split("_", 1)[0]
    return make_tool(
        {
            "name": f"{prefix}name",
            "description": f"{prefix}description",
            "parameters": f"{prefix}parameters",
        },
        name=name,
        description=description.strip(),
        parameters=parameters,
        returns=OPENAI_RETURNS,
        domains=(DEFAULT_DOMAIN,),
        side_effect="none" if verb in _READ_VERBS else "reversible",
        source="openai",
        original_name=original,
    )
