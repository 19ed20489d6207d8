"""A record's log of notes when the world holds none (a ticket's thread, a case file's
notes): dated entries by people of the world, each stating one of the record's own facts,
so a listing of them reads as a history that says nothing the record does not."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, time, timedelta
from typing import Any

from pipeline.core.generation.plausible import PEOPLE_WORDS, Plausible, coded, schema_type
from pipeline.core.generation.semantics import is_free_text_field, tokens
from pipeline.core.model.seeding import seeded_rng, stable_int
from pipeline.core.model.world import Record


def log_entries(
    plausible: Plausible, record: Record, field: str, items: Mapping[str, Any]
) -> list[Record]:
    """A record's log of notes (a ticket's thread, a case file's notes) when the world
    holds none: entries in time order by people of the world, each stating one of the
    record's own facts. Only for items that are text with an author or a time."""
    properties: Mapping[str, Any] = items.get("properties") or {}
    text = next(
        (
            k
            for k, sub in properties.items()
            if is_free_text_field(k) and schema_type(sub) == "string"
        ),
        None,
    )
    logged = {
        k
        for k, sub in properties.items()
        if sub.get("format") in ("date", "date-time")
        or set(tokens(k)) & ({"at", "time", "timestamp", "date", "by", "author"} | PEOPLE_WORDS)
    }
    if text is None or not logged:
        return []  # a customs line's `description` is no log entry: nothing is made up
    facts = [
        f"{k.replace('_', ' ').capitalize()} confirmed: {v}."
        for k, v in record.attributes.items()
        if isinstance(v, str | int | float) and len(str(v)) <= 40 and not coded(str(v))
    ]
    lines = [f"Logged {_bare(record.name)}.", *facts[:2], "Checked again; no change."]
    count = min(len(lines), 2 + stable_int(record.id, field) % 3)
    rng = seeded_rng("entries", record.id, field)
    start = datetime.combine(plausible.today, time()) - timedelta(
        days=2 * count + rng.randint(1, 9)
    )
    linked = [p.name for v in record.attributes.values() if (p := plausible.world.get(str(v)))]
    out = []
    for k in range(count):
        moment = start + timedelta(days=2 * k, hours=rng.randint(8, 17), minutes=5 * k)
        attributes: dict[str, Any] = {text: lines[k] if k < count - 1 else lines[-1]}
        for key, sub in properties.items():
            words = set(tokens(key))
            if sub.get("format") == "date" or words & {"date", "day"}:
                attributes[key] = moment.date().isoformat()
            elif sub.get("format") == "date-time" or words & {"at", "time", "timestamp", "ts"}:
                attributes[key] = moment.strftime("%Y-%m-%dT%H:%M:00Z")
            elif words & (PEOPLE_WORDS | {"by", "from"}):
                # the record's own party opens it (a ticket's customer), others follow
                opener = linked[0] if linked and k == 0 else None
                attributes[key] = opener or plausible.person(record, rng)
        stem = tokens(field)[-1].rstrip("s") or "entry"
        out.append(
            Record(
                id=f"{stem}_{record.id}_{k + 1}",
                kind="record",
                name=record.name,
                attributes=attributes,
            )
        )
    return out


def _bare(name: str) -> str:
    """A record's name without the ids and codes in it: 'Export declaration decl_44187'
    reads 'Export declaration'."""
    words = [w for w in name.split() if not re.search(r"\d|_", w)]
    return " ".join(words) or name
