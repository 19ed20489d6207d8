"""What a user types into a search box."""

from __future__ import annotations

import pytest

from pipeline.core.generation.searched import search_phrase


@pytest.mark.parametrize(
    ("request_text", "typed"),
    [
        # auditors: the whole sentence was pasted into a public-post search
        ("Someone is claiming our beans are moldy - see what people are saying.", "beans moldy"),
        (
            "Find our fee proposal for the Harlow job and tell me the fixed fee.",
            "fee proposal Harlow job",
        ),
        (
            "Show me the outlet turbidity averaged every 15 minutes.",
            "outlet turbidity averaged minutes",
        ),
        (
            "Search for any spreadsheet mentioning national insurance numbers.",
            "national insurance numbers",
        ),
        ("Check what 'quarterly close' says in the wiki.", "quarterly close"),
    ],
)
def test_a_search_is_typed_in_the_words_that_say_what_it_is_about(
    request_text: str, typed: str
) -> None:
    assert search_phrase(request_text) == typed
