"""ToolAlpaca entries (Name, Description, Category, OpenAPI `Documentation`,
Function_Description): one tool per operation of the entry's documentation."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.common import (
    HTTP_METHODS,
    Collector,
    ImportResult,
    Rejected,
    category_domains,
    make_tool,
    method_side_effect,
    normalise_name,
)
from pipeline.core.tools.importers.openapi_operations import operation_schemas
from pipeline.core.tools.importers.shapes import read_as


def import_toolalpaca(path: Path) -> ImportResult:
    """An entry whose documentation cannot be used is rejected as a whole; otherwise each
    operation is imported or rejected on its own."""
    data = read_as(path, "toolalpaca")
    if not isinstance(data, list):
        raise InputError("expected a list of ToolAlpaca entries", file=path)
    collector = Collector()
    for index, entry in enumerate(data):
        record = str(index)
        if not isinstance(entry, dict):
            collector.reject(record, None, None, "an entry must be an object")
            continue
        api = entry.get("Name")
        if not isinstance(api, str) or not api.strip():
            collector.reject(record, None, "Name", "empty name")
            continue
        api = api.strip()
        try:
            doc = _openapi_document(entry.get("Documentation"))
        except Rejected as err:
            collector.reject(record, api, err.field, err.reason)
            continue
        operations = [
            (route, method, item)
            for route, item in doc["paths"].items()
            if isinstance(item, dict)
            for method in item
            if method in HTTP_METHODS
        ]
        if not operations:
            collector.reject(record, api, "Documentation.paths", "no operations")
            continue
        for route, method, item in operations:
            op = item[method]
            op_id = op.get("operationId") if isinstance(op, dict) else None
            label = op_id if isinstance(op_id, str) and op_id else f"{method.upper()} {route}"
            collector.add(
                f"{record}.paths.{route}.{method}",
                f"{api}.{label}",
                partial(_toolalpaca_tool, entry, api, doc, route, method, item, label),
            )
    return collector.result()


def _openapi_document(raw: Any) -> dict[str, Any]:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as err:
            raise Rejected(
                "Documentation", f"not valid JSON: {err.msg} at line {err.lineno}"
            ) from None
    if not isinstance(raw, dict):
        raise Rejected("Documentation", "must be an OpenAPI document (a JSON object)")
    if not isinstance(raw.get("paths"), dict):
        raise Rejected("Documentation.paths", "missing paths object")
    return raw


def _toolalpaca_tool(
    entry: Mapping[str, Any],
    api: str,
    doc: dict[str, Any],
    route: str,
    method: str,
    item: dict[str, Any],
    label: str,
) -> Tool:
    field = f"Documentation.paths.{route}.{method}"
    op = item[method]
    if not isinstance(op, dict):
        raise Rejected(field, "an operation must be an object")
    description = _operation_description(op, entry, label)
    if not description:
        raise Rejected(f"{field}.description", "missing description")
    parameters, returns = operation_schemas(doc, item, op, field)
    return make_tool(
        {
            "name": f"{field}.operationId",
            "description": f"{field}.description",
            "parameters": f"{field}.parameters",
            "returns": f"{field}.responses",
        },
        name=normalise_name(api, label),
        description=description,
        parameters=parameters,
        returns=returns,
        domains=category_domains(entry.get("Category")),
        side_effect=method_side_effect(method),
        source="toolalpaca",
        original_name=f"{api}.{label}",
    )


def _operation_description(op: Mapping[str, Any], entry: Mapping[str, Any], label: str) -> str:
    """The operation's own text, else the first line ToolAlpaca's Function_Description gives."""
    for key in ("description", "summary"):
        text = op.get(key)
        if isinstance(text, str) and text.strip():
            return text.strip()
    described = entry.get("Function_Description")
    if isinstance(described, str):
        try:
            described = ast.literal_eval(described)
        except (ValueError, SyntaxError):
            return ""
    text = described.get(label) if isinstance(described, dict) else None
    return text.split("\n", 1)[0].strip() if isinstance(text, str) else ""
