"""Days a user speaks of, resolved against the session's today: '2024-11-08', '8 November',
'Nov 12', '12-16 Nov', 'Thursday', 'tomorrow', 'this week'.

Construction reads a stated date with it, and the grounding check resolves the same words
against the session line ('today is 2024-09-15'), so a date the agent computed from what the
user said counts as said.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august",
    "september", "october", "november", "december",
)  # fmt: skip
_MONTH = (
    {m: i + 1 for i, m in enumerate(MONTHS)}
    | {m[:3]: i + 1 for i, m in enumerate(MONTHS)}
    | {"sept": 9}
)
_NAMES = "|".join(sorted(_MONTH, key=len, reverse=True))
_ISO = re.compile(r"(?<![\w-])(20\d\d)-([01]\d)-([0-3]\d)\b")
"""A day written out; never one inside a file's name ('Harlow_Site_Visit_2024-09-20.txt')."""
_TO = r"\s*[-–]\s*(\d{1,2})|(?<=\d) (?:to|until|till) (\d{1,2})"
"""The end of a range of days: '12-16 Nov', '12 to 16 Nov'."""
DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:{_TO})? ({_NAMES})\b\.?", re.I)
_BETWEEN = re.compile(rf"\bbetween (\d{{1,2}}) and (\d{{1,2}}) ({_NAMES})\b", re.I)
"""'between 1 and 30 June': one span, never the 30th alone."""
MONTH_DAY = re.compile(rf"\b({_NAMES})\.? (\d{{1,2}})(?:\s*[-–]\s*(\d{{1,2}}))?\b(?!:)", re.I)
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_RELATIVE = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1}
_SESSION = re.compile(r"today is (20\d\d-[01]\d-[0-3]\d)")
_AHEAD = re.compile(r"\b(this|next|coming) (week|few days|7 days)\b|\bupcoming\b", re.I)
_PAST_DAY = re.compile(r"\b(since|last|was|were|did|went|happened|ago)\s+(\w+\s+)?$")
"""Words before a weekday that put it behind today ('in the workshop since Friday')."""
DAY_BEFORE = re.compile(r"\bthe (evening|night|morning|day) before\b", re.IGNORECASE)
_BEHIND = re.compile(r"\b(last|past|previous) (week|few days|7 days)\b|\brecent(ly)?\b", re.I)


_CLOCK = re.compile(
    r"\b(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?\s?([ap])\.?m\b\.?|\b([01]?\d|2[0-3])[:.]([0-5]\d)\b",
    re.I,
)


def clock_times(text: str) -> list[tuple[int, int, int]]:
    """Every time of day the text says, as (where, hour, minute): '15:00', '9.30', '8am',
    '2:30 pm', '12am' (midnight)."""
    times = []
    for match in _CLOCK.finditer(text):
        if match.group(3):  # a 12-hour clock
            hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
            minute = int(match.group(2) or 0)
        else:
            hour, minute = int(match.group(4)), int(match.group(5))
        times.append((match.start(), hour, minute))
    return times


def session_today(text: str) -> date | None:
    """The scenario's today as the session line states it."""
    match = _SESSION.search(text)
    return date.fromisoformat(match.group(1)) if match else None


def spoken_days(text: str, today: date) -> list[tuple[int, date, date]]:
    """Every day the text names as (where, first, last), in the order it names them; a
    range ('12-16 Nov') is one span, a single day a span of one."""
    found: list[tuple[int, date, date]] = []
    for m in _ISO.finditer(text):
        found += _span(m.start(), today, int(m.group(2)), m.group(3), None, int(m.group(1)))
    between = list(_BETWEEN.finditer(text))
    for m in between:
        found += _span(m.start(), today, _MONTH[m.group(3).lower()], m.group(1), m.group(2))
    for m in DAY_MONTH.finditer(text):
        if any(b.start() <= m.start() < b.end() for b in between):
            continue  # the end of a span already read ('and 30 June')
        last = m.group(2) or m.group(3)
        found += _span(m.start(), today, _MONTH[m.group(4).lower()], m.group(1), last)
    for m in MONTH_DAY.finditer(text):
        found += _span(m.start(), today, _MONTH[m.group(1).lower()], m.group(2), m.group(3))
    lowered = text.lower()
    for word, shift in _RELATIVE.items():
        for m in re.finditer(rf"\b{word}\b", lowered):
            day = today + timedelta(days=shift)
            found.append((m.start(), day, day))
    for index, name in enumerate(WEEKDAYS):
        for m in re.finditer(rf"\b{name}\b", lowered):
            if _PAST_DAY.search(lowered[max(0, m.start() - 30) : m.start()]):
                day = today - timedelta(days=(today.weekday() - index) % 7 or 7)
            else:
                day = today + timedelta(days=(index - today.weekday()) % 7)
            found.append((m.start(), day, day))
    return sorted(found, key=lambda span: span[0])


def spoken_window(text: str, today: date) -> tuple[date, date] | None:
    """The days 'this week' or 'recent' cover, counted from today."""
    if _AHEAD.search(text):
        return today, today + timedelta(days=7)
    if _BEHIND.search(text):
        return today - timedelta(days=7), today
    return None


def _year(today: date, month: int, day: int) -> int:
    """A day said without a year is its occurrence nearest today ('12 June' said in
    October is the June just gone, '3 January' said in December the one coming)."""
    years = [today.year - 1, today.year, today.year + 1]
    try:
        return min(years, key=lambda y: abs((date(y, month, day) - today).days))
    except ValueError:
        return today.year


def _span(
    at: int, today: date, month: int, first: str, last: str | None, year: int | None = None
) -> list[tuple[int, date, date]]:
    try:
        start = date(year or _year(today, month, int(first)), month, int(first))
        end = date(start.year, month, int(last)) if last else start
    except ValueError:
        return []
    return [(at, start, end)] if start <= end else []


def spoken_date(value: str, haystack: str) -> bool:
    """'2024-11-08' was given as '8 November', '12-16 Nov', 'Thursday' or 'this week'
    (resolved against the session's today), at a time said ('9:20') or at a day's bound."""
    match = re.fullmatch(r"(20\d\d-\d\d-\d\d)(?:T(\d\d):(\d\d)(?::(\d\d))?.*)?", value)
    if not match:
        return False
    try:
        day = date.fromisoformat(match.group(1))
    except ValueError:
        return False
    # without a session line, a day said without its year is read in the value's own year
    today = session_today(haystack) or date(day.year, 7, 1)
    days = {d for _, first, last in spoken_days(haystack, today) for d in (first, last)}
    days |= set(spoken_window(haystack, today) or ())
    if DAY_BEFORE.search(haystack):  # 'remind me the evening before' a day said
        days |= {d - timedelta(days=1) for d in days}
    if session_today(haystack):  # a window the user gave no days for opens the month so far
        days.add(today.replace(day=1))
    if day not in days:
        return False
    if not match.group(2):
        return True
    hour, minute = int(match.group(2)), match.group(3)
    bound = f"{hour:02d}:{minute}:{match.group(4) or '00'}" in ("00:00:00", "23:59:59")
    return bound or any((h, m) == (hour, int(minute)) for _, h, m in clock_times(haystack))


WHEN_WORDS = frozenset({"at", "on", "date", "time", "next", "new"})
"""Words of a date field that say it is a date, not what it is the date of (`next_due`)."""
END_WORDS = frozenset({"end", "to", "until", "before", "out", "checkout", "return", "inbound"})
"""Words of a field that takes the last day of a stated range (`check_out`, `end`)."""
SINCE_WORDS = frozenset({"from", "since", "after"})
"""Words of a field that opens a range a read covers (`from_date`, `since`)."""


def session_window(words: set[str], today: date, *, with_time: bool) -> str:
    """A window the user gave no days for: the session's month so far, which the agent was
    told ('list transactions' read from today to today found nothing), or its today (a week
    either side would be a span nobody said)."""
    clock = "23:59:59" if words & END_WORDS and not words & SINCE_WORDS else "00:00:00"
    day = today.replace(day=1) if words & SINCE_WORDS else today
    return f"{day.isoformat()}T{clock}Z" if with_time else day.isoformat()
