"""Importers that map public tool formats (ToolBench, ToolAlpaca, OpenAI) onto `Tool`.

Every input record ends up either as a `Tool` or as a `Rejection` that says which record, which
field and why, so an import can always be accounted for. A file whose overall structure is wrong
(not a list, a query record whose `api_list` is not a list) raises `InputError` instead: then no
record in it can be trusted.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Literal, NamedTuple
from urllib.parse import unquote

import yaml
from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, ValidationError

from pipeline.core.inputs.files import read_structured, write_text_atomic
from pipeline.core.inputs.tool_pool import SideEffect, Tool, load_tool_file, load_tool_pool
from pipeline.core.model.errors import InputError
from pipeline.core.tools.dedupe import DedupeEntry, dedupe

ImportFormat = Literal["toolbench", "toolalpaca", "openai"]

MAX_NAME_LENGTH = 64
"""OpenAI-compatible endpoints reject function names longer than this, so imported names fit."""

DEFAULT_DOMAIN = "web_research"
"""Domain of imported tools whose category says nothing about where they belong."""

CATEGORY_DOMAINS: dict[str, tuple[str, ...]] = {
    # ToolBench (RapidAPI) categories
    "logistics": ("logistics",),
    "transportation": ("logistics",),
    "travel": ("travel_booking",),
    "location": ("travel_booking",),
    "mapping": ("travel_booking",),
    "finance": ("personal_banking", "brokerage"),
    "financial": ("personal_banking", "brokerage"),
    "payments": ("payments_invoicing",),
    "ecommerce": ("ecommerce",),
    "commerce": ("ecommerce",),
    "email": ("email_calendar",),
    "communication": ("workplace_chat",),
    "sms": ("workplace_chat",),
    "storage": ("cloud_storage",),
    "database": ("database_admin",),
    "cybersecurity": ("security_operations",),
    "cryptography": ("security_operations",),
    "medical": ("healthcare_records",),
    "health_and_fitness": ("telehealth",),
    "devices": ("smart_home",),
    "energy": ("industrial_iot",),
    "monitoring": ("devops_cloud",),
    "social": ("social_media",),
    "jobs": ("hr_recruiting",),
    "education": ("education_lms",),
    "business_software": ("customer_support_crm",),
    "weather": ("personal_assistant",),
    # ToolAlpaca (public-apis) categories
    "anti_malware": ("security_operations",),
    "security": ("security_operations",),
    "authentication_authorization": ("security_operations",),
    "blockchain": ("crypto_wallet",),
    "cryptocurrency": ("crypto_wallet",),
    "currency_exchange": ("brokerage",),
    "calendar": ("email_calendar",),
    "cloud_storage_file_sharing": ("cloud_storage",),
    "continuous_integration": ("code_repository_ci",),
    "development": ("code_repository_ci",),
    "programming": ("code_repository_ci",),
    "open_source_projects": ("code_repository_ci",),
    "documents_productivity": ("personal_assistant",),
    "government": ("government_services",),
    "health": ("healthcare_records",),
    "shopping": ("ecommerce",),
    "tracking": ("logistics",),
    "vehicle": ("automotive_fleet",),
    "patent": ("legal_documents",),
    "geocoding": ("travel_booking",),
}
"""Source category (normalised like a name) -> our domain ids; unlisted ones get DEFAULT_DOMAIN."""

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SAFE_METHODS = {"get", "head", "options", "trace"}
"""RFC 9110 safe methods: they read state, so the tool has no side effect."""

_READ_VERBS = {
    "get", "list", "search", "find", "lookup", "read", "fetch", "query", "check",
    "describe", "show", "view", "count", "retrieve",
}  # fmt: skip
"""Leading name verbs of OpenAI functions that only read; other functions may write."""

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
OPENAI_RETURNS: dict[str, Any] = {
    "type": "object",
    "description": "Unspecified result of an OpenAI function definition",
    "additionalProperties": True,
}
_EMPTY_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}, "required": []}


class Rejection(BaseModel):
    """An input record that did not become a tool, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: str
    """Position in the input file, e.g. `4.api_list.2` or `3.paths./report.post`."""
    original_name: str | None
    field: str | None
    """Source field at fault; None when the record as a whole is the problem."""
    reason: str


class ImportResult(NamedTuple):
    tools: list[Tool]
    rejections: list[Rejection]


class _Rejected(Exception):
    """Raised while mapping one record; the collector turns it into a `Rejection`."""

    def __init__(self, field: str | None, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


class _Collector:
    def __init__(self) -> None:
        self.tools: list[Tool] = []
        self.rejections: list[Rejection] = []

    def add(self, record: str, original_name: str | None, build: Callable[[], Tool]) -> None:
        try:
            self.tools.append(build())
        except _Rejected as err:
            self.reject(record, original_name, err.field, err.reason)

    def reject(
        self, record: str, original_name: str | None, field: str | None, reason: str
    ) -> None:
        self.rejections.append(
            Rejection(record=record, original_name=original_name, field=field, reason=reason)
        )

    def result(self) -> ImportResult:
        return ImportResult(self.tools, self.rejections)


# --- shared helpers ---------------------------------------------------------------------------


def normalise_name(*parts: str) -> str:
    """snake_case pool name from source names ('' if nothing usable is left).

    Accents are folded, camelCase is split, other characters become `_`; a leading digit gets a
    `tool_` prefix and names over MAX_NAME_LENGTH keep a hash suffix so they stay distinct.
    """
    text = unicodedata.normalize("NFKD", " ".join(parts)).encode("ascii", "ignore").decode()
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    name = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    if name[:1].isdigit():
        name = f"tool_{name}"
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME_LENGTH - 9].rstrip('_')}_{digest}"
    return name


def category_domains(category: object) -> tuple[str, ...]:
    key = re.sub(r"[^a-z0-9]+", "_", str(category or "").lower()).strip("_")
    return CATEGORY_DOMAINS.get(key, (DEFAULT_DOMAIN,))


def method_side_effect(method: str) -> SideEffect:
    return "none" if method.lower() in _SAFE_METHODS else "reversible"


def _required_text(record: Mapping[str, Any], key: str, field: str | None = None) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise _Rejected(field or key, f"missing or empty {key}")
    return value.strip()


def _make_tool(fields: Mapping[str, str], **values: Any) -> Tool:
    """Build the tool, reporting a model error against the source field it came from."""
    try:
        return Tool(**values)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = [str(part) for part in first["loc"]]
        field = fields.get(loc[0], ".".join(loc)) if loc else None
        raise _Rejected(field, first["msg"]) from None


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def resolve_refs(node: Any, root: Any, field: str, _stack: tuple[str, ...] = ()) -> Any:
    """Inline local `$ref`s (JSON pointers into `root`), so imported schemas stand alone.

    Sibling keywords override the referenced ones. A reference met again inside its own
    expansion is replaced by a described placeholder instead of recursing forever.
    """
    if isinstance(node, list):
        return [resolve_refs(item, root, field, _stack) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" not in node:
        return {key: resolve_refs(value, root, field, _stack) for key, value in node.items()}
    ref = node["$ref"]
    if not isinstance(ref, str) or not ref.startswith("#"):
        raise _Rejected(field, f"$ref {ref!r} is not local; only '#/...' references are supported")
    siblings = {k: resolve_refs(v, root, field, _stack) for k, v in node.items() if k != "$ref"}
    if ref in _stack:
        return {"description": f"Recursive reference to {ref}, not expanded."} | siblings
    resolved = resolve_refs(_json_pointer(root, ref, field), root, field, (*_stack, ref))
    return resolved | siblings if isinstance(resolved, dict) else resolved


def _json_pointer(root: Any, ref: str, field: str) -> Any:
    if ref != "#" and not ref.startswith("#/"):
        raise _Rejected(field, f"$ref {ref!r} is not a JSON pointer ('#/...')")
    target = root
    for token in ref[2:].split("/") if ref != "#" else []:
        key = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and key in target:
            target = target[key]
        elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
            target = target[int(key)]
        else:
            raise _Rejected(field, f"$ref {ref!r} does not resolve")
    return target


# --- ToolBench --------------------------------------------------------------------------------

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
    data = read_structured(path)
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

    collector = _Collector()
    first_seen: dict[str, str] = {}
    for record, entry in entries:
        original = _toolbench_original_name(entry)
        key = _canonical(entry)
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
        raise _Rejected(None, "an api_list entry must be an object")
    tool_name = _required_text(entry, "tool_name")
    api_name = _required_text(entry, "api_name")
    name = normalise_name(tool_name, api_name)
    if not name:
        raise _Rejected("api_name", "name has no ASCII letters or digits")
    description = entry.get("api_description")
    if not isinstance(description, str) or not description.strip():
        raise _Rejected("api_description", "missing description")
    method = entry.get("method")
    if not isinstance(method, str) or method.lower() not in HTTP_METHODS:
        raise _Rejected("method", f"unknown HTTP method {method!r}")

    properties: dict[str, Any] = {}
    required: list[str] = []
    for key, is_required in (("required_parameters", True), ("optional_parameters", False)):
        params = entry.get(key) or []
        if not isinstance(params, list):
            raise _Rejected(key, "must be a list of parameters")
        for index, param in enumerate(params):
            if not isinstance(param, dict) or not isinstance(param.get("name"), str):
                raise _Rejected(f"{key}.{index}", "a parameter must be an object with a name")
            param_name = param["name"].strip()
            if not param_name:
                raise _Rejected(f"{key}.{index}.name", "empty parameter name")
            if param_name in properties:  # listed twice: the required listing comes first and wins
                continue
            properties[param_name] = _toolbench_property(param)
            if is_required:
                required.append(param_name)

    return _make_tool(
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


# --- ToolAlpaca -------------------------------------------------------------------------------


def import_toolalpaca(path: Path) -> ImportResult:
    """ToolAlpaca entries: one tool per operation of the entry's OpenAPI `Documentation`.

    An entry whose documentation cannot be used is rejected as a whole; otherwise each operation
    is imported or rejected on its own.
    """
    data = read_structured(path)
    if not isinstance(data, list):
        raise InputError("expected a list of ToolAlpaca entries", file=path)
    collector = _Collector()
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
        except _Rejected as err:
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
            raise _Rejected(
                "Documentation", f"not valid JSON: {err.msg} at line {err.lineno}"
            ) from None
    if not isinstance(raw, dict):
        raise _Rejected("Documentation", "must be an OpenAPI document (a JSON object)")
    if not isinstance(raw.get("paths"), dict):
        raise _Rejected("Documentation.paths", "missing paths object")
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
        raise _Rejected(field, "an operation must be an object")
    op = resolve_refs(op, doc, field)
    description = _operation_description(op, entry, label)
    if not description:
        raise _Rejected(f"{field}.description", "missing description")

    shared = resolve_refs(
        item.get("parameters", []), doc, f"Documentation.paths.{route}.parameters"
    )
    own = op.get("parameters", [])
    if not isinstance(shared, list) or not isinstance(own, list):
        raise _Rejected(f"{field}.parameters", "must be a list of parameter objects")
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    for param in [*shared, *own]:  # operation parameters override path-level ones
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            raise _Rejected(f"{field}.parameters", "a parameter must be an object with a name")
        by_key[(param["name"], str(param.get("in", "query")))] = param

    properties: dict[str, Any] = {}
    required: list[str] = []
    for (param_name, location), param in by_key.items():
        if location not in ("path", "query"):  # headers and cookies carry auth, not arguments
            continue
        properties[param_name] = _parameter_schema(param, f"{field}.parameters.{param_name}")
        if param.get("required") or location == "path":
            required.append(param_name)
    _merge_request_body(op.get("requestBody"), properties, required, f"{field}.requestBody")

    return _make_tool(
        {
            "name": f"{field}.operationId",
            "description": f"{field}.description",
            "parameters": f"{field}.parameters",
            "returns": f"{field}.responses",
        },
        name=normalise_name(api, label),
        description=description,
        parameters={
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
        returns=_response_schema(op.get("responses")),
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


def _parameter_schema(param: Mapping[str, Any], field: str) -> dict[str, Any]:
    schema = param.get("schema")
    if schema is None:
        schema = _media_schema(param.get("content"))
    if not isinstance(schema, dict):
        raise _Rejected(field, "a parameter needs a schema")
    prop = openapi_to_json_schema(schema)
    description = param.get("description")
    if isinstance(description, str) and description.strip() and "description" not in prop:
        prop["description"] = description.strip()
    if "example" in param and "examples" not in prop:
        prop["examples"] = [param["example"]]
    return prop


def _merge_request_body(
    body: Any, properties: dict[str, Any], required: list[str], field: str
) -> None:
    """Flatten a JSON object body into the arguments; any other body becomes a `body` argument.

    ToolAlpaca documents often repeat query parameters in the body; a repeat of the same type is
    one argument, a repeat of another type is a contradiction the record is rejected for.
    """
    if body is None:
        return
    schema = _media_schema(body.get("content")) if isinstance(body, dict) else None
    if not isinstance(schema, dict):
        raise _Rejected(field, "a request body needs a content schema")
    schema = openapi_to_json_schema(schema)
    body_required = bool(body.get("required"))
    if schema.get("type", "object") == "object" and isinstance(schema.get("properties"), dict):
        fields = schema["properties"]
        inner_required = schema.get("required", []) if body_required else []
    else:
        fields, inner_required = {"body": schema}, ["body"] if body_required else []
    for name, prop in fields.items():
        if name not in properties:
            properties[name] = prop
        elif properties[name].get("type") != prop.get("type"):
            raise _Rejected(
                field, f"argument {name!r} is a parameter and a body field of another type"
            )
        # else: one argument documented twice; the parameter's schema is the more detailed one
    required.extend(name for name in inner_required if name in fields and name not in required)


def _response_schema(responses: Any) -> dict[str, Any]:
    """The JSON schema of the first success response, else an open object saying so."""
    by_code = (
        {str(code): value for code, value in responses.items()}
        if isinstance(responses, dict)
        else {}
    )
    success = sorted(code for code in by_code if code.startswith("2")) or [
        code for code in by_code if code == "default"
    ]
    response = by_code[success[0]] if success else None
    if not isinstance(response, dict):
        response = {}
    text = response.get("description")
    schema = _media_schema(response.get("content"))
    if not isinstance(schema, dict):
        return {
            "type": "object",
            "description": text if isinstance(text, str) and text else "Unspecified response",
            "additionalProperties": True,
        }
    schema = openapi_to_json_schema(schema)
    if isinstance(text, str) and text and "description" not in schema:
        schema["description"] = text
    return schema


def _media_schema(content: Any) -> Any:
    """Schema of a content map, preferring JSON media types."""
    if not isinstance(content, dict) or not content:
        return None
    ordered = sorted(content, key=lambda media: "json" not in str(media))
    media = content[ordered[0]]
    return media.get("schema") if isinstance(media, dict) else None


def openapi_to_json_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Rewrite OpenAPI 3.0 schema keywords that JSON Schema 2020-12 spells differently.

    `nullable` becomes a null type, `example` becomes `examples`, and boolean
    `exclusiveMinimum/Maximum` become numbers; schema-valued keywords are rewritten recursively.
    """
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _sub_schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not"):
            out[key] = _sub_schema(value)
        elif key in ("allOf", "anyOf", "oneOf") and isinstance(value, list):
            out[key] = [_sub_schema(sub) for sub in value]
        elif key == "example":
            out.setdefault("examples", [value])
        elif key not in ("nullable", "exclusiveMinimum", "exclusiveMaximum"):
            out[key] = value
    for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        flag = schema.get(exclusive)
        if isinstance(flag, bool):
            if flag and bound in out:
                out[exclusive] = out.pop(bound)
        elif flag is not None:
            out[exclusive] = flag
    if schema.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out


def _sub_schema(value: Any) -> Any:
    return openapi_to_json_schema(value) if isinstance(value, dict) else value


# --- OpenAI function calling ------------------------------------------------------------------


def import_openai(path: Path) -> ImportResult:
    """OpenAI function definitions: a list, or `{"tools": [...]}` / `{"functions": [...]}`.

    Entries may be wrapped (`{"type": "function", "function": {...}}`) or bare. The format says
    nothing about effects, so a function whose name starts with a read verb (get, list, search...)
    has no side effect and any other is taken to be reversible.
    """
    data = read_structured(path)
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
    collector = _Collector()
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
        raise _Rejected(None, "a tool definition must be an object")
    kind = entry.get("type", "function")
    if kind != "function":
        raise _Rejected("type", f"unsupported tool type {kind!r}; only functions can be imported")
    prefix = "function." if "function" in entry else ""
    function = entry.get("function", entry)
    if not isinstance(function, dict):
        raise _Rejected("function", "must be an object")
    original = _required_text(function, "name", f"{prefix}name")
    name = normalise_name(original)
    if not name:
        raise _Rejected(f"{prefix}name", "name has no ASCII letters or digits")
    description = function.get("description")
    if not isinstance(description, str) or not description.strip():
        raise _Rejected(f"{prefix}description", "missing description")
    parameters = function.get("parameters", _EMPTY_PARAMETERS)
    if not isinstance(parameters, dict):
        raise _Rejected(f"{prefix}parameters", "must be a JSON Schema object")
    parameters = resolve_refs(parameters, parameters, f"{prefix}parameters")
    parameters = {
        key: value for key, value in parameters.items() if key not in ("$defs", "definitions")
    }
    if parameters.get("type") == "object":
        parameters.setdefault("properties", {})
        parameters.setdefault("required", [])
    verb = name.split("_", 1)[0]
    return _make_tool(
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


IMPORTERS: dict[ImportFormat, Callable[[Path], ImportResult]] = {
    "toolbench": import_toolbench,
    "toolalpaca": import_toolalpaca,
    "openai": import_openai,
}


# --- merging into the pool --------------------------------------------------------------------


def import_report_path(target_file: Path) -> Path:
    """Where an import's report goes: beside the imported file.

    Not `*.json`: the pool loader reads every .json/.yaml file under the pool as a tool list.
    """
    return target_file.with_name(f"{target_file.stem}.report.jsonc")


def merge_into_pool(
    new_tools: Sequence[Tool], pool_dir: Path, target_file: Path
) -> list[DedupeEntry]:
    """Add the new tools that are not near-duplicates of the pool to `target_file`, atomically.

    `target_file` must be a YAML file inside `pool_dir` (a relative path is taken from there), so
    the next load of the pool sees what was added.

    The existing pool (including what `target_file` already holds) always wins, so importing
    the same file twice changes nothing. Returns the dedupe report.
    """
    target = target_file if target_file.is_absolute() else pool_dir / target_file
    if target.suffix not in (".yaml", ".yml") or not target.resolve().is_relative_to(
        pool_dir.resolve()
    ):
        raise ValueError(f"{target} must be a .yaml file inside the pool {pool_dir}")
    existing = _pool_tools(pool_dir)
    result = dedupe(new_tools, existing=existing)
    if result.kept:
        current = load_tool_file(target) if target.exists() else []
        merged = sorted([*current, *result.kept], key=lambda tool: tool.name)
        write_text_atomic(target, _dump_tools(merged))
    return result.report


def _pool_tools(pool_dir: Path) -> list[Tool]:
    """Tools already in the pool; an empty or missing pool directory holds none."""
    has_files = pool_dir.is_dir() and any(
        path.suffix in (".yaml", ".yml", ".json") for path in pool_dir.rglob("*")
    )
    return list(load_tool_pool(pool_dir).tools.values()) if has_files else []


def _dump_tools(tools: Iterable[Tool]) -> str:
    # Through JSON so no two tools share objects: PyYAML would write those as &anchors.
    data = [json.loads(tool.model_dump_json(exclude_none=True)) for tool in tools]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
