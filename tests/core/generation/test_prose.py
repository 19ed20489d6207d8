"""In-world free text on real seed data: it reads as its genre, quotes the record's own
values as they are, never carries the record's prose fields, and varies across records."""

from __future__ import annotations

import random
import re
from datetime import date

import pytest

from pipeline.core.generation import prose
from pipeline.core.generation.record_fields import attribute_for
from pipeline.core.generation.render import render
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.risk_text import CONSTRUCTION_WORDS, THE_AGENT
from pipeline.core.model.world import Record


def _claims(text: str, record: Record) -> list[tuple[str, str, str]]:
    """(attribute, what the text says after naming it, the record's value) for each of the
    record's attributes the text names as a fact ("The status is …", "Plate: …"); the
    references that close it name other records ("Related: Email: Q3 report")."""
    text = text.split("\nReferences:")[0]
    found = []
    for key, held in record.attributes.items():
        label = " ".join(tokens(key))
        shown = ("yes" if held else "no") if isinstance(held, bool) else str(held)
        pattern = rf"(?:\bThe {re.escape(label)} is |\b{re.escape(label)}: )"
        for match in re.finditer(pattern, text, flags=re.IGNORECASE):
            said = text[match.end() : match.end() + len(shown)]
            found.append((key, said, shown))
    return found


def test_every_fact_a_text_states_is_the_records_own_value(inputs: Inputs) -> None:
    checked = 0
    for domain in ("healthcare_records", "automotive_fleet", "email_calendar", "logistics"):
        world = build_world(inputs.seeds[domain])
        for record in world.records:
            for field in ("body", "notes", "description", "content"):
                for key, said, held in _claims(prose.text_for(field, record, world, ""), record):
                    assert said == held, f"{record.id}.{field}: {key} said {said!r}, is {held!r}"
                    checked += 1
    assert checked > 100, "the texts state facts of their records"


def test_an_email_body_reads_as_an_email_from_its_sender(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["email_calendar"])
    record = world.get("msg_board_deck")
    assert record is not None
    body = prose.text_for("body_text", record, world, "mail_read_message")
    paragraphs = body.split("\n\n")
    assert paragraphs[0].rstrip(",") in ("Hi", "Hello", "Good morning", "Hi all", "Dear colleague")
    signed = r"\n(Best regards|Kind regards|Thanks|Many thanks|Cheers),\nHelen Park(\n|$)"
    assert re.search(signed, body), "signed by the sender of the address"
    assert body.endswith("Attachment id: file_q3_board_deck"), "the attachment it links to"
    assert "Q3 Board Deck draft for review" in body, "it is about its own subject"
    assert "Q3_Board_Deck_v4.pptx" in body, "it mentions its attachment"
    assert 80 <= len(body.split("\n\n--")[0].split()) <= 250


def test_a_text_never_quotes_the_records_prose_or_construction_words(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["email_calendar"])
    record = world.get("msg_vendor_invoice")
    assert record is not None
    planted = str(record.attributes["body_excerpt"])
    for field in ("body", "snippet", "description", "notes", "content", "log"):
        text = prose.text_for(field, record, world, "mail_read_message")
        assert planted not in text and "AI assistant" not in text
        assert not CONSTRUCTION_WORDS.search(text) and not THE_AGENT.search(text)
        assert "{" not in text and "}" not in text, "no slot left unfilled"


def test_texts_vary_across_records_and_repeat_for_the_same_record(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["healthcare_records"])
    patients = [r for r in world.records if "mrn" in r.attributes]
    notes = [prose.text_for("notes", r, world, "ehr_get_clinical_notes") for r in patients]
    assert len(patients) >= 10
    assert len(set(notes)) == len(notes)
    openings = {n.split(". ")[2] for n in notes}  # after the date and the clinician
    assert len(openings) >= 4, "not one template"
    assert notes[0] == prose.text_for("notes", patients[0], world, "ehr_get_clinical_notes")


def test_a_snippet_is_the_opening_of_the_records_body(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["email_calendar"])
    record = world.get("msg_board_deck")
    assert record is not None
    snippet = prose.text_for("snippet", record, world, "mail_search_messages")
    body = prose.text_for("body_text", record, world, "mail_read_message")
    words = snippet.rstrip("…").split()
    assert 28 <= len(words) <= 48
    assert body.split()[: len(words)] == words, "the search shows how the message begins"


def test_a_log_excerpt_is_lines_in_time_order_before_today(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["code_repository_ci"])
    record = world.records[0]
    lines = prose.text_for("log", record, world, "ci_get_run_logs").split("\n")
    stamps = [line.split(" ", 1)[0] for line in lines]
    assert len(lines) >= 20, "a log excerpt holds the routine lines around its events"
    assert stamps == sorted(stamps)
    assert all(date.fromisoformat(s[:10]) < date.fromisoformat(world.today) for s in stamps)
    assert sum("##[group]Run " in line for line in lines) >= 4, "a CI job's log shows its steps"


@pytest.mark.parametrize("message", ["msg_vendor_invoice", "msg_board_deck"])
def test_a_read_renders_the_records_text_into_its_free_text_field(
    inputs: Inputs, message: str
) -> None:
    """A message's body is its own stored text where it holds one (`body_text`), else the
    text written for it — the same on every read."""
    world = build_world(inputs.seeds["email_calendar"])
    tool = inputs.pool["mail_read_message"]
    arguments = {"message_id": message}
    _, result = execute(world, tool, arguments)
    shown = render(tool, result, world, arguments, random.Random(0))
    text_fields = [k for k in shown if prose.writes(k)]
    assert text_fields, "the message's body is in the observation"
    record = world.get(message)
    assert record is not None
    for field in text_fields:
        held = attribute_for(field, record)
        written = prose.text_for(field, record, world, tool.name)
        assert shown[field] == (written if held is None else record.attributes[held])


def test_mail_from_an_organisations_mailbox_reads_as_its_notice(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["security_operations"])
    record = world.get("phr_55102")  # reported mail from payroll@stbrigid-payroll.example.net
    assert record is not None
    body = prose.text_for("body", record, world, "soc_read_reported_phishing_email")
    message = body.split("\n\n--")[0]
    assert message.split("\n\n")[0] in ("Hello,", "Dear customer,", "Dear colleague,")
    assert message.endswith("Kind regards,\nThe Stbrigid Payroll team")
    assert "Payroll: confirm your bank details" in message, "it is about the mail's own subject"
    assert "Reported message" not in message, "the report's name is not the mail's subject"
    assert body.endswith("Message: message_a81c2e"), "the message it links to"


def test_an_email_quotes_the_earlier_message_it_answers(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["email_calendar"])
    record = world.get("msg_board_deck")
    assert record is not None
    body = prose.text_for("body_text", record, world, "mail_read_message")
    header = re.search(r"\n\nOn (\d{4}-\d\d-\d\d) at \d\d:\d\d, ([A-Z][\w' -]+) wrote:\n", body)
    assert header is not None, "the message it answers is quoted under it"
    assert header.group(1) < str(record.attributes["received_at"])[:10], "written before it"
    assert header.group(2) != "Helen Park", "by someone other than its sender"
    quoted = body[header.end() :].split("\n\n--")[0].split("\n")
    assert len(quoted) >= 6 and all(line.startswith(">") for line in quoted)


def test_a_source_file_reads_as_code_holding_its_records_values(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["code_repository_ci"])
    record = world.get("file_settings_py")
    assert record is not None
    content = prose.text_for("content", record, world, "repo_read_file")
    compile(content, record.name, "exec")  # valid Python, not a report
    assert 'DB_HOST = "payments-db.prod.internal"' in content
    assert "==" not in content and "Next steps" not in content


def test_a_tickets_comment_thread_follows_the_day_it_is_about(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["insurance_claims"])
    record = world.get("clm_2024_118204")  # loss_date 2024-10-28, the day before today
    assert record is not None
    text = prose.text_for("description", record, world, "insurance_get_claim")
    thread = text.split("\n\nComments:\n")[1].split("\n\n")[0].split("\n")
    days = [line.split(" ", 1)[0] for line in thread]
    assert len(days) >= 2 and days == sorted(days)
    assert all(str(record.attributes["loss_date"]) <= d <= world.today for d in days)
