"""The surface-text figures of `benchmarks.trace_quality`: each flags what auditors flagged
and leaves the text they accepted alone."""

from __future__ import annotations

from benchmarks.surface_text import after_today, cuts, echoes, id_by_person


def test_a_cut_mid_word_is_counted_and_a_closing_ellipsis_after_a_space_is_not() -> None:
    assert cuts("stops Depot North, Unit 4, Harbour Trade….") == 1
    assert cuts("Sent the letter. More to follow …") == 0


def test_an_id_labelled_by_a_persons_name_is_found() -> None:
    assert id_by_person("apply account credit: customer id Magnus Halvorsen, amount 15")
    assert not id_by_person("apply account credit for Magnus Halvorsen (customer id cust_10442)")


def test_an_argument_pasting_six_words_of_the_users_message_is_found() -> None:
    said = ["Reply to @ashford_eats's comment on the latte post with a warm thank-you."]
    assert echoes("Reply to @ashford_eats's comment on the latte post", said)
    assert not echoes("Thank you so much for the kind words!", said)


def test_a_since_day_after_today_is_found() -> None:
    assert after_today("since", "2024-12-06", "2024-12-02")
    assert not after_today("since", "2024-11-29", "2024-12-02")
    assert not after_today("departure_date", "2024-12-06", "2024-12-02")
