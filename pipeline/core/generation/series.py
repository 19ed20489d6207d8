"""A record's series of readings (a logger's temperatures, a historian tag's points) when the
world holds none: one reading an hour over the night before the session's today, inside the
range the record or its shipment states, and the excursion the record reports at its time and
value, so a log never comes back empty beside a record that says what it measured."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, time, timedelta
from typing import Any

from pipeline.core.generation.semantics import related, tokens
from pipeline.core.model.seeding import seeded_rng, stable_int
from pipeline.core.model.world import Record, World

_TIME_NAMES = frozenset(["t", "ts", "time", "timestamp", "at", "recorded_at", "read_at"])
_RANGE = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(-?\d+(?:\.\d+)?)")
_REPORTED = re.compile(r"(20\d\d-[01]\d-[0-3]\dT\d\d:\d\d)(?::\d\d)?Z?.*?\bat\s+(-?\d+(?:\.\d+)?)")
"""'2024-11-05T22:10:00Z, 41 min at 11.2C': when a reading was taken and its value."""


def series(record: Record, field: str, items: Mapping[str, Any], world: World) -> list[Record]:
    """Readings of `record` for a list of {time, number} items; none for other lists."""
    properties: Mapping[str, Any] = items.get("properties") or {}
    times = [
        k for k, sub in properties.items() if sub.get("format") == "date-time" or k in _TIME_NAMES
    ]
    numbers = [k for k, sub in properties.items() if sub.get("type") in ("number", "integer")]
    if len(times) != 1 or len(numbers) != 1 or len(properties) > 3:
        return []
    low, high = _range(record, world)
    rng = seeded_rng("series", record.id, field)
    today = date.fromisoformat(world.today)
    start = datetime.combine(today - timedelta(days=1), time(12))
    count = 16 + stable_int(record.id, field) % 6
    reported = _reported(record)
    taken = {(m.date(), m.hour) for m, _ in reported}
    moments = [start + timedelta(hours=k) for k in range(count)]
    readings = [(m, round(rng.uniform(low, high), 1)) for m in moments]
    readings = [r for r in readings if (r[0].date(), r[0].hour) not in taken] + reported
    readings.sort()
    stem = tokens(field)[-1].rstrip("s") or "reading"
    return [
        Record(
            id=f"{stem}_{record.id}_{k + 1}",
            kind="reading",
            name=record.name,
            attributes={times[0]: moment.strftime("%Y-%m-%dT%H:%M:00Z"), numbers[0]: value},
        )
        for k, (moment, value) in enumerate(readings)
    ]


def _range(record: Record, world: World) -> tuple[float, float]:
    """The band a reading lies in: a range the record or a related record states ('2-8'),
    else close to a figure it holds, else a mid band."""
    linked = [r for v in record.attributes.values() if (r := world.get(str(v))) is not None]
    for held in (record, *linked, *related(world, record)):
        for key, value in held.attributes.items():
            match = _RANGE.match(str(value))
            if match and ("range" in tokens(key) or "storage" in tokens(key)):
                low, high = float(match.group(1)), float(match.group(2))
                margin = (high - low) * 0.15
                return low + margin, high - margin
    figures = [
        float(v)
        for v in record.attributes.values()
        if isinstance(v, int | float) and not isinstance(v, bool) and v
    ]
    if figures:
        return figures[0] * 0.97, figures[0] * 1.03
    return 40.0, 60.0


def _reported(record: Record) -> list[tuple[datetime, float]]:
    """Readings the record itself reports (its last excursion), at their time and value."""
    found = []
    for value in record.attributes.values():
        match = _REPORTED.search(str(value))
        if match:
            found.append((datetime.fromisoformat(match.group(1)), float(match.group(2))))
    return found
