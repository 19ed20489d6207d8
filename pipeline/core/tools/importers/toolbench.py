"""ToolBench `api_list` entries (category_name, tool_name, api_name, api_description,
required_parameters, optional_parameters, method), from query files or plain lists."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.common import (
    HTTP_METHODS,
    Collector,
    ImportResult,
    Rejected,
    canonical,
    category_domains,
    make_tool,
    method_side_effect,
    normalise_name,
    required_text,
)
from pipeline.core.tools.importers.shapes import read_as

_TOOLBENCH_TYPES: dict[str, dict[str, Any]] = {
    "STRING": {"type": "string"},
    "NUMBER": {"type": "number"},
    "INTEGER": {"type": "integer"},
    "BOOLEAN": {"type": "boolean"},
    "ENUM": {"type": "string"},
    "ARRAY": {"type": "array"},
    "OBJECT": {"type": "object"},
    "DATE": {"type": "string", "format": "date"},
}

TOOLBENCH_RETURNS: dict[str, Any] = {
    "type": "object",
    "description": "Unspecified response of a ToolBench API",
    "additionalProperties": True,
}

_TOOLBENCH_FIELDS = {
    "name": "api_name",
    "description": "api_description",
    "parameters": "required_parameters",
    "domains": "category_name",
    "side_effect": "method",
}


def import_toolbench(path: Path) -> ImportResult:
    """ToolBench `api_list` entries, from a query file or a plain list of entries.

    Query files repeat the same API under many queries; an identical repeat is rejected with a
    pointer to the first occurrence, so the import stays one tool per API.
    """
    data = read_as(path, "toolbench")
    if not isinstance(data, list):
        raise InputError(
            "expected a list of ToolBench query records or api_list entries", file=path
        )
    entries: list[tuple[str, Any]] = []
    for index, item in enumerate(data):
        if isinstance(item, dict) and "api_list" in item:
            apis = item["api_list"]
            if not isinstance(apis, list):
                raise InputError(
                    "api_list must be a list of API entries",
                    file=path,
                    record=str(index),
                    field="api_list",
                )
            entries.extend((f"{index}.api_list.{j}", api) for j, api in enumerate(apis))
        else:
            entries.append((str(index), item))

    collector = Collector()
    first_seen: dict[str, str] = {}
    for record, entry in entries:
        original = _toolbench_original_name(entry)
        key = canonical(entry)
        if key in first_seen:
            collector.reject(
                record, original, None, f"identical repeat of record {first_seen[key]}"
            )
            continue
        first_seen[key] = record
        collector.add(record, original, partial(_toolbench_tool, entry))
    return collector.result()


def _toolbench_original_name(entry: Any) -> str | None:
    if not isinstance(entry, dict):
        return None
    return f"{entry.get('tool_name', '?')} / {entry.get('api_name', '?')}"


def _toolbench_tool(entry: Any) -> Tool:
    if not isinstance(entry, dict):
        raise Rejected(None, "an api_list entry must be an object")
    tool_name = required_text(entry, "tool_name")
    api_name = required_text(entry, "api_name")
    name = normalise_name(tool_name, api_name)
    if not name:
        raise Rejected("api_name", "name has no ASCII letters or digits")
    description = entry.get("api_description")
    if not isinstance(description, str) or not description.strip():
        raise Rejected("api_description", "missing description")
    method = entry.get("method")
    if not isinstance(method, str) or method.lower() not in HTTP_METHODS:
        raise Rejected("method", f"unknown HTTP method {method!r}")

    properties: dict[str, Any] = {}
    required: list[str] = []
    for key, is_required in (("required_parameters", True), ("optional_parameters", False)):
        params = entry.get(key) or []
        if not isinstance(params, list):
            raise Rejected(key, "must be a list of parameters")
        for index, param in enumerate(params):
            if not isinstance(param, dict) or not isinstance(param.get("name"), str):
                raise Rejected(f"{key}.{index}", "a parameter must be an object with a name")
            param_name = param["name"].strip()
            if not param_name:
                raise Rejected(f"{key}.{index}.name", "empty parameter name")
            if param_name in properties:  # listed twice: the required listing comes first and wins
                continue
            properties[param_name] = _toolbench_property(param)
            if is_required:
                required.append(param_name)

    return make_tool(
        _TOOLBENCH_FIELDS,
        name=name,
        description=description.strip(),
        parameters={
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
        returns=TOOLBENCH_RETURNS,
        domains=category_domains(entry.get("category_name")),
        side_effect=method_side_effect(method),
        source="toolbench",
        original_name=f"{tool_name} / {api_name}",
    )


def _toolbench_property(param: Mapping[str, Any]) -> dict[str, Any]:
    """One ToolBench parameter as a JSON Schema property; an invalid default is left out."""
    raw_type = param.get("type")
    word = re.match(r"[A-Za-z]+", raw_type) if isinstance(raw_type, str) else None
    known = _TOOLBENCH_TYPES.get(word.group(0).upper()) if word else None
    prop: dict[str, Any] = dict(known or {"type": "string"})
    description = param.get("description")
    notes = [description.strip()] if isinstance(description, str) and description.strip() else []
    if known is None:
        notes.append(f"(ToolBench type {raw_type!r}, imported as a string)")
    if notes:
        prop["description"] = " ".join(notes)
    default = _coerce(param.get("default"), prop["type"])
    if default not in (None, "") and Draft202012Validator(prop).is_valid(default):
        prop["default"] = default
    return prop


def _coerce(value: Any, json_type: str) -> Any:
    """ToolBench writes non-string defaults as text ('10', 'true'); read them as JSON."""
    if not isinstance(value, str) or json_type == "string":
        return value
    try:
        return json.loads(value, parse_constant=_no_constant)
    except ValueError:
        return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")
