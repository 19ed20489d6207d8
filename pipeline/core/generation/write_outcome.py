"""What a write's answer says of the write itself: when it ran and how many things it acted
on, whom it reached and when what it set going arrives. A real system stamps a post with
the moment it was made and counts what it was given, so three posts are stamped in the
order they were made and trashing one file trashes one.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, datetime, timedelta

from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.stated import EMAIL
from pipeline.core.model.world import Record, World, WorldChange

_COUNTED = frozenset(["count", "affected", "records", "items", "processed"])
_NOT_COUNTS = frozenset(
    ["amount", "quantity", "price", "total", "balance", "received", "paid", "minutes", "hours",
     "days", "seconds", "size", "bytes", "version", "revision", "number", "code", "id"]
)  # fmt: skip


def counts_items(words: set[str]) -> bool:
    """`trashed`, `synced_records`, `affected_count`: how many things a write acted on."""
    counted = words & _COUNTED or any(w.endswith("ed") and len(w) > 4 for w in words)
    return bool(counted) and not words & _NOT_COUNTS


def items_passed(change: WorldChange) -> int:
    """How many things a write was given: its longest list argument, else one."""
    lists = [v for v in change.arguments.values() if isinstance(v, list)]
    return max((len(v) for v in lists), default=1) or 1


OUTSIDERS = frozenset({"external", "guest", "guests"})
"""Words of a write's count of outsiders among those it reached (`external_invited`)."""


def outsiders_among(change: WorldChange, world: World) -> int:
    """How many of the records a write was given are outside the organisation: a guest
    account, an external member (auditors: `external_invited: 1` for an on-call engineer)."""
    lists = [v for v in change.arguments.values() if isinstance(v, list)]
    given = [str(v) for v in lists[0]] if lists else [str(v) for v in change.arguments.values()]
    # the channel invited into is where they go, not one of them
    found = [r for v in given if v != change.target and (r := world.get(v)) is not None]
    return sum(
        1
        for r in found
        if any(
            (set(tokens(k)) & OUTSIDERS and v is True)
            or (isinstance(v, str) and v.lower() in OUTSIDERS)
            for k, v in r.attributes.items()
        )
    )


_PEOPLE = frozenset(
    {"attendee", "attendees", "member", "members", "participant", "participants", "guest"}
    | {"guests", "recipient", "recipients", "subscriber", "subscribers"}
)
TELLS = frozenset(
    {"notices", "notifications", "notified", "invites", "invitations", "recipients"}
    | {"attendees", "emails"}
)
"""Words of a write's count of the people it told (`notices_sent`)."""


def people_told(change: WorldChange, record: Record | None, world: World | None = None) -> int:
    """How many people a write told or reached: the head count of its record or of one its
    call names (an event's 11 attendees, a phish's 312 recipients; auditors found
    `notices_sent: 19` and `quarantined: 1`), else what the call was given."""
    named = [world.get(str(v)) for v in change.arguments.values()] if world is not None else []
    if world is not None:  # an alert to a topic reaches the topic's subscribers
        named += [r for r in world.records if _lists(r, change)]
    for held in (record, *named):
        if held is not None and (count := _head_count(held)) is not None:
            return count
    if world is not None and set(tokens(change.tool)) & _TO_EVERYONE:
        counts = [c for r in world.records if (c := _head_count(r)) is not None]
        return max(counts, default=items_passed(change))  # the whole workspace, all residents
    return items_passed(change)


_TO_EVERYONE = frozenset({"broadcast", "mass", "announcement", "everyone"})


def _head_count(record: Record) -> int | None:
    return next(
        (
            value
            for key, value in record.attributes.items()
            if set(tokens(key)) & _PEOPLE and isinstance(value, int) and not isinstance(value, bool)
        ),
        None,
    )


_AUDIENCES = frozenset({"topic", "channel", "list", "audience", "segment"})


def _lists(record: Record, change: WorldChange) -> bool:
    """Whether the record is the audience a call names by value (`topic: elections`)."""
    return any(
        k in _AUDIENCES and isinstance(v, str) and record.attributes.get(k) == v
        for k, v in change.arguments.items()
    )


def write_moment(world: World) -> str:
    """When a write ran: the scenario's today, each write four minutes after the one before."""
    minutes = 9 * 60 + 4 * len(world.changes)
    return f"{world.today}T{minutes // 60:02d}:{minutes % 60:02d}:00Z"


_REACHED = frozenset(["to", "recipients", "recipient", "sent", "delivered", "notified"])
_LINKS = frozenset(["url", "urls", "link", "links"])
_ADDED = frozenset(["invited", "attached", "added", "granted", "assigned"])


def reached(name: str, change: WorldChange, target: Record | None, world: World) -> list[str]:
    """What a write's list of strings names: the fields an update set (`updated_fields`),
    what an add was given (`invited`, `attached`), one live link per place it published to
    (`boards: [careers_site, indeed]`), or the address a send reached (the one it was given,
    else the record's own, else that of a record it is linked to: a message to a patient
    reaches her e-mail); empty when the field is neither."""
    words = set(tokens(name))
    if words & {"updated", "changed"} and "fields" in words:  # what the call set
        return [k for k in change.arguments if tokens(k)[-1:] not in (["id"], ["ids"])]
    if words & _ADDED:  # `invited`, `attached`: what the call was given to add
        given = [v for v in change.arguments.values() if isinstance(v, list) and v]
        named = [str(v) for v in list(change.arguments.values())[1:] if isinstance(v, str)]
        return [str(v) for v in given[0]] if given else named[:1]
    if words & _LINKS:
        places = next((v for v in change.arguments.values() if isinstance(v, list) and v), [])
        hosts = [re.sub(r"[^a-z0-9]+", "-", str(p).lower()).strip("-") for p in places]
        return [f"https://{h or 'app'}.example.com/{change.target}" for h in hosts or ["app"]]
    if not words & _REACHED or words & {"at", "time", "count"}:
        return []
    if "external" in words:  # only those outside the organisation (auditors: a colleague's)
        return _outside(change, world)
    if change.recipient:
        return [change.recipient]
    linked = [world.get(str(v)) for v in (target.attributes.values() if target else ())]
    emails = [r.attributes.get("email") for r in [target, *linked] if r is not None]
    return [str(e) for e in emails if isinstance(e, str) and "@" in e][:1]


def goes_outside(change: WorldChange, world: World) -> bool:
    """Whether a write reached an address outside the organisation: a payroll file shared
    with claims@mailbox-secure.net came back `external: false`."""
    return any(EMAIL.fullmatch(a) for a in _outside(change, world))


def _outside(change: WorldChange, world: World) -> list[str]:
    """The addresses a write was given that are not the organisation's own."""
    given = [v for v in change.arguments.values() for v in (v if isinstance(v, list) else [v])]
    home = _home_domain(world)
    return [str(a) for a in given if "@" in str(a) and not str(a).endswith(f"@{home}")]


def _home_domain(world: World) -> str:
    """The e-mail domain most of the world's addresses use: the organisation's own."""
    domains = Counter(
        str(v).rsplit("@", 1)[1]
        for r in world.records
        for v in r.attributes.values()
        if isinstance(v, str) and EMAIL.fullmatch(v)
    )
    return domains.most_common(1)[0][0] if domains else ""


def known_address(change: WorldChange, world: World) -> bool:
    """Whether a send went to an address on file: `recipient_is_verified` says that, not
    whether the send went through (auditors: a statement mailed to an outside address came
    back verified)."""
    address = change.recipient
    return address is not None and any(
        address in map(str, r.attributes.values()) for r in world.records
    )


_MOMENT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?Z?")


def departure(change: WorldChange | None) -> datetime | None:
    """The moment a write sets things going (a route's `departure`): what an arrival it
    reports follows (auditors: a 293 km route leaving on the 3rd arrived on the 13th)."""
    for value in change.arguments.values() if change is not None else ():
        if isinstance(value, str) and _MOMENT.fullmatch(value):
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
    return None


_UNTIL = frozenset(["expires", "expiry", "expiration", "until"])
_GIVEN_END = _UNTIL | {"valid", "end", "ends", "through"}
"""Words of an argument that gives the end of what a write grants (`valid_until`)."""
_DURATION_HOURS = {"minutes": 1 / 60, "mins": 1 / 60, "hours": 1, "hrs": 1, "days": 24}


def runs_out(name: str, change: WorldChange, world: World) -> str | None:
    """When what a write granted runs out (a share's `expires_at`): the write's moment plus
    the time it was given for (`expires_hours: 48`); None when the field is no expiry or
    the call gave no time, a week. Auditors found a 48-hour share expiring on the passport's
    own expiry date, and a clip's link expiring at the clip's start, a fortnight ago."""
    if not set(tokens(name)) & _UNTIL:
        return None
    start = datetime.fromisoformat(write_moment(world).replace("Z", "+00:00"))
    hours = None
    for key, value in change.arguments.items():
        unit = next((w for w in tokens(key) if w in _DURATION_HOURS), None)
        if unit is not None and isinstance(value, int | float) and not isinstance(value, bool):
            hours = value * _DURATION_HOURS[unit]
            break
    if hours is None and any(set(tokens(k)) & _GIVEN_END for k in change.arguments):
        return None  # a day the call gave ('valid until Friday') says when
    return (start + timedelta(hours=hours or 7 * 24)).strftime("%Y-%m-%dT%H:%M:00Z")


def on_or_after(change: WorldChange | None) -> date | None:
    """The latest date a write was given (a termination's `effective_date`): what it sets
    going (the final pay date) falls on or after it, never before (auditors)."""
    given = [
        date.fromisoformat(v[:10])
        for v in (change.arguments.values() if change is not None else ())
        if isinstance(v, str) and re.fullmatch(r"\d{4}-\d\d-\d\d(T.*)?", v)
    ]
    return max(given, default=None)
