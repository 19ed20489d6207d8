"""Checks on what an observation says against what the world answered.

An LLM may word an observation, never change what the world fixed: ids, numbers, statuses,
the records a listing holds. A tool that finds nothing answers with an error object.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}
"""What a tool returns when the world has no such record: APIs answer errors, not data."""


def contradicts(result: Mapping[str, Any], observation: Mapping[str, Any]) -> str | None:
    """A value the world fixed (an id, a number, a status) that the observation changed.

    Text fields may be reworded; identifiers and numbers may not.
    """
    for key, expected in result.items():
        if key not in observation:
            continue
        actual = observation[key]
        if isinstance(expected, Mapping) and isinstance(actual, Mapping):
            found = contradicts(expected, actual)
            if found:
                return f"{key}.{found}"
        elif isinstance(expected, list) and isinstance(actual, list):
            ids = {i for v in expected if (i := _identity(v)) is not None}
            got = {i for v in actual if (i := _identity(v)) is not None}
            if ids and not ids <= got:
                return f"{key}: records {sorted(ids - got)} are missing"
        elif _fixed(key, expected) and expected != actual and not _annotated(expected, actual):
            return f"{key}: the world says {expected!r}, the observation {actual!r}"
    return None


SIDE_EFFECT_FIELD = "message"
"""Where a misbehaving tool whose result has no text field of its own reports what else it
did: beside its result, in a field its schema does not promise."""


def world_fixed_schema(
    schema: Mapping[str, Any],
    result: Mapping[str, Any],
    *,
    planted: bool,
    free: str | None,
    side_effect: bool = False,
) -> dict[str, Any]:
    """The tool's result schema with what the world fixed (`_fixed`: ids, numbers, statuses;
    and, when nothing is planted, the records a listing holds) as `const` and required, so a
    model that follows the schema cannot contradict the world; text stays free to word. A
    planted observation keeps its statuses and lists free, where the planted text may go,
    `free` names a field that holds a page of its own, and a misbehaving tool (`side_effect`)
    has a field to say what else it did."""
    properties = dict(schema.get("properties") or {})
    required = list(schema.get("required") or [])
    for key, expected in result.items():
        sub = properties.get(key) or {}
        if key == free:
            continue
        if isinstance(expected, Mapping):
            properties[key] = world_fixed_schema(sub, expected, planted=planted, free=None)
        elif isinstance(expected, list):
            if planted or not any(_identity(v) is not None for v in expected):
                continue
            properties[key] = _const(sub, expected)
        elif _fixed(key, expected) and not (planted and isinstance(expected, str)):
            properties[key] = _const(sub, expected)
        else:
            continue
        if key not in required:
            required.append(key)
    if side_effect and SIDE_EFFECT_FIELD not in properties:
        properties[SIDE_EFFECT_FIELD] = {"type": "string", "description": "What else the call did"}
    return {**schema, "properties": properties, "required": required}


def _const(schema: Mapping[str, Any], value: Any) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k == "description"} | {"const": value}


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def _annotated(expected: Any, actual: Any) -> bool:
    """A status the tool kept and added to ('sent — also forwarded a copy')."""
    return isinstance(expected, str) and isinstance(actual, str) and actual.startswith(expected)


def _identity(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return next((str(v) for k, v in value.items() if k.endswith("id")), None)
    return None


def _fixed(key: str, value: Any) -> bool:
    if isinstance(value, bool | int | float):
        return True
    return isinstance(value, str) and (key.endswith("id") or key in ("status", "state"))


@dataclass(frozen=True)
class Overwrite:
    """Corrupted feedback in a tool's own data: every `field` holding `right` holds `wrong`
    (a profile whose customer id is another customer's, a case file with another case's id)."""

    field: str
    right: Any
    wrong: Any

    def holds(self, value: Any) -> bool:
        """Whether a JSON value has the field at its right value somewhere."""
        if isinstance(value, Mapping):
            return self._here(value) or any(self.holds(v) for v in value.values())
        return isinstance(value, list) and any(self.holds(v) for v in value)

    def apply(self, value: Any) -> int:
        """Change the value in place; how many fields changed."""
        changed = 0
        if isinstance(value, dict):
            if self._here(value):
                value[self.field] = self.wrong
                changed += 1
            changed += sum(self.apply(v) for v in value.values())
        elif isinstance(value, list):
            changed += sum(self.apply(v) for v in value)
        return changed

    def _here(self, value: Mapping[str, Any]) -> bool:
        return self.field in value and _same(value[self.field], self.right)


def _same(held: Any, right: Any) -> bool:
    plain = not isinstance(held, dict | list)
    return plain and isinstance(held, bool) == isinstance(right, bool) and held == right
