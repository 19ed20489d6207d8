"""Name-aware fake values: what a field called `iban`, `version` or `due_date` plausibly
holds when nothing else gives it (the last resort of `values.synthesize`)."""

from __future__ import annotations

import random
import string
import uuid
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any

from pipeline.core.generation.roles import EntityView
from pipeline.core.procedural.schema_fit import fit_length, fit_number, name_tokens

JSON = Any
_FIRST_NAMES = [
    "Alex",
    "Jamie",
    "Robin",
    "Noor",
    "Tomas",
    "Ines",
    "Kofi",
    "Lena",
    "Ravi",
    "Mira",
    "Oskar",
    "Yuki",
    "Farah",
    "Declan",
]
_LAST_NAMES = [
    "Keller",
    "Okoye",
    "Brandt",
    "Silva",
    "Haddad",
    "Lindgren",
    "Moreau",
    "Castillo",
    "Novak",
    "Quinn",
    "Arslan",
]
_CITIES = ["Lisbon", "Rotterdam", "Leeds", "Lyon", "Porto", "Graz", "Aarhus", "Bilbao", "Cork"]
_STATUSES = ["completed", "active", "scheduled", "ok", "processed", "pending"]
FREE_TEXT = ("body", "content", "text", "message", "note", "notes", "comment", "description",
              "memo", "summary", "snippet", "details", "reason", "subject", "title", "log",
              "excerpt", "preview", "html", "page", "remarks", "insight", "insights",
              "instructions", "label", "result")  # fmt: skip
_SENTENCES = [
    "Everything on this item looks in order as of the last sync.",
    "Updated after the routine review earlier this week.",
    "No further action is needed unless the figures change.",
    "Follow-up scheduled with the usual contact.",
    "Details were confirmed against the latest records.",
    "Flagged for a quick look at the next check-in.",
    "Values reflect the most recent reading available.",
    "Processed in the normal queue without exceptions.",
    "Kept on file for the standard retention period.",
    "Requested by the account owner and logged accordingly.",
]
_BASE_DAY = date(2024, 6, 3)


class Fakes:
    """Name-aware fakes for a field no hint, entity or example fills."""

    def __init__(self, rng: random.Random, topic: str) -> None:
        self.rng = rng
        self.topic = topic

    def fake(
        self, schema: Mapping[str, Any], kind: str, name: str, focus: EntityView | None
    ) -> JSON:
        if kind == "boolean":
            return self._boolean(name)
        if kind in {"integer", "number"}:
            return self._number(schema, kind, name)
        if kind == "null":
            return None
        return fit_length(self._string(schema, name, focus), schema, self.rng)

    def _boolean(self, name: str) -> bool:
        tokens = set(name_tokens(name))
        if tokens & {"success", "ok", "sent", "delivered", "applied", "enabled", "active"}:
            return self.rng.random() < 0.85
        if tokens & {"error", "failed", "blocked", "locked", "overdue"}:
            return self.rng.random() < 0.15
        return self.rng.random() < 0.5

    def _number(self, schema: Mapping[str, Any], kind: str, name: str) -> int | float:
        tokens = set(name_tokens(name))
        rng = self.rng
        value: float
        if tokens & {"amount", "price", "cost", "total", "balance", "fee", "limit", "debited"}:
            value = round(rng.uniform(12, 2400), 2)
        elif tokens & {"pct", "percent", "percentage", "rate", "ratio", "share"}:
            value = round(rng.uniform(0.5, 96), 1)
        elif tokens & {"temperature", "setpoint", "temp", "c"}:
            value = round(rng.uniform(17, 24), 1)
        elif tokens & {"lat", "latitude"}:
            value = round(rng.uniform(50.5, 53.5), 5)
        elif tokens & {"lon", "lng", "longitude"}:
            value = round(rng.uniform(-2.5, 6.5), 5)
        elif tokens & {"count", "number", "num", "quantity", "items", "size"}:
            value = rng.randint(1, 24)
        elif tokens & {"kmh", "speed", "mph"}:
            value = rng.randint(0, 95)
        elif tokens & {"seconds", "minutes", "hours", "days", "duration"}:
            value = rng.randint(1, 90)
        elif tokens & {"year"}:
            value = rng.randint(2019, 2024)
        else:
            value = round(rng.uniform(1, 250), 2)
        return fit_number(value, schema, kind, rng)

    def _string(self, schema: Mapping[str, Any], name: str, focus: EntityView | None) -> str:
        rng = self.rng
        fmt = schema.get("format")
        if fmt == "date":
            return _day(rng).isoformat()
        if fmt == "date-time":
            return _timestamp(rng)
        if fmt == "time":
            return f"{rng.randint(7, 19):02d}:{rng.choice([0, 15, 30, 45]):02d}:00"
        if fmt == "email" or fmt == "idn-email":
            return _email(rng)
        if fmt in {"uri", "url", "iri", "uri-reference"}:
            return _url(rng, name)
        if fmt == "uuid":
            return str(uuid.UUID(int=rng.getrandbits(128)))
        tokens = name_tokens(name)
        last = tokens[-1] if tokens else ""
        if last in {"email", "mail"}:
            return _email(rng)
        if last in {"url", "uri", "link", "href"}:
            return _url(rng, name)
        if last in {"at", "timestamp", "time", "since", "until", "start", "end"}:
            return _timestamp(rng)
        if last in {"date", "day", "due"}:
            return _day(rng).isoformat()
        if last in {"id", "ids", "number", "ref", "reference", "code", "sha"}:
            return _identifier(rng, tokens)
        if last in {"currency"}:
            return "EUR"
        if last in {"status", "state", "result"}:
            return rng.choice(_STATUSES)
        if last in {"phone", "mobile", "msisdn"}:
            return f"555-01{rng.randint(10, 99)}"
        if last in {"iban"}:
            return f"GB00 {''.join(rng.choices(string.ascii_uppercase, k=4))} " + " ".join(
                f"{rng.randint(0, 9999):04d}" for _ in range(3)
            )
        if last in {"name", "holder", "owner", "sender", "recipient", "author", "assignee", "to"}:
            if focus is not None and last == "name":
                return focus.name
            return f"{rng.choice(_FIRST_NAMES)} {rng.choice(_LAST_NAMES)}"
        if last in {"location", "city", "place", "address"}:
            return rng.choice(_CITIES)
        if last in {"version"}:
            return f"{rng.randint(1, 5)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}"
        if last in FREE_TEXT:
            return self._prose(tokens, focus)
        if last in {"type", "kind", "category", "mode", "level", "scope", "permission", "role"}:
            return rng.choice(["standard", "default", "basic", "primary", "regular"])
        if last in {"unit", "units"}:
            return rng.choice(["kWh", "EUR", "km", "items"])
        if focus is not None and rng.random() < 0.5:
            return focus.name
        return f"{' '.join(tokens[-2:]) or 'value'} {rng.randint(2, 98)}".strip()

    def _prose(self, tokens: Sequence[str], focus: EntityView | None) -> str:
        rng = self.rng
        if tokens and tokens[-1] in {"subject", "title", "label"}:
            about = focus.name if focus is not None else self.topic or "your request"
            return rng.choice(["Re: ", "Update: ", "", "Reminder: "]) + about
        lead = f"{focus.name}: " if focus is not None and rng.random() < 0.6 else ""
        return lead + " ".join(rng.sample(_SENTENCES, 2))


def _day(rng: random.Random) -> date:
    return _BASE_DAY + timedelta(days=rng.randint(-20, 30))


def _timestamp(rng: random.Random) -> str:
    moment = datetime.combine(_day(rng), datetime.min.time()) + timedelta(
        hours=rng.randint(7, 19), minutes=rng.randrange(0, 60, 5)
    )
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


def _email(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST_NAMES).lower()}.{rng.choice(_LAST_NAMES).lower()}@example.com"


def _url(rng: random.Random, name: str) -> str:
    slug = "-".join(name_tokens(name)) or "item"
    return f"https://portal.example.com/{slug}/{rng.randint(1000, 99999)}"


def _identifier(rng: random.Random, tokens: Sequence[str]) -> str:
    stem = [t for t in tokens if t not in {"id", "ids", "number", "ref", "reference", "code"}]
    prefix = (stem[-1][:4] if stem else "ref").lower()
    if tokens and tokens[-1] == "sha":
        return "".join(rng.choices("0123456789abcdef", k=40))
    return f"{prefix}_{rng.randint(10000, 99999)}"
