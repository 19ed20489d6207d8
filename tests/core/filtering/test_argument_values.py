"""Which values of a consequential call must come from what the trace showed, and the calls
that send one empty or from nowhere."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.core.filtering.argument_values import fragment_of, must_be_shown, unsourced_values
from pipeline.core.model.trajectory import ToolCall
from tests.support.factories import TOOLS

_TRANSFER = next(tool for tool in TOOLS if tool.name == "transfer_funds")
_SHOWN = (
    "Pay Kessler Architekten 2,380 from my current account for invoice 553.\n"
    '{"accounts": [{"account_id": "acc_current_01"}],'
    ' "payees": [{"name": "Kessler Architekten", "iban": "DE89 3704 0044 0532 0130 00"}]}'
)


def _call(**arguments: Any) -> ToolCall:
    base = {
        "from_account": "acc_current_01",
        "to_iban": "DE89 3704 0044 0532 0130 00",
        "amount": 2380.0,
        "options": {"reference": "Invoice 553, architectural drawings for the Harlow house"},
    }
    return ToolCall(name=_TRANSFER.name, arguments={**base, **arguments})


def test_a_call_whose_every_value_the_trace_showed_passes() -> None:
    assert unsourced_values(_call(), _TRANSFER, _SHOWN) == []


@pytest.mark.parametrize(
    ("changed", "problem"),
    [
        ({"amount": 16420.0}, "amount=16420.0 appears nowhere"),
        ({"to_iban": "GB33 MONZ 1234 5678 9012"}, "to_iban=GB33 MONZ 1234 5678 9012 appears"),
        ({"from_account": "acc_savings_02"}, "from_account=acc_savings_02 appears nowhere"),
        ({"to_iban": ""}, "to_iban is sent empty"),
    ],
)
def test_an_amount_record_or_recipient_from_nowhere_or_empty_is_named(
    changed: dict[str, Any], problem: str
) -> None:
    found = unsourced_values(_call(**changed), _TRANSFER, _SHOWN)
    assert len(found) == 1 and problem in found[0]


def test_text_the_agent_writes_and_options_of_the_schema_are_its_own() -> None:
    assert not must_be_shown("reason", {}, "Approved after the adjuster's visit on Thursday")
    assert not must_be_shown("method", {"type": "string", "enum": ["ach"]}, "ach")
    assert not must_be_shown("notify", {"type": "boolean"}, True)
    assert not must_be_shown("copies", {"type": "integer"}, 2)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("table", "add"),  # an identifier by its field's name, however plain the word
        ("recipient_email", "j.ortiz@paperco.example.com"),
        ("assignee", "Billing queue"),
        ("index_name", "orders_customer_id_idx"),  # a token only a machine reads
        ("columns", ["customer_id"]),
    ],
)
def test_identifiers_and_recipients_must_be_shown(name: str, value: Any) -> None:
    schema = {"type": "array", "items": {"type": "string"}} if isinstance(value, list) else {}
    assert must_be_shown(name, schema, value)


@pytest.mark.parametrize(
    ("value", "said", "cut"),
    [
        ("SFO", "Book the UA901 LHR-SFO economy offer.", False),  # a route's destination
        ("LHR", "Book the UA901 LHR-SFO economy offer.", False),
        ("approval", "It needs pre-approval first.", True),  # a piece of a hyphenated word
        ("SFO", "Fly to XSFO-1 tomorrow.", True),
    ],
)
def test_a_code_joined_to_another_by_a_hyphen_is_whole(value: str, said: str, cut: bool) -> None:
    assert fragment_of(value, said) is cut


def test_a_day_said_in_words_is_whole_though_a_file_name_holds_it() -> None:
    """'Notes from the site visit on 20 September' filters `modified_after: 2024-09-20`;
    that the file found is Harlow_Site_Visit_2024-09-20.txt makes it no fragment."""
    said = "Find my notes from the site visit on 20 September. Harlow_Site_Visit_2024-09-20.txt"
    assert not fragment_of("2024-09-20", said)
    assert fragment_of("Site_Visit", "Harlow_Site_Visit_2024-09-20.txt")


def test_the_name_a_create_gives_what_it_makes_is_the_agents_own() -> None:
    """A branch nobody named ('create a branch off main') is named by the agent; another
    record's name from nowhere is still caught."""
    create = next(tool for tool in TOOLS if tool.name == "transfer_funds").model_copy(
        update={"name": "repo_create_branch"}
    )
    made = ToolCall(name="repo_create_branch", arguments={"branch_name": "fix/issue-1317"})
    assert unsourced_values(made, create, "Create a branch off main.") == []
    other = ToolCall(name="repo_create_branch", arguments={"repo_name": "northwind/secret"})
    assert unsourced_values(other, create, "Create a branch off main.") != []
