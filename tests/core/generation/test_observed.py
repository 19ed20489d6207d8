"""What an observation may word and what the world fixed: `world_fixed_schema` puts the fixed
values in the schema, so a schema-following model cannot break `contradicts`."""

from __future__ import annotations

from typing import Any

from pipeline.core.generation.observed import Overwrite, contradicts, world_fixed_schema
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


def test_an_overwrite_changes_every_field_holding_the_right_value_and_only_those() -> None:
    """A tool's wrong data: the profile's own id and the ticket's customer id both turn to
    another customer's, a field of the same value under another name does not."""
    result: dict[str, Any] = {
        "customer_id": "cust_10442",
        "tickets": [{"customer_id": "cust_10442"}, {"customer_id": "cust_41207"}],
        "account_ref": "cust_10442",
        "open": 1,
    }
    overwrite = Overwrite("customer_id", "cust_10442", "cust_91727")
    assert overwrite.holds(result)
    assert overwrite.apply(result) == 2
    assert result["customer_id"] == result["tickets"][0]["customer_id"] == "cust_91727"
    assert result["tickets"][1]["customer_id"] == "cust_41207"
    assert result["account_ref"] == "cust_10442"
    assert not overwrite.holds(result)


def test_an_overwrite_tells_a_flag_from_a_number() -> None:
    """JSON's `true` is not the integer 1, though Python's `True == 1`."""
    assert not Overwrite("open", 1, 5).holds({"open": True})
    assert Overwrite("open", 1, 5).holds({"open": 1})
