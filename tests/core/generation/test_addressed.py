"""A message says what the user told it to, to its reader, without the talk around it."""

from __future__ import annotations

from pipeline.core.generation.addressed import as_written, is_chatter, to_reader


def test_her_as_the_object_is_you_and_as_the_owner_is_your() -> None:
    """A message ended '… will go through it with your.'"""
    assert to_reader("Jordan will go through it with her.") == "Jordan will go through it with you."
    assert to_reader("she can bring her timeline to her review") == (
        "you can bring your timeline to your review"
    )


def test_a_note_on_manner_is_dropped_and_each_that_clause_is_said_once() -> None:
    """15 messages read 'Your prescription is ready, keeping it discreet.'"""
    assert as_written("your prescription is ready, keeping it discreet") == (
        "your prescription is ready"
    )
    assert as_written("prices are at /trade and that Leah will follow up") == (
        "prices are at /trade, and Leah will follow up"
    )
    assert as_written("don't stop it, that stopping can cause withdrawal") == (
        "don't stop it; stopping can cause withdrawal"
    )


def test_thanks_a_change_of_subject_urgency_and_who_the_user_is_are_chatter() -> None:
    for talk in (
        "Good.",
        "Next something else.",
        "Thanks for that.",
        "Time matters a little here as I'm about to go into meetings.",
        "I'm Elena Delgado's caseworker.",
    ):
        assert is_chatter(talk), talk
    for content in (
        "The engineer fixed the line, and it's stable.",
        "Good news: the refund cleared on Monday.",
        "I'm sure the invoice was paid twice.",
    ):
        assert not is_chatter(content), content


def test_saying_who_is_writing_is_chatter() -> None:
    assert is_chatter("Oluwaseun here, as admin")
    assert is_chatter("Sam here.")
    assert not is_chatter("The courier is here with the parcel.")
