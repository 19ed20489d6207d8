"""What an observation may word and what the world fixed: `world_fixed_schema` puts the fixed
values in the schema, so a schema-following model cannot break `contradicts`."""

from __future__ import annotations

from typing import Any

from pipeline.core.generation.observed import contradicts, world_fixed_schema
from tests.support.chat_server import minimal_instance

RETURNS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "prescription_id": {"type": "string", "description": "The prescription."},
        "status": {"type": "string"},
        "quantity": {"type": "integer"},
        "directions": {"type": "string"},
        "prescriber": {
            "type": "object",
            "properties": {"npi_id": {"type": "string"}, "name": {"type": "string"}},
        },
        "fills": {"type": "array", "items": {"type": "object"}},
        "page": {"type": "string"},
    },
    "required": ["directions"],
}
RESULT: dict[str, Any] = {
    "prescription_id": "rx_7729001",
    "status": "on_hold",
    "quantity": 120,
    "directions": "Take one tablet twice daily",
    "prescriber": {"npi_id": "npi_1881", "name": "Dr Wei Chen"},
    "fills": [{"fill_id": "fill_1", "date": "2024-09-20"}],
    "page": "<html>…</html>",
}


def test_a_minimal_answer_to_the_fixed_schema_contradicts_nothing() -> None:
    schema = world_fixed_schema(RETURNS, RESULT, planted=False, free=None)
    answer = minimal_instance(schema)
    assert contradicts(RESULT, answer) is None
    assert answer["prescription_id"] == "rx_7729001" and answer["fills"] == RESULT["fills"]
    assert answer["prescriber"]["npi_id"] == "npi_1881"


def test_without_it_the_same_model_contradicts_the_world() -> None:
    """The check the schema now prevents: what a minimal answer to the tool's own schema did."""
    answer = minimal_instance(RETURNS) | {"prescription_id": "x"}
    assert contradicts(RESULT, answer) is not None


def test_text_stays_free_and_descriptions_stay() -> None:
    schema = world_fixed_schema(RETURNS, RESULT, planted=False, free="page")
    properties = schema["properties"]
    assert properties["directions"] == RETURNS["properties"]["directions"]
    assert properties["page"] == RETURNS["properties"]["page"]
    assert properties["prescription_id"] == {
        "description": "The prescription.",
        "const": "rx_7729001",
    }
    assert set(schema["required"]) >= {"directions", "prescription_id", "quantity", "status"}


def test_a_planted_observation_keeps_statuses_and_lists_free_for_the_planted_text() -> None:
    schema = world_fixed_schema(RETURNS, RESULT, planted=True, free=None)
    properties = schema["properties"]
    assert properties["status"] == {"type": "string"}
    assert properties["fills"] == RETURNS["properties"]["fills"]
    assert properties["quantity"] == {"const": 120}
