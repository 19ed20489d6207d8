"""The JSON Schema subset that every structured-output dialect can decode, and a checker for it.

A schema the project sends is turned into a grammar by the server: OpenAI's structured outputs,
llama.cpp's GBNF converter (llama-cpp-python `json_object` + schema, llama-server, Ollama's
`format`), or xgrammar / outlines / guidance (vLLM, SGLang). Each supports a different slice of
JSON Schema, and some fail *silently*: llama-cpp-python falls back to unconstrained JSON when its
converter raises, and ignores a `required` name that has no property. So the project keeps every
answer schema inside the part they all handle, and checks it (`subset_problems`).

The subset:

* the root is an object schema (`"type": "object"`): OpenAI and Ollama require it;
* `type` is one of object, array, string, number, integer, boolean, null, or a list of them;
* objects: `properties`, `required` (only names of declared properties), `additionalProperties`
  as a boolean (a schema there is not portable);
* arrays: `items` as one schema (no tuples), `minItems`, `maxItems`;
* `enum` of scalars, `const`, `anyOf` of subset schemas, `$ref` to `#/$defs/...` (or
  `#/definitions/...`) in the same document;
* `pattern` only anchored as `^...$` (llama.cpp's converter needs both anchors);
* `format` only one of `FORMATS`;
* annotations that decoders ignore: `title`, `description`, `examples`, `default`, `$comment`,
  `deprecated`, `readOnly`, `writeOnly`.

Decoders may ignore `minLength`, `maxLength`, `minimum`, `maximum`, `format` and `pattern`
(llama.cpp ignores the numeric bounds, OpenAI's strict mode the length bounds). They are in the
subset because they are *validated after decoding*: the client checks every answer against the
full schema and re-asks with the error, so a bound a decoder skipped costs a re-ask, never a
wrong answer. Anything else (`oneOf`, `allOf`, `not`, `if`, `patternProperties`, `prefixItems`,
`uniqueItems`, `multipleOf`, exclusive bounds, ...) is outside the subset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TYPES = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
FORMATS = frozenset(
    {"date", "time", "date-time", "duration", "email", "hostname", "ipv4", "ipv6", "uri", "uuid"}
)
"""Formats the decoders know or pass over as plain strings; the validator checks the rest."""
ANNOTATIONS = frozenset(
    {"title", "description", "examples", "default", "$comment", "deprecated", "readOnly"}
    | {"writeOnly"}
)
VALIDATED_AFTER = frozenset({"minLength", "maxLength", "minimum", "maximum", "format", "pattern"})
"""Keywords a decoder may skip; the client's validation after decoding enforces them."""
STRUCTURAL = frozenset(
    {"type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems"}
    | {"enum", "const", "anyOf", "$ref", "$defs", "definitions"}
)
KEYWORDS = STRUCTURAL | VALIDATED_AFTER | ANNOTATIONS


def subset_problems(schema: Mapping[str, Any]) -> list[str]:
    """Every place `schema` leaves the portable subset, as "<JSON path>: <why>"; [] if none."""
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append('$: the root must be an object schema ("type": "object")')
    _check(schema, "$", schema, problems)
    return problems


def _check(node: Any, path: str, root: Mapping[str, Any], problems: list[str]) -> None:
    if not isinstance(node, Mapping):
        problems.append(f"{path}: a schema must be an object, got {type(node).__name__}")
        return
    for keyword in sorted(set(node) - KEYWORDS):
        problems.append(f"{path}: keyword {keyword!r} is outside the subset")
    kinds = node.get("type")
    if kinds is not None:
        listed = kinds if isinstance(kinds, list) else [kinds]
        for kind in listed:
            if kind not in TYPES:
                problems.append(f"{path}: type {kind!r} is not one of {sorted(TYPES)}")
    properties = node.get("properties", {})
    if not isinstance(properties, Mapping):
        problems.append(f"{path}.properties: must be an object")
        properties = {}
    for name in node.get("required", []):
        if name not in properties:
            problems.append(
                f"{path}.required: {name!r} has no property schema "
                "(llama.cpp drops it from the grammar, so no answer could pass)"
            )
    extra = node.get("additionalProperties")
    if extra is not None and not isinstance(extra, bool):
        problems.append(f"{path}.additionalProperties: must be true or false, not a schema")
    if "items" in node and not isinstance(node["items"], Mapping):
        problems.append(f"{path}.items: must be one schema (tuples are outside the subset)")
    for value in node.get("enum", []):
        if isinstance(value, dict | list):
            problems.append(f"{path}.enum: {value!r} is not a scalar")
    pattern = node.get("pattern")
    if pattern is not None and not (
        isinstance(pattern, str) and pattern.startswith("^") and pattern.endswith("$")
    ):
        problems.append(f"{path}.pattern: {pattern!r} must be anchored as ^...$")
    fmt = node.get("format")
    if fmt is not None and fmt not in FORMATS:
        problems.append(f"{path}.format: {fmt!r} is not one of {sorted(FORMATS)}")
    ref = node.get("$ref")
    if ref is not None and not _resolves(ref, root):
        problems.append(f"{path}.$ref: {ref!r} does not resolve to #/$defs/... in this schema")
    for name, sub in properties.items():
        _check(sub, f"{path}.properties.{name}", root, problems)
    if isinstance(node.get("items"), Mapping):
        _check(node["items"], f"{path}.items", root, problems)
    for index, sub in enumerate(node.get("anyOf", [])):
        _check(sub, f"{path}.anyOf[{index}]", root, problems)
    for key in ("$defs", "definitions"):
        for name, sub in node.get(key, {}).items():
            _check(sub, f"{path}.{key}.{name}", root, problems)


def _resolves(ref: Any, root: Mapping[str, Any]) -> bool:
    if not isinstance(ref, str) or not ref.startswith(("#/$defs/", "#/definitions/")):
        return False
    section, _, name = ref[2:].partition("/")
    defs = root.get(section)
    return isinstance(defs, Mapping) and name in defs
