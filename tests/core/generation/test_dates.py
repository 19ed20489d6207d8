"""Days a request names, counted from the scenario's today: a weekday after 'since' or
'last' is behind it, any other ahead."""

from __future__ import annotations

from datetime import date

from pipeline.core.generation.dates import clock_times, spoken_date, spoken_days

MONDAY = date(2024, 12, 2)


def _days(text: str) -> list[date]:
    return [first for _, first, _ in spoken_days(text, MONDAY)]


def test_a_weekday_since_which_something_holds_is_the_one_just_gone() -> None:
    """Auditors: 'in the workshop since Friday' read trips since 2024-12-06, four days after
    today, and got October's back."""
    assert _days("Truck 42 has been in the workshop since Friday.") == [date(2024, 11, 29)]
    assert _days("What went wrong last Tuesday?") == [date(2024, 11, 26)]


def test_a_weekday_to_book_something_on_is_the_one_coming() -> None:
    assert _days("Book it in on Friday.") == [date(2024, 12, 6)]
    assert _days("Can you move it to Monday?") == [MONDAY]


def test_september_is_read_however_it_is_shortened() -> None:
    """'16 Sept' was no day at all: a report dated after today passed the seed check."""
    assert _days("E-mail, 16 Sept: the offsite moved.") == [date(2024, 9, 16)]
    assert _days("Due Sept 3 and Sep 4.") == [date(2024, 9, 3), date(2024, 9, 4)]


def test_a_day_inside_a_files_name_is_no_day_the_user_said() -> None:
    """A search 'modified after 2024-09-20' was filed from 'Harlow_Site_Visit_2024-09-20.txt',
    and the value checker rejected the pair: a date inside a name is part of the name."""
    today = date(2024, 10, 1)
    assert spoken_days("Summarise Harlow_Site_Visit_2024-09-20.txt for me.", today) == []
    assert spoken_days("What changed since 2024-09-20?", today)


def test_a_time_of_day_is_read_on_either_clock() -> None:
    said = "Publish at 8am Friday, call at 2:30 pm, stand-up 9.30, review 15:00, at 12am."
    assert [(h, m) for _, h, m in clock_times(said)] == [(8, 0), (14, 30), (9, 30), (15, 0), (0, 0)]
    assert clock_times("I am here for 5 minutes") == []


def test_a_range_said_in_words_is_one_span_from_its_first_day() -> None:
    """Auditors: 'between 1 and 30 June' listed transactions from 30 June to 30 June."""
    today = date(2024, 6, 13)
    june = (date(2024, 6, 1), date(2024, 6, 30))
    assert [d[1:] for d in spoken_days("between 1 and 30 June over 200 EUR", today)] == [june]
    assert [d[1:] for d in spoken_days("from 1 to 30 June", today)] == [june]


def test_the_evening_before_a_day_said_is_said_too() -> None:
    """A reminder 'the evening before at 18:00' an appointment on Tuesday 17 December is
    given, not made up; the day itself or another hour is not what was said."""
    said = (
        "Session: today is 2024-12-15. Your new appointment is: Tuesday 17 December at 9:30. "
        "Remind me the evening before at 18:00."
    )
    assert spoken_date("2024-12-16T18:00:00Z", said)
    assert not spoken_date("2024-12-16T18:00:00Z", said.replace("the evening before", "then"))
    assert not spoken_date("2024-12-16T07:00:00Z", said)


def test_a_window_nobody_gave_days_for_opens_at_the_month_so_far() -> None:
    """'List transactions for Rainy Day Savings' reads from the first of the session's month
    (today to today found nothing): that day is derived from the session line, no other."""
    said = "Session: today is 2024-06-13. Can you list transactions for Rainy Day Savings?"
    assert spoken_date("2024-06-01", said)
    assert spoken_date("2024-06-01T00:00:00Z", said)
    assert not spoken_date("2024-05-01", said)
    assert not spoken_date("2024-06-01", "Can you list transactions for Rainy Day Savings?")
