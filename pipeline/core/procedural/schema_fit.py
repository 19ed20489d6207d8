"""A fast JSON-Schema fit for the keywords the tool pool uses, and the nudges that make a
value fit (a number into its bounds, a string to its length); the tests check against the
real `jsonschema`."""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from datetime import date
from functools import lru_cache
from typing import Any

from pipeline.core.generation.plausible import schema_type

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NON_WORD = re.compile(r"[^a-zA-Z0-9]+")


@lru_cache(maxsize=1 << 16)
def name_tokens(field_name: str) -> tuple[str, ...]:
    """`fromAccountId` / `from_account_id` -> ('from', 'account', 'id'); kept per name, since
    synthesis asks it of every entity attribute for every field it fills."""
    spaced = _CAMEL.sub("_", field_name)
    return tuple(t for t in _NON_WORD.split(spaced.lower()) if t)


def resolve(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """Flatten `allOf`, and take the first non-null branch of `anyOf` / `oneOf`."""
    merged: dict[str, Any] = dict(schema)
    for key in ("anyOf", "oneOf"):
        options = merged.pop(key, None)
        if options:
            chosen = next((o for o in options if o.get("type") != "null"), options[0])
            merged.update(resolve(chosen))
    for part in merged.pop("allOf", None) or []:
        merged.update(resolve(part))
    return merged


def type_of(schema: Mapping[str, Any]) -> str:
    kind = schema_type(schema, unknown="enum" if "enum" in schema else "string")
    return "null" if kind in ("enum", "string") and schema.get("type") == ["null"] else kind


def coerce(value: Any, schema: Mapping[str, Any]) -> Any:
    """Nudge a hinted value into the schema's type when the intent is unambiguous."""
    kind = type_of(resolve(schema))
    try:
        if kind == "number" and isinstance(value, str):
            return float(value.replace(",", ""))
        if kind == "integer" and isinstance(value, str | float) and not isinstance(value, bool):
            number = float(str(value).replace(",", ""))
            return int(number) if number.is_integer() else value
        if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        if kind == "array" and not isinstance(value, list):
            return [value]
    except ValueError:
        return value
    return value


def fits(value: Any, schema: Mapping[str, Any]) -> bool:
    """A fast structural check of the keywords the tool pool uses (the tests use jsonschema)."""
    schema = resolve(schema)
    if "const" in schema:
        return bool(value == schema["const"])
    if "enum" in schema and value not in schema["enum"]:
        return False
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind] if kind else []
    if kinds and not any(_is_type(value, k) for k in kinds):
        return False
    if isinstance(value, str):
        if len(value) < int(schema.get("minLength", 0)):
            return False
        if "maxLength" in schema and len(value) > int(schema["maxLength"]):
            return False
        if "pattern" in schema and not re.search(schema["pattern"], value):
            return False
        return _format_ok(value, schema.get("format"))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number_ok(value, schema)
    if isinstance(value, list):
        if len(value) < int(schema.get("minItems", 0)):
            return False
        if "maxItems" in schema and len(value) > int(schema["maxItems"]):
            return False
        items = schema.get("items")
        return not isinstance(items, Mapping) or all(fits(v, items) for v in value)
    if isinstance(value, dict):
        properties: Mapping[str, Any] = schema.get("properties") or {}
        if any(key not in value for key in schema.get("required") or []):
            return False
        if schema.get("additionalProperties") is False and set(value) - set(properties):
            return False
        return all(fits(v, properties[k]) for k, v in value.items() if k in properties)
    return True


def _is_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if kind == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    checks: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "boolean": bool,
        "object": dict,
        "array": list,
        "null": type(None),
    }
    expected = checks.get(kind)
    return expected is None or isinstance(value, expected)


def _number_ok(value: float, schema: Mapping[str, Any]) -> bool:
    if "minimum" in schema and value < schema["minimum"]:
        return False
    if "maximum" in schema and value > schema["maximum"]:
        return False
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        return False
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        return False
    step = schema.get("multipleOf")
    return not step or math.isclose(round(value / step) * step, value, abs_tol=1e-9)


def _format_ok(value: str, fmt: Any) -> bool:
    if fmt == "date":
        return _parses(date.fromisoformat, value) and len(value) == 10
    if fmt == "date-time":
        return bool(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", value))
    if fmt in {"email", "idn-email"}:
        return bool(re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", value))
    if fmt in {"uri", "url", "iri"}:
        return bool(re.fullmatch(r"[a-z][a-z0-9+.-]*://\S+", value))
    return True


def _parses(parser: Any, value: str) -> bool:
    try:
        parser(value)
    except ValueError:
        return False
    return True


def fit_number(
    value: float, schema: Mapping[str, Any], kind: str, rng: random.Random
) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    if low is not None and high is not None and not (low <= value <= high):
        value = rng.uniform(low, high) if kind == "number" else rng.randint(math.ceil(low), high)
    elif low is not None and value < low:
        value = low + abs(value)
    elif high is not None and value > high:
        value = high * rng.uniform(0.3, 0.9) if high > 0 else high
    step = schema.get("multipleOf")
    if step:
        value = round(value / step) * step
    elif kind == "integer":
        value = round(value)
    else:
        value = round(float(value), 2)
    nudge = step or (1 if kind == "integer" else 0.01)
    if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
        value = schema["exclusiveMinimum"] + nudge
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        value = schema["exclusiveMaximum"] - nudge
    if kind == "integer":
        result = round(value)
        if low is not None and result < low:
            result = math.ceil(low)
        if high is not None and result > high:
            result = math.floor(high)
        return result
    return float(value)


def fit_length(text: str, schema: Mapping[str, Any], rng: random.Random) -> str:
    low = int(schema.get("minLength", 0))
    while len(text) < low:
        text += " " + rng.choice(["details", "pending", "noted", "reviewed"])
    if "maxLength" in schema:
        text = text[: int(schema["maxLength"])].rstrip() or text[: int(schema["maxLength"])]
    return text
