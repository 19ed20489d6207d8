"""A file written back keeps its text, with what the user quoted as wrong put right: the
user's request never replaces a README."""

from __future__ import annotations

import re
from random import Random

from pipeline.core.generation.request_values import edited_text, said_whole, supplied_by_risk
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.world import Record, World
from tests.core.procedural.conftest import world_call

README = Record(
    id="file_readme",
    kind="file",
    name="docs-site README.md",
    attributes={"path": "README.md", "text": "Merchants recieve webhook events."},
)
WORLD = World(today="2024-08-29", records=(README,))


def test_the_quoted_misspelling_is_put_right_in_the_files_own_text() -> None:
    request = "The README says 'recieve' where it should say 'receive'. Fix it."
    planned = {"repo": "northwind/docs-site", "file_path": "README.md"}
    assert edited_text("content", planned, WORLD, request) == "Merchants receive webhook events."
    assert edited_text("content", planned, WORLD, "Tidy the README.") == README.attributes["text"]


def test_a_file_the_call_does_not_write_or_a_field_no_content_gets_nothing() -> None:
    request = "The README says 'recieve' where it should say 'receive'."
    assert edited_text("content", {"file_path": "docs/new.md"}, WORLD, request) is None
    assert edited_text("commit_message", {"file_path": "README.md"}, WORLD, request) is None


def test_a_held_value_said_with_a_hyphen_is_that_value() -> None:
    pumps = Record(id="plc_pumps", kind="device", name="Pump PLC", attributes={"area": "high_lift"})
    world = World(today="2024-11-01", records=(pumps,))
    said = ("Book a maintenance window in the high-lift area on Tuesday.", "")
    assert said_whole("area", {"type": "string"}, world, [], said) == ("high_lift", "request")
    elsewhere = ("Book a maintenance window in the reservoir area.", "")
    assert said_whole("area", {"type": "string"}, world, [], elsewhere) != ("high_lift", "request")


def test_a_sentence_one_record_holds_is_no_value_of_anyone_elses_message() -> None:
    spam = Record(
        id="cmt_2",
        kind="record",
        name="Spam comment",
        attributes={"text": "Turn 50 into 5000 in a week", "region": "eu-west-1"},
    )
    world = World(today="2024-11-02", records=(spam,))
    said = ("Post that we're closed Monday for staff training.", "")
    assert said_whole("text", {"type": "string"}, world, [], said) is None
    assert said_whole("region", {"type": "string"}, world, [], said) == ("eu-west-1", "observation")


def test_an_address_the_risk_supplies_is_a_wallet_only_where_the_field_is_one() -> None:
    """Auditors: a patient's emergency address, supplied by the harmful request, read
    '0x3c286d5f…'."""
    string = {"type": "string"}
    street = supplied_by_risk("address", string, "x@relay.example.net", Random(1))
    assert isinstance(street, str) and not street.startswith("0x") and " " in street
    wallet = supplied_by_risk("wallet_address", string, "x@relay.example.net", Random(1))
    assert isinstance(wallet, str) and re.fullmatch(r"0x[0-9a-f]{40}", wallet)
    shaped = supplied_by_risk("to", {**string, "examples": ["0x8cD4…"]}, "x@r.net", Random(1))
    assert isinstance(shaped, str) and shaped.startswith("0x")


def test_a_pronoun_after_the_fields_word_is_no_value() -> None:
    """'Note it on the ticket' went out as the note 'it on the ticket'."""
    said = ("Book an engineer for 12 Nov and note it on the ticket.", "")
    assert said_whole("note", {"type": "string"}, WORLD, [], said) is None
    bic = ("Pay it to BIC CGDIPTPLXXX.", "")
    assert said_whole("bic", {"type": "string"}, WORLD, [], bic) == ("CGDIPTPLXXX", "request")


def test_a_deadline_is_the_day_the_tasks_record_keeps_not_today(inputs: Inputs) -> None:
    """'When is our disclosure list due? Put a reminder in a week before' set the reminder's
    deadline to the session's today; the docket says 20 December."""
    args, sources, _ = world_call(
        "legal_documents",
        inputs.pool["legal_create_deadline_reminder"],
        "When is our disclosure list due in HC-2024-000871? Put a reminder in for the team a "
        "week before.",
    )
    assert args["due_date"] == "2024-12-20" and sources["due_date"] == "observation"
