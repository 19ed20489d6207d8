"""Which of several records a request picks: the one it describes by a word of its own
('the spam comment', 'the draft invoice'), the one whose name it says next to a field's
words ('make Ines the owner'), and the date a task's record holds for a field nobody said.
Where nothing picks one, a write has no target to guess.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, timedelta
from typing import Any

from pipeline.core.generation.dates import DAY_BEFORE, clock_times, spoken_days
from pipeline.core.generation.filters import DAY
from pipeline.core.generation.naming import named_as
from pipeline.core.generation.request_values import ADDRESSEE, composed_field, said_after_name
from pipeline.core.generation.semantics import refers_to, tokens
from pipeline.core.generation.stated import EMAIL
from pipeline.core.model.world import Record, World


def described_by(
    records: Sequence[Record], request: str, named: Sequence[Record] = ()
) -> list[Record]:
    """The records the request describes by a word of theirs the others lack ('the spam
    comment', 'the draft invoice'), by a record it names that they belong to (an invoice of
    the customer) or that belongs to them (the matter of the letter named): those with most
    such marks, or none."""
    focus = {r.id for r in named}
    held = {str(v) for r in named for v in r.attributes.values()}
    said = set(tokens(request))
    words = {r.id: _own_words(r) for r in records}
    shared = set.intersection(*words.values()) if words else set()
    hits = {
        r.id: len((words[r.id] - shared) & said)
        + sum(str(v) in focus for v in r.attributes.values())
        + (r.id in held)
        for r in records
    }
    most = max(hits.values(), default=0)
    return [r for r in records if most and hits[r.id] == most]


def _own_words(record: Record) -> set[str]:
    values = [record.name, *(str(v) for v in record.attributes.values() if isinstance(v, str))]
    return {w for v in values for w in tokens(v) if len(w) >= 4}


def addressed(
    name: str, records: Sequence[Record], focus: Sequence[str], request: str
) -> Record | None:
    """Whom an e-mail field (`recipient_email`, a message's `to`) means when no record's
    kind matches it: of the records the task names that have an address, the one the
    request says the field's words next to ('make Ines the owner' for `new_owner_email`),
    else the first whose own address it is (Margaret Harlow, not the owner of the file she
    is sent). A `new_owner_email` is never the address a record keeps as its owner
    (Rob's, on the folder he owns): that is who it is now."""
    words = set(tokens(name))
    if "email" not in words and not (words and words <= ADDRESSEE):
        return None
    role = words - {"email", "mail", "address", "new", "to"}
    held = [
        r
        for r in sorted((r for r in records if r.id in focus), key=lambda r: focus.index(r.id))
        if any(
            EMAIL.fullmatch(str(v)) and ("new" not in words or not set(tokens(k)) & role)
            for k, v in r.attributes.items()
        )
    ]
    # a person's own address before one a record keeps of someone else (a file's owner)
    held.sort(key=lambda r: not any(_own_address(k, v) for k, v in r.attributes.items()))
    near = [r for r in held if role & _said_next_to(r, request)]
    if words & _JOINING:  # 'a screen for Li Wen with Daniel Price': the panel is Daniel
        near = [r for r in held if any(named_as(r, w) for w in _WITH.findall(request))] or near
    chosen = near or held
    return chosen[0] if chosen else None


_JOINING = frozenset(["panel", "interviewer", "interviewers", "attendee", "attendees", "guests"])
_WITH = re.compile(r"\bwith\s+((?:Dr\.?\s+)?[A-Z][\w'-]+(?:\s[A-Z][\w'-]+)?)")
"""Who joins a meeting is whom the user books it with: an interview 'for Li Wen with Daniel
Price' invited only the candidate as its panel."""


def _own_address(key: str, value: object) -> bool:
    """An address that is the record's own (`email`, `work_email`), not that of its owner,
    author or manager (`owner`, `created_by`)."""
    return bool(EMAIL.fullmatch(str(value))) and set(tokens(key)) <= _OWN_ADDRESS_WORDS


_OWN_ADDRESS_WORDS = frozenset(
    ["email", "mail", "address", "work", "personal", "primary", "contact"]
)


def _said_next_to(record: Record, request: str) -> set[str]:
    """The words of the clauses where the request names the record ('make Ines the owner',
    not 'check /Clients/Harlow Residence')."""
    return {w for c in _CLAUSE.split(request) if named_as(record, c) for w in tokens(c)}


_CLAUSE = re.compile(r"[.;,?!]\s|\s(?:and|then|but)\s", re.I)


def only_record_for(name: str, world: World, request: str) -> Record | None:
    """The one record of the world a field can mean (the only repository, the only fleet
    van named so), when the task did not name it; among equals, the one whose details the
    request mentions (the psychiatry clinician for 'a psychiatry slot'). The agent must
    look it up first."""
    scored = [(refers_to(name, r), r) for r in world.records]
    best = max((score for score, _ in scored), default=0)
    top = [r for score, r in scored if score == best]
    if best > 0 and len(top) > 1:
        said = set(re.findall(r"[a-z]{4,}", request.lower()))
        top = [
            r for r in top if any(set(tokens(str(v))) & said for v in r.attributes.values())
        ] or top
    return top[0] if best > 0 and len(top) == 1 else None


def dated_by_task(
    name: str,
    schema: Mapping[str, Any],
    task: tuple[Sequence[Record], World, set[str], str],
    window: bool,
) -> str | None:
    """A required date the user did not say, as the task's record holds it under the field's
    first word: a flight search's `depart_date` is the offer's `depart_at` day, a booking's
    `start` the start of a slot shown for the clinician it names. `window`: the field is a
    listing's window (`start`, `from_date`), the session's and not a record's."""
    if schema.get("format") not in ("date", "date-time"):
        return None
    first = tokens(name)[:1]
    if not first or window:
        return None
    about, world, used, shown = task
    named = {i for i in used if world.get(i) is not None}
    # a slot links to the clinician alone; a record linking to every record the call names
    # (the patient's booked visit with that clinician) is what a booking would make again
    linked = [
        r
        for r in world.records
        if 0 < len(named & {str(v) for v in r.attributes.values()}) < max(len(named), 2)
    ]
    for record in (*about, *linked):
        for key, value in record.attributes.items():
            if tokens(key)[:1] != first or not isinstance(value, str) or not DAY.match(value):
                continue
            if record in about or value in shown:  # a slot a result showed, not a booked visit
                return value[:10] if schema.get("format") == "date" else value
    return None


def thread_replied_to(name: str, world: World, request: str) -> str | None:
    """The thread a reply goes in ('respond in the database failover thread in
    #eng-incidents'): of the messages that start threads, in the channel the request names
    if it names one, the one whose text says most of the request's words; its `ts` for a
    `thread_ts` (else its id). The reply once went to the channel's top level."""
    if "thread" not in tokens(name) or not re.search(r"\bthread\b", request, re.I):
        return None
    wanted = set(re.findall(r"[a-z]{4,}", request.lower())) - {"thread", "reply", "respond"}
    starts = [
        r
        for r in world.records
        if isinstance(r.attributes.get("text"), str) and "thread_ts" not in r.attributes
    ]
    in_channel = [r for r in starts if (c := str(r.attributes.get("channel", ""))) and c in request]
    said = [
        (len(wanted & set(re.findall(r"[a-z]{4,}", str(r.attributes["text"]).lower()))), r)
        for r in in_channel or starts
    ]
    best = max(said, default=(0, None), key=lambda s: s[0])
    if best[1] is None or best[0] < 2:
        return None
    return str(best[1].attributes.get(tokens(name)[-1], best[1].id))


def named_after_its_role(name: str, request: str) -> str | None:
    """A person the user names right after the field's own word ('pharmacist Maria Gomez
    RPh' for `receiving_pharmacist`): theirs over any record's (the transfer named the
    patient, a record the task is about)."""
    if composed_field(name):
        return None  # 'message Helen Park …' names whom, not the message
    said = said_after_name(name, request)
    return said if said and _A_NAME.fullmatch(said) else None


_A_NAME = re.compile(r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){1,3}")
_HANDED = re.compile(
    r"\b(?:pass|assign|hand|give|escalate|forward|route|reassign|transfer)\w*"
    r"(?: (?:it|this|that|them|the \w+))?(?: over| back)? to "
    r"(?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){1,2})"
)


def handed_to(name: str, request: str) -> str | None:
    """The person the user hands the work to ('pass it to Colin Drew for approval') for a
    field naming who takes it on, not whoever holds it now (auditors: the ticket was
    'assigned' to its own assignee and the request silently dropped)."""
    if not set(tokens(name)) & (_ROLES | {"assigned", "handler"}):
        return None
    said = _HANDED.search(request)
    return said.group("name") if said else None


_SELF_NAMED = re.compile(r"\b(?:([A-Z][a-z]+) here\b|[Tt]his is ([A-Z][a-z]+)|I'm ([A-Z][a-z]+)\b)")
_ROLES = frozenset({"owner", "assignee", "approver", "reviewer"})


def the_speaker(name: str, world: World, request: str) -> str | None:
    """The user's own address where they make themselves the field's role ('Ines here …
    make me the owner' -> ines.alder@…), never another grantee's (auditors: ownership of a
    company file went to the outside client)."""
    words = set(tokens(name))
    role = next(iter(words & _ROLES), None)
    if role is None or not words & {"email", "user", "id", "address"}:
        return None
    made = (
        rf"\bmake me (?:the |an? )?(?:new )?{role}\b"
        r"|\b(?:assign|transfer|hand)\w*\b[^.]*\bto me\b"
    )
    speaker = _SELF_NAMED.search(request)
    if speaker is None or not re.search(made, request):
        return None
    first = next(g for g in speaker.groups() if g).lower()
    found = sorted(
        {
            m.group(0)
            for r in world.records
            for v in r.attributes.values()
            for m in EMAIL.finditer(str(v))
            if m.group(0).lower().startswith(first)
        }
    )
    return found[0] if len(found) == 1 else None


_ITS_BRANCH = re.compile(
    r"\b(?:on|to|against|from) (?:its|their|that|the same|the PR's|the pull request's) branch\b",
    re.IGNORECASE,
)
_BRANCH_FIELDS = ("head", "head_branch", "source_branch", "branch", "head_ref")


def its_branch(name: str, about: Sequence[Record], request: str) -> str | None:
    """The branch of the pull request the user points at ('re-run ci.yml on its branch'):
    its head, never its base nor a word of the file name (auditors: the run went to `main`
    in the safe twin and to `yml` in the unsafe one)."""
    if not set(tokens(name)) & {"ref", "branch", "head"} or not _ITS_BRANCH.search(request):
        return None
    return next(
        (str(r.attributes[f]) for r in about for f in _BRANCH_FIELDS if r.attributes.get(f)),
        None,
    )


_HOUR_OF = {"evening": 18, "night": 20, "morning": 8, "day": 9}


def the_day_before(
    schema: Mapping[str, Any], request: str, about: Sequence[Record], today: date
) -> str | None:
    """'Remind me the evening before at 18:00': the day before the coming event a record
    of the task names ('Tuesday 17 December at 9:30'), at the time said or the part of day's
    usual hour (auditors: the reminder was due at midnight of the session's today)."""
    said = DAY_BEFORE.search(request)
    if said is None or schema.get("format") not in ("date", "date-time"):
        return None
    days = [
        day
        for record in about
        for value in record.attributes.values()
        if isinstance(value, str)
        for _, day, _ in spoken_days(value, today)
        if day > today
    ]
    if not days:
        return None
    day = min(days) - timedelta(days=1)
    if schema.get("format") == "date":
        return day.isoformat()
    times = clock_times(request[said.start() :])
    hour, minute = times[0][1:] if times else (_HOUR_OF[said.group(1).lower()], 0)
    return f"{day.isoformat()}T{hour:02d}:{minute:02d}:00Z"
