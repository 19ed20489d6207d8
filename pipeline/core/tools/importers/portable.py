"""Imported schemas rewritten into the portable JSON Schema subset every decoding dialect
handles (`pipeline.core.llm.schema_subset`), since tool arguments and observations are sent
as answer schemas.

Real OpenAPI schemas compose with `allOf`, branch with `oneOf`, put schemas under
`additionalProperties` and carry regular expressions written for other engines. Composition is
flattened, `oneOf` becomes `anyOf`, and constraints outside the subset are dropped: an agent
reads them as documentation, and a looser argument schema only accepts more calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pipeline.core.llm.schema_subset import FORMATS, KEYWORDS, TYPES

ANY_TYPE = ["string", "number", "boolean", "object", "array", "null"]
"""Said explicitly where a schema gives no shape: grammar converters reject a schema that is
only annotations (llama.cpp), and an array's `items` must say what an item is."""
_SHAPED_BY = frozenset({"type", "properties", "enum", "const", "anyOf", "items"})
_DROPPED = frozenset({"pattern"})
_LENGTHS = frozenset({"minLength", "maxLength", "minItems", "maxItems"})
MAX_LENGTH_BOUND = 100
"""Grammar converters unroll a length bound into that many rules (a `maxLength` of 10^6
exhausts memory); larger bounds are left to validation, i.e. dropped."""
"""In the subset only when anchored, and regular expressions from other engines break
grammar converters; a described string is enough for an agent."""


def portable_schema(node: Any, clean: Callable[[str], str]) -> dict[str, Any]:
    """`node` inside the subset; `clean(text)` shortens descriptions. Vendor (`x-`) keywords
    and everything else outside the subset are left out."""
    if not isinstance(node, dict):
        return {}
    if isinstance(node.get("allOf"), list):
        node = _flatten_all_of(node)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "oneOf":
            key = "anyOf"
        if key not in KEYWORDS or key in _DROPPED:
            continue
        if key == "description" and isinstance(value, str):
            out[key] = clean(value)
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: portable_schema(sub, clean) for name, sub in value.items()}
        elif key == "items":
            out[key] = portable_schema(value, clean)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [portable_schema(sub, clean) for sub in value]
        elif key == "additionalProperties":
            out[key] = value if isinstance(value, bool) else True
        elif key == "type":
            kinds = value if isinstance(value, list) else [value]
            known = [kind for kind in kinds if isinstance(kind, str) and kind in TYPES]
            known = known or ["string"]
            out[key] = known[0] if len(known) == 1 else known
        elif key == "enum":
            if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
                out[key] = value
        elif key == "format":
            if value in FORMATS:
                out[key] = value
        elif key in _LENGTHS:
            if isinstance(value, int) and value <= MAX_LENGTH_BOUND:
                out[key] = value
        elif key == "required":
            if isinstance(value, list):
                out[key] = value
        elif key not in ("$ref", "$defs", "definitions"):  # references are already inlined
            out[key] = value
    if "required" in out:
        declared = out.get("properties", {})
        out["required"] = [name for name in out["required"] if name in declared]
    if not _SHAPED_BY & set(out):
        out["type"] = list(ANY_TYPE)
    return out


def _flatten_all_of(node: dict[str, Any]) -> dict[str, Any]:
    """`allOf` parts merged into the node: properties and required names united; for other
    keywords a later part overrides an earlier one and the node's own keywords win."""
    merged: dict[str, Any] = {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for part in [*node["allOf"], {k: v for k, v in node.items() if k != "allOf"}]:
        if not isinstance(part, dict):
            continue
        if isinstance(part.get("allOf"), list):
            part = _flatten_all_of(part)
        properties.update(part.get("properties") or {})
        required.extend(name for name in part.get("required") or [] if name not in required)
        merged.update({k: v for k, v in part.items() if k not in ("properties", "required")})
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged
