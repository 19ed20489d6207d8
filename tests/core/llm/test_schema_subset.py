"""The portable JSON Schema subset: every answer schema the project sends stays inside it."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import pytest

import pipeline.core
from pipeline.core.generation.roles import OBSERVATION, TOOL_CALL, Role
from pipeline.core.llm.schema_subset import subset_problems
from tests.support.inputs import repository_inputs


def all_roles() -> list[Role[Any, Any]]:
    """Every Role defined anywhere in pipeline.core (generator roles, judges), found by import."""
    found: dict[str, Role[Any, Any]] = {}
    for module in pkgutil.walk_packages(pipeline.core.__path__, "pipeline.core."):
        for value in vars(importlib.import_module(module.name)).values():
            if isinstance(value, Role):
                found[value.name] = value
    return sorted(found.values(), key=lambda role: role.name)


def sent_schema(role: Role[Any, Any], overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The output schema `Role.request` builds, with the overrides construction passes."""
    request = role.request(
        role.input_type.model_construct(),
        stage="test",
        domain="test",
        item_id="test",
        schema_overrides=overrides,
    )
    return request.output_schema


@pytest.mark.parametrize("role", all_roles(), ids=lambda role: role.name)
def test_each_role_answer_schema_is_in_the_subset(role: Role[Any, Any]) -> None:
    assert subset_problems(sent_schema(role)) == []


def test_tool_calls_and_observations_of_every_pool_tool_are_in_the_subset() -> None:
    pool = repository_inputs().pool
    problems = {}
    for tool in pool.tools.values():
        # The same overrides construction's _Asker.call and _Asker.observe pass.
        call = sent_schema(
            TOOL_CALL,
            {"tool": {"type": "string", "enum": [tool.name]}, "arguments": tool.parameters},
        )
        observation = sent_schema(OBSERVATION, {"observation": tool.returns})
        found = subset_problems(call) + subset_problems(observation)
        if found:
            problems[tool.name] = found
    assert problems == {}


OBJECT: dict[str, Any] = {"type": "object"}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "array", "items": {"type": "string"}}, "$: the root must be an object"),
        (
            {**OBJECT, "properties": {"a": {"oneOf": [{"type": "string"}]}}},
            "$.properties.a: keyword 'oneOf' is outside the subset",
        ),
        ({**OBJECT, "required": ["a"]}, "$.required: 'a' has no property schema"),
        (
            {**OBJECT, "additionalProperties": {"type": "string"}},
            "$.additionalProperties: must be true or false",
        ),
        (
            {**OBJECT, "properties": {"a": {"type": "string", "pattern": "[0-9]+"}}},
            "$.properties.a.pattern: '[0-9]+' must be anchored",
        ),
        (
            {**OBJECT, "properties": {"a": {"type": "string", "format": "iban"}}},
            "$.properties.a.format: 'iban' is not one of",
        ),
        (
            {**OBJECT, "properties": {"a": {"type": "array", "items": [{"type": "string"}]}}},
            "$.properties.a.items: must be one schema",
        ),
        (
            {**OBJECT, "properties": {"a": {"$ref": "#/$defs/Missing"}}},
            "$.properties.a.$ref: '#/$defs/Missing' does not resolve",
        ),
        (
            {**OBJECT, "properties": {"a": {"enum": [{"x": 1}]}}},
            "$.properties.a.enum: {'x': 1} is not a scalar",
        ),
        ({**OBJECT, "properties": {"a": {"type": "date"}}}, "$.properties.a: type 'date'"),
    ],
    ids=[
        "root",
        "oneOf",
        "required",
        "additional-schema",
        "pattern",
        "format",
        "tuple",
        "ref",
        "enum",
        "type",
    ],
)
def test_each_rule_names_the_place_that_leaves_the_subset(
    schema: dict[str, Any], expected: str
) -> None:
    problems = subset_problems(schema)
    assert len(problems) == 1 and problems[0].startswith(expected), problems


def test_refs_anyof_and_validated_after_keywords_are_accepted() -> None:
    schema = {
        "type": "object",
        "$defs": {"Id": {"type": "string", "pattern": "^[a-z]+$", "maxLength": 8}},
        "properties": {
            "id": {"$ref": "#/$defs/Id"},
            "note": {"anyOf": [{"type": "string", "minLength": 1}, {"type": "null"}]},
            "n": {"type": "integer", "minimum": 0, "maximum": 9, "examples": [3]},
        },
        "required": ["id"],
        "additionalProperties": False,
    }
    assert subset_problems(schema) == []
