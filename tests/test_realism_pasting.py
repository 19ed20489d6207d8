"""The pasted-instruction figure of `benchmarks.realism`: a text holding the opening of what
the user told the agent is counted; the words the user dictated for the text are not."""

from __future__ import annotations

from benchmarks.realism import instruction_openings, word_runs

REQUEST = (
    "Hi there. Reply in the database failover thread in #eng-incidents that the root-cause "
    "doc is ready for review, then add a note to the incident that the review is booked."
)


def _pastes(text: str) -> bool:
    return bool(word_runs(text) & instruction_openings(REQUEST))


def test_the_instruction_pasted_as_the_text_is_counted() -> None:
    assert _pastes(REQUEST)
    assert _pastes("add a note to the incident that the review is booked for Friday")


def test_the_dictated_words_are_not_counted() -> None:
    assert not _pastes("The root-cause doc is ready for review in the failover thread today.")
    assert not _pastes("Hi there, the review is booked.")


def test_what_the_user_states_is_a_notes_to_keep() -> None:
    """'Note that on TCK-88120': the statement before it is the note, not a pasted ask."""
    said = "The engineer swapped the faulty ONT and the line has been stable. Note that on it."
    openings = instruction_openings(said)
    assert not word_runs("The engineer swapped the faulty ONT and the line has been") & openings
    asked = "See where the claim stands and send her a short, honest update today."
    assert word_runs(asked) & instruction_openings(asked)
