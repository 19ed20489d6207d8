"""Values a record implies for a return field it does not hold.

A vehicle listing asks for `model`; the seed's van holds a plate, a VIN and a status, and its
name says "(Ford Transit)". What an API would answer comes, in order, from the same field of
related or sibling records in the world, from what the record's own name and id say, from
the field's meaning (a timestamp before today, an amount inside the schema's bounds, a person
of the seed), or from the schema's own examples. Every choice is seeded by the record and the
field, so the same record reads the same in every observation; when nothing fits, an optional
field is left out rather than filled with an empty string.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, timedelta
from random import Random
from typing import Any

from pipeline.core.generation.assessed import ASSESSMENT_WORDS, assessed
from pipeline.core.generation.dates import WHEN_WORDS
from pipeline.core.generation.field_meanings import filled, held_elsewhere, names_record, party_name
from pipeline.core.generation.filters import DAY
from pipeline.core.generation.places import names_room, place_of
from pipeline.core.generation.population import FUTURE_DATE_WORDS
from pipeline.core.generation.semantics import (
    PERSON_WORDS,
    is_free_text_field,
    refers_to,
    related,
    tokens,
)
from pipeline.core.generation.siblings import borrowed
from pipeline.core.generation.vocabulary import freed_space, plausible_number
from pipeline.core.generation.write_outcome import (
    OUTSIDERS,
    TELLS,
    counts_items,
    departure,
    goes_outside,
    items_passed,
    known_address,
    on_or_after,
    outsiders_among,
    people_told,
    write_moment,
)
from pipeline.core.model.seeding import seeded_rng, stable_int
from pipeline.core.model.world import Record, ToolResult, World

JSON = Any
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()
"""No plausible value: the field is left out (or, if required, named after the record)."""

_SUCCESS_WORDS = frozenset([
    "success", "ok", "delivered", "sent", "verified", "confirmed", "completed", "valid",
    "applied", "committed", "accepted", "executed", "processed", "saved", "submitted",
])  # fmt: skip
"""Booleans a write that went through answers true ('applied: false' after the limiter was
set, 'committed: false' after an UPDATE, read as the write failing)."""
_OWN_NAME_WORDS = frozenset(["name", "title", "label", "subject", "display", "headline"])
_UP_WORDS = frozenset(["online", "connected", "enabled", "active", "available", "reachable"])
_ADDRESSEE = frozenset(["recipient", "payee", "beneficiary", "destination", "address"])
"""Booleans a working system reports as true unless the world says otherwise."""
PEOPLE_WORDS = PERSON_WORDS | {
    "applicant",
    "holder",
    "guest",
    "passenger",
    "traveller",
    "candidate",
}
_IDENTIFIER_WORDS = frozenset(["id", "number", "ref", "reference", "code", "hash", "key", "sha"])
_PLACE_WORDS = frozenset(["room", "location", "zone", "area", "site"])
_LEVELS = ("low", "normal", "high")
_KIND_WORDS = frozenset(["type", "kind", "category", "class"])
_GENERIC_QUALIFIERS = frozenset(["doc", "document", "record", "item", "entity", "result", "object"])
"""Words before `type` that leave it the record's own kind (`doc_type`, not `licence_class`)."""
_DOCUMENT_WORDS = frozenset(["content", "body", "text"])
"""Fields that hold a whole document, written out in full when the record has no text."""
_MADE = frozenset(["created", "made", "submitted", "filed", "opened", "recorded", "logged"])
_COORDINATES = frozenset(["lat", "latitude", "lon", "lng", "longitude"])
_LATITUDE = frozenset(["lat", "latitude"])
_AHEAD = FUTURE_DATE_WORDS | {"eta", "estimated", "upcoming", "expected"}
"""Words of date fields that lie after today (an ETA, an estimated delivery)."""
_ZONES = {"GBP": "Europe/London", "EUR": "Europe/Berlin", "USD": "America/New_York"}


class Plausible:
    """What one observation's records imply, for the fields they do not hold."""

    def __init__(self, world: World, result: ToolResult, tool: str = "") -> None:
        self.world = world
        self.result = result
        self.tool = tool
        self.today = date.fromisoformat(world.today)

    def value(
        self, name: str, schema: Mapping[str, Any], record: Record | None, *, required: bool
    ) -> JSON:
        # a record reads the same in every observation; what a write answers is its own,
        # and the same call made twice answers the same figures (auditors: one declaration
        # submitted four times came back with four duties)
        change = self.result.change
        if change is not None and self.result.operation in ("create", "send"):
            rng = seeded_rng("plausible", self.tool, repr(sorted(change.arguments.items())), name)
        else:
            moment = len(self.world.changes) if record is None else 0
            rng = seeded_rng("plausible", record.id if record else "-", name, moment)
        kind = schema_type(schema)
        words = set(tokens(name))
        options = schema.get("enum")
        # a record read shows what it holds: an optional field it lacks is said by its own
        # words (its name, its text) or left out, never made up or taken from a sibling
        held_only = record is not None and not required and self.result.change is None
        if options:
            described = _described(record)
            named = [o for o in options if str(o).lower().replace("_", " ") in described]
            verdict = assessed(options, described) if words & ASSESSMENT_WORDS else None
            if not named and record is not None and verdict is not None:
                return verdict
            if held_only and not named:
                return MISSING
            return named[0] if named else options[rng.randrange(len(options))]
        if held_only and record is not None:
            return self.said(name, words, kind, record, rng)
        if change is not None and schema.get("format") in ("date", "date-time"):
            # a reminder due at 18:00 answers `next_due` 18:00, not a time of its own
            topic = words - WHEN_WORDS
            given = [v for k, v in change.arguments.items() if topic & set(tokens(k))]
            if given and isinstance(given[0], str) and DAY.match(given[0]):
                return given[0]
        sibling = borrowed(self.world, name, kind, record)
        # a link a write just made expires after today, not when another record's did
        dated = isinstance(sibling, str) and DAY.match(sibling) is not None
        lapsed = dated and change is not None and words & _AHEAD and str(sibling) < self.world.today
        if sibling is not None and _bounded(sibling, schema) is not MISSING and not lapsed:
            return sibling
        if kind == "boolean" and change is not None and words & OUTSIDERS:
            return goes_outside(change, self.world)
        if kind == "boolean" and change is not None and words & _ADDRESSEE:
            return known_address(change, self.world)
        if kind == "boolean":
            done = bool((words | {name}) & (_SUCCESS_WORDS | self.did())) and change is not None
            return done or bool(words & _UP_WORDS)
        if kind == "number" and words & _COORDINATES:
            located = self.located(words, rng)
            if located is not MISSING:
                return located
        if kind == "integer" and words == {"version"}:
            return 1 if self.result.operation == "create" else rng.randint(2, 6)
        if kind == "integer" and change is not None and words & OUTSIDERS:
            return outsiders_among(change, self.world)
        if kind == "integer" and change is not None and words & TELLS:
            return people_told(change, record, self.world)
        if kind == "integer" and change is not None and counts_items(words):
            # `quarantined` of a phish sent to 312 people: out of every mailbox it reached
            acted = words & self.did()
            return people_told(change, record, self.world) if acted else items_passed(change)
        if kind in ("integer", "number") and change is not None and record is not None:
            freed = freed_space(words, record.attributes, rng)
            if freed is not None:
                return freed
        if kind in ("integer", "number"):
            return plausible_number(words, schema, kind, rng)
        if tokens(name)[-1:] in (["id"], ["ids"]) and self.links(name, record):
            # a link to another record: only where the schema insists, never invented freely
            return self.linked(name, record) if required else MISSING
        # a field with a format (an email, a date, a link) is written to it, not filled
        free = schema.get("format") is None
        party = party_name(tokens(name), record, self.world) if free else None
        if party is not None:
            return party
        known = filled(name, record, self.world, rng, self.tool) if free else None
        if known is not None:
            return known
        found = self.text(name, schema, record, rng)
        if found is not MISSING:
            return found
        elsewhere = held_elsewhere(name, self.world, rng) if free and kind == "string" else None
        if elsewhere is not None:
            return elsewhere
        examples = [e for e in schema.get("examples") or () if isinstance(e, str) and e]
        if examples:
            return examples[rng.randrange(len(examples))]
        if record is None or not required:
            return MISSING
        own = names_record(tokens(name), record) or words <= _OWN_NAME_WORDS
        return record.name if own else MISSING

    def moment(self, ahead: bool, rng: Random) -> str:
        """When a thing happened: a write when it ran, an arrival after its departure, else
        a working hour of the days around today."""
        if self.result.change is not None and not ahead:
            return write_moment(self.world)
        if ahead and (leaving := departure(self.result.change)) is not None:
            arrival = leaving + timedelta(hours=rng.randint(1, 6), minutes=rng.choice((5, 20)))
            return arrival.strftime("%Y-%m-%dT%H:%M:00Z")
        day = self.today - timedelta(days=rng.randint(0, 10))
        if ahead:
            day = self.today + timedelta(days=rng.randint(1, 11))
        hour, minute = rng.randint(8, 17), rng.choice((5, 20, 35, 50))
        return f"{day.isoformat()}T{hour:02d}:{minute:02d}:00Z"

    def said(self, name: str, words: set[str], kind: str, record: Record, rng: Random) -> JSON:
        """What a record's own name and place say of a field it does not hold."""
        if kind == "number" and words & _COORDINATES:
            return self.located(words, rng)
        if kind != "string":
            return MISSING
        party = party_name(tokens(name), record, self.world)
        return party if party is not None else _from_name(words, record)

    def did(self) -> set[str]:
        """What the tool's own verbs say a write did (`released` for a release, `on_hold`
        for a hold): a write that went through answers them true."""
        verbs = [w for w in tokens(self.tool) if len(w) >= 4]
        # 'cancelled' as well as 'canceled', 'stopped' as well as 'stoped'
        doubled = {f"{v}{v[-1]}ed" for v in verbs if v[-1] not in "aeiouwxy"}
        states = {f"on_{v}" for v in verbs}
        return {f"{v}d" if v.endswith("e") else f"{v}ed" for v in verbs} | doubled | states

    def text(
        self, name: str, schema: Mapping[str, Any], record: Record | None, rng: Random
    ) -> JSON:
        words = set(tokens(name))
        last = tokens(name)[-1] if tokens(name) else ""
        fmt = schema.get("format")
        ahead = bool(words & _AHEAD)
        if words & {"rejection", "error", "failure", "declined"} and self.result.error is None:
            return ""  # a call that worked reports no reason it failed
        if fmt == "date" or words & {"date", "day"}:
            after = on_or_after(self.result.change)
            if self.result.change is not None and words & _MADE:
                return self.today.isoformat()  # a write's own date is the day it ran
            if after is not None and after >= self.today:  # a final pay date after the exit
                return (after + timedelta(days=rng.randint(0, 14))).isoformat()
            days = rng.randint(1, 40)
            return (self.today + timedelta(days=days if ahead else -days)).isoformat()
        if fmt == "date-time" or words & {"at", "time", "timestamp", "ts"}:
            moment = self.moment(ahead, rng)
            # a chat message's `ts` is its epoch seconds and a sequence, '1727773440.000200'
            return _epoch(moment, rng) if last == "ts" and fmt is None else moment
        if fmt == "email" or words & {"email", "mail"}:
            return self.email(record, rng)
        if fmt in ("uri", "url") or words & {"url", "uri", "link"}:
            return f"https://{self.domain()}/{record.id if record else 'portal'}"
        if words & {"currency"}:
            return self.currency()
        if words & {"timezone", "tz"}:
            return _ZONES.get(self.currency(), "UTC")
        if words & {"version", "firmware"}:
            return f"{rng.randint(1, 6)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
        if words & {"ip"}:
            return f"10.{rng.randint(0, 60)}.{rng.randint(0, 255)}.{rng.randint(2, 254)}"
        if words & {"priority", "severity", "risk"}:
            return _LEVELS[rng.randrange(3)]
        own_kind = words & _KIND_WORDS and words <= _KIND_WORDS | _GENERIC_QUALIFIERS
        if own_kind and (record is None or _told(record)):  # not a `licence_class`
            return record.kind if record is not None else "standard"
        if record is not None:
            implied = _from_name(words, record)
            if implied is not MISSING:
                return implied
        if words & _PLACE_WORDS:
            place = self.place(record, rng)
            if place is not MISSING:
                return place
        if words & PEOPLE_WORDS:
            return self.person(record, rng)
        if last in _IDENTIFIER_WORDS:
            return _identifier(name, record, rng)
        if words & _DOCUMENT_WORDS and record is not None:
            return self.document(record)
        if is_free_text_field(name):
            return _describe(record) if record is not None else "No further details."
        return MISSING

    def document(self, record: Record) -> str:
        """A record's full text as its system would export it: a heading, every field on
        its own line, and the records that belong to it."""
        lines = [record.name, "=" * len(record.name)]
        lines += [f"{k.replace('_', ' ').capitalize()}: {v}" for k, v in record.attributes.items()]
        belongs = related(self.world, record)[:8]
        if belongs:
            lines += ["", "Related records:"]
            lines += [f"- {r.name} ({r.id})" for r in belongs]
        return "\n".join(lines)

    def linked(self, name: str, record: Record | None) -> JSON:
        """An id field that names another kind of record (a van's `driver_id`) holds the id
        of one such record of the world, the same one each time for this record."""
        family = self.links(name, record)
        return family[stable_int(record.id if record else "-", name) % len(family)]

    def links(self, name: str, record: Record | None) -> list[str]:
        """Ids of the other kind of record an id field names (none if it names this one)."""
        family = sorted(r.id for r in self.world.records if refers_to(name, r) >= 3)
        return [] if record is not None and record.id in family else family

    def located(self, words: set[str], rng: Random) -> JSON:
        """A coordinate near the world's own places (a UK fleet's vans are in the UK)."""
        axis = _LATITUDE if words & _LATITUDE else _COORDINATES - _LATITUDE
        places = [
            float(v)
            for r in self.world.records
            for k, v in r.attributes.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and set(tokens(k)) & axis
        ]
        if not places:
            return MISSING
        return round(places[rng.randrange(len(places))] + rng.uniform(-0.06, 0.06), 5)

    def place(self, record: Record | None, rng: Random) -> JSON:
        found = place_of(self.world, record, rng)
        return MISSING if found is None else found

    def email(self, record: Record | None, rng: Random) -> str:
        person = (record.name if record else self.person(None, rng)).lower()
        local = ".".join(re.findall(r"[a-z]+", person)[:2]) or "info"
        return f"{local}@{self.domain()}"

    def domain(self) -> str:
        for record in self.world.records:
            for value in record.attributes.values():
                match = re.search(r"@([a-z0-9.-]+\.[a-z]+)", str(value))
                if match:
                    return match.group(1)
        return "example.org"

    def currency(self) -> str:
        for record in self.world.records:
            for key, value in record.attributes.items():
                if "currency" in key and isinstance(value, str):
                    return value
                for code in ("gbp", "eur", "usd"):
                    if code in tokens(key):
                        return code.upper()
        return "EUR"

    def person(self, record: Record | None, rng: Random) -> str:
        contacts = sorted(r.name for r in self.world.records if r.kind == "contact")
        if contacts:
            return contacts[rng.randrange(len(contacts))]
        return "Operations team"  # a world with no people: the team that runs it


def _told(record: Record) -> bool:
    """Whether a record's kind is a word its system would show ('device', 'account'), not
    the world's catch-all 'record'."""
    return record.kind not in ("record", "reading", "call")


def _from_name(words: set[str], record: Record) -> JSON:
    """What a record's name says: `Van 17 (Ford Transit)` has the model Ford Transit,
    `Hallway thermostat` sits in the hallway, `VTI position` holds the symbol VTI."""
    inside = re.search(r"\(([^)]+)\)", record.name)
    if words & {"model", "make", "product"} and inside:
        return inside.group(1)
    bare = re.sub(r"\s*\(.*?\)", "", record.name).split()
    if words & _PLACE_WORDS and len(bare) >= 2 and names_room(bare[:-1]):
        return " ".join(bare[:-1])
    if words & {"symbol", "ticker"}:
        caps = [w for w in bare if re.fullmatch(r"[A-Z]{2,5}", w)]
        return caps[0] if caps else MISSING
    if words == {"number"} or words & {"reference", "ref"}:
        codes = [v for v in record.attributes.values() if isinstance(v, str) and coded(v)]
        return codes[0] if codes else record.id.upper().replace("_", "-")
    return MISSING


def coded(text: str) -> bool:
    """A code such as LPS-2024-117 or INC-2024-0412."""
    return bool(re.fullmatch(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+", text))


def _identifier(name: str, record: Record | None, rng: Random) -> str:
    stem = [w for w in tokens(name) if w not in _IDENTIFIER_WORDS] or ["ref"]
    if tokens(name)[-1:] == ["hash"] or tokens(name)[-1:] == ["sha"]:
        return "".join(rng.choice("0123456789abcdef") for _ in range(40))
    return f"{stem[-1][:4]}_{rng.randint(10000, 99999)}"


def _described(record: Record | None) -> str:
    if record is None:
        return ""
    return " ".join([record.name, *map(str, record.attributes.values())]).lower()


def _describe(record: Record) -> str:
    facts = [f"{k.replace('_', ' ')} {v}" for k, v in list(record.attributes.items())[:3]]
    return f"{record.name}: {'; '.join(facts)}." if facts else f"{record.name}."


def schema_type(schema: Mapping[str, Any], unknown: str = "string") -> str:
    """The JSON type a schema describes (its first non-null type, or what its keywords
    imply); `unknown` when it says nothing."""
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), unknown)
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return unknown


def _bounded(value: JSON, schema: Mapping[str, Any]) -> JSON:
    if isinstance(value, int | float) and not isinstance(value, bool):
        low, high = schema.get("minimum"), schema.get("maximum")
        if (low is not None and value < low) or (high is not None and value > high):
            return MISSING
    return value


def _epoch(moment: str, rng: Random) -> str:
    seconds = int(datetime.fromisoformat(moment.replace("Z", "+00:00")).timestamp())
    return f"{seconds}.{rng.randint(100, 999):06d}"
