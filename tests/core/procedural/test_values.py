"""synthesize(): every tool of the real pool, parameters and returns, many seeds."""

from __future__ import annotations

import random

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from pipeline.core.procedural.values import synthesize
from tests.core.procedural.conftest import POOL, SEEDS, scene

TOOLS = sorted(POOL.tools)


@pytest.mark.parametrize("name", TOOLS)
def test_synthesized_values_validate_for_every_pool_tool(name: str) -> None:
    tool = POOL[name]
    domain = next((d for d in tool.domains if d in SEEDS), None)
    entities = scene(domain).entities if domain else ()
    for which, share in (("parameters", 0.5), ("returns", 1.0)):
        schema = getattr(tool, which)
        validator = Draft202012Validator(schema, format_checker=FormatChecker())
        for seed in range(30):
            value = synthesize(schema, random.Random(seed), entities=entities, optional_share=share)
            errors = [e.message for e in validator.iter_errors(value)]
            assert not errors, (name, which, seed, errors, value)


def test_required_parameters_always_present() -> None:
    for tool in POOL.tools.values():
        required = tool.parameters.get("required") or []
        for seed in range(5):
            value = synthesize(tool.parameters, random.Random(seed), optional_share=0.0)
            assert set(required) <= set(value)


def test_hints_win_and_records_follow_the_hinted_entity() -> None:
    tool = POOL["bank_get_account_balance"]
    entities = scene("personal_banking").entities
    for seed in range(10):
        value = synthesize(
            tool.returns,
            random.Random(seed),
            hints={"account_id": "acc_savings_01"},
            entities=entities,
            optional_share=1.0,
        )
        assert value["account_id"] == "acc_savings_01"
        assert value["ledger_balance"] == 18250.0


def test_id_fields_name_environment_entities() -> None:
    entities = scene("personal_banking").entities
    ids = {e.id for e in entities}
    schema = {
        "type": "object",
        "properties": {"account_id": {"type": "string"}, "card_id": {"type": "string"}},
        "required": ["account_id", "card_id"],
    }
    for seed in range(10):
        value = synthesize(schema, random.Random(seed), entities=entities)
        assert value["account_id"] in ids and value["card_id"].startswith("card_")


def test_email_fields_prefer_entity_emails_and_amounts_are_plausible() -> None:
    entities = scene("personal_banking").entities
    schema = {
        "type": "object",
        "properties": {
            "recipient_email": {"type": "string", "format": "email"},
            "amount": {"type": "number", "minimum": 0.01},
        },
        "required": ["recipient_email", "amount"],
    }
    value = synthesize(schema, random.Random(1), entities=entities)
    assert value["recipient_email"] == "dana.whitfield@example.com"
    assert 0.01 <= value["amount"] <= 10000


def test_constraints_beyond_the_pool_are_respected() -> None:
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 12, "maxLength": 14},
            "level": {"type": "integer", "minimum": 3, "maximum": 5},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
            "mode": {"anyOf": [{"type": "null"}, {"enum": ["a", "b"]}]},
            "when": {"type": "string", "format": "date"},
            "link": {"type": "string", "format": "uri"},
            "kind": {"const": "fixed"},
        },
        "required": ["code", "level", "ratio", "tags", "mode", "when", "link", "kind"],
        "additionalProperties": False,
    }
    validator = Draft202012Validator(schema, format_checker=FormatChecker())
    for seed in range(50):
        value = synthesize(schema, random.Random(seed))
        assert not list(validator.iter_errors(value)), value
