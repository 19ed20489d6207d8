"""One OpenAPI operation's arguments and response as JSON Schema, shared by the OpenAPI-based
importers (ToolAlpaca entries and whole OpenAPI documents)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from pipeline.core.tools.importers.common import Rejected
from pipeline.core.tools.importers.refs import MAX_REF_DEPTH, resolve_refs


class RefBudget(NamedTuple):
    """Bounds for inlining one part (parameters, body, response) of an operation."""

    max_depth: int = MAX_REF_DEPTH
    max_nodes: int | None = None


UNBOUNDED = RefBudget()
"""Hand-written documents: only cycles are cut."""


class OperationSchemas(NamedTuple):
    parameters: dict[str, Any]
    returns: dict[str, Any]


def operation_schemas(
    doc: Mapping[str, Any],
    item: Mapping[str, Any],
    op: Mapping[str, Any],
    field: str,
    budget: RefBudget = UNBOUNDED,
) -> OperationSchemas:
    """Path and query parameters plus a flattened JSON body as one argument object, and the
    first success response as `returns`; `field` locates the operation in the source."""

    def resolve(node: Any, where: str) -> Any:
        return resolve_refs(
            node, doc, where, max_depth=budget.max_depth, max_nodes=budget.max_nodes
        )

    route_field = field.rsplit(".", 1)[0]
    shared = resolve(item.get("parameters", []), f"{route_field}.parameters")
    own = resolve(op.get("parameters", []), f"{field}.parameters")
    if not isinstance(shared, list) or not isinstance(own, list):
        raise Rejected(f"{field}.parameters", "must be a list of parameter objects")
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    for param in [*shared, *own]:  # operation parameters override path-level ones
        if not isinstance(param, dict) or not isinstance(param.get("name"), str):
            raise Rejected(f"{field}.parameters", "a parameter must be an object with a name")
        by_key[(param["name"], str(param.get("in", "query")))] = param

    properties: dict[str, Any] = {}
    required: list[str] = []
    for (param_name, location), param in by_key.items():
        if location not in ("path", "query"):  # headers and cookies carry auth, not arguments
            continue
        properties[param_name] = _parameter_schema(param, f"{field}.parameters.{param_name}")
        if param.get("required") or location == "path":
            required.append(param_name)
    body_field = f"{field}.requestBody"
    _merge_request_body(
        resolve(op.get("requestBody"), body_field), properties, required, body_field
    )
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    response_field = f"{field}.responses"
    return OperationSchemas(
        parameters, _response_schema(resolve(_success_response(op), response_field))
    )


def _parameter_schema(param: Mapping[str, Any], field: str) -> dict[str, Any]:
    schema = param.get("schema")
    if schema is None:
        schema = _media_schema(param.get("content"))
    if not isinstance(schema, dict):
        raise Rejected(field, "a parameter needs a schema")
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

    Documents often repeat query parameters in the body; a repeat of the same type is one
    argument, a repeat of another type is a contradiction the record is rejected for.
    """
    if body is None:
        return
    schema = _media_schema(body.get("content")) if isinstance(body, dict) else None
    if not isinstance(schema, dict):
        raise Rejected(field, "a request body needs a content schema")
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
            raise Rejected(
                field, f"argument {name!r} is a parameter and a body field of another type"
            )
        # else: one argument documented twice; the parameter's schema is the more detailed one
    required.extend(name for name in inner_required if name in fields and name not in required)


def _success_response(op: Mapping[str, Any]) -> Any:
    """The first 2xx response, else `default`, unresolved; None when there is neither."""
    responses = op.get("responses")
    by_code = (
        {str(code): value for code, value in responses.items()}
        if isinstance(responses, dict)
        else {}
    )
    success = sorted(code for code in by_code if code.startswith("2")) or [
        code for code in by_code if code == "default"
    ]
    return by_code[success[0]] if success else None


def _response_schema(response: Any) -> dict[str, Any]:
    """The response's JSON schema, else an open object saying what the response is."""
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
