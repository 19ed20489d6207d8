"""What a run's observations showed, as the short sentences a final answer states.

An answer reports the values its calls returned that the request is about (a status, an
amount, a date), or, for a follow-up, whatever its own call returned; never a field of an
earlier call the question did not ask about.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pipeline.core.generation.run import Branch
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.spoken import labelled, spoken


def facts_of(
    branch: Branch, episode: int, request: str, since: int = 0, *, every_field: bool = False
) -> tuple[str, ...]:
    """What the episode's observations showed that answers the request, as short sentences;
    from step `since` on, so a follow-up's answer reports its own call, not the episode's
    (`every_field`: whatever that call returned, 'used 15 GB of 16', not only salient ones)."""
    wanted = set(re.findall(r"[a-z]{4,}", request.lower()))
    facts: list[str] = []
    turns = branch.episodes[episode]
    for effect in (s for s in branch.steps[since:] if s.episode == episode):
        observation = turns[effect.turn + 1]
        try:
            data = json.loads(getattr(observation, "content", "{}"))
        except ValueError:
            continue
        facts += _facts(effect.tool, data, wanted, effect.change is not None, every_field)
    return tuple(dict.fromkeys(facts))[:6]


_SALIENT = frozenset(
    [
        "status",
        "balance",
        "amount",
        "value",
        "flag",
        "total",
        "price",
        "result",
        "state",
        "available",
        "decision",
        "due",
        "date",
        "time",
        "start",
        "id",
        "name",
        "error",
        "message",
        "location",
        "eta",
        "severity",
        "consensus",
        "quantity",
        "cash",
    ]
)


def _facts(tool: str, data: Any, wanted: set[str], wrote: bool, every: bool) -> list[str]:
    if isinstance(data, dict) and "error" in data and isinstance(data["error"], dict):
        return [f"{tool.replace('_', ' ')} returned an error: {data['error'].get('message', '')}"]
    records = _records(data)
    out = []
    for record in records[:2]:
        key, label = labelled(record, several=len(records) > 1)
        picked = [
            (k, v)
            for k, v in record.items()
            if isinstance(v, str | int | float)
            and not isinstance(v, bool)
            and v != ""
            and k != key
            and (every or set(tokens(k)) & (_SALIENT | wanted))
            and len(str(v)) <= 60
        ][:3]
        if not picked:
            continue
        body = ", ".join(spoken(k, v) for k, v in picked)
        out.append(f"{label}: {body}" if label and label not in body else body)
    if wrote and not out:
        out.append(f"{tool.replace('_', ' ')} went through")
    return out


def _records(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if lists:
            return list(lists[0])
        return [data]
    return []
