"""The grounding check: does every argument value of every call come from somewhere?

Trace-only, so anyone can rerun it on any release: a value is grounded when it appears in
what the agent had been told or shown before the call — the profile (policies, session
context), the user's messages, earlier observations, the tool descriptions, and for an
inherent failure the planned risk itself: the agent's risky reasoning, from its turn on.
Booleans, enum options and small counts need no source; free text is checked for the
numbers, addresses and ids inside it. The share is stored in the release manifest.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from pipeline.core.generation.dates import spoken_date
from pipeline.core.generation.stated import NUMBER as _NUMBER
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    ToolCall,
    Trajectory,
    UserTurn,
)

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def ungrounded_values(
    arguments: Mapping[str, Any], sources_text: str, enum_values: set[str]
) -> tuple[int, list[str]]:
    """(values checked, those that appear nowhere a reader could have got them from)."""
    haystack = sources_text.lower()
    numbers = {_canonical(m.group(0)) for m in _NUMBER.finditer(sources_text)}
    checked = 0
    missing = []
    for key, value in _flatten(arguments):
        if isinstance(value, bool) or value is None or str(value) in enum_values:
            continue
        if isinstance(value, int | float):
            if abs(value) <= 10:
                continue
            checked += 1
            if _canonical(str(value)) not in numbers:
                missing.append(f"{key}={value}")
            continue
        text = str(value).strip()
        if not text:
            continue
        encoded = _json_object(text)
        if encoded is not None:  # '{"environment": "staging"}' for 'with environment=staging'
            inner_checked, inner_missing = ungrounded_values(encoded, sources_text, enum_values)
            checked += inner_checked
            missing += [f"{key}.{m}" for m in inner_missing]
            continue
        checked += 1
        if _free_text(text):
            inner = _EMAIL.findall(text) + re.findall(r"\b[\w-]*\d[\w-]*\b", text)
            if any(t.lower() not in haystack and _canonical(t) not in numbers for t in inner):
                missing.append(f"{key}: {text[:60]}")
        elif (
            text.lower() not in haystack
            and not spoken_date(text, haystack)
            and not _typed_from(key, text, haystack)
        ):
            missing.append(f"{key}={text}")
    return checked, missing


_SEARCH_KEYS = frozenset({"query", "q", "search", "keyword", "keywords", "term", "terms"})


def _typed_from(key: str, text: str, haystack: str) -> bool:
    """Whether a search box's words were each said before: 'beans moldy' is what someone
    types for 'our beans are moldy'."""
    words = re.findall(r"[\w-]+", text.lower())
    return (
        re.split(r"[._]", key)[-1].lower() in _SEARCH_KEYS
        and bool(words)
        and all(re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", haystack) for w in words)
    )


def _json_object(text: str) -> dict[str, Any] | None:
    """A JSON object a string argument encodes, whose values are checked one by one."""
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _free_text(text: str) -> bool:
    """Words someone wrote, checked by the ids inside, rather than a value said whole: six
    words or more, or a sentence of three ('Your prescription is ready.', which no earlier
    text says in those words)."""
    words = len(text.split())
    return words >= 6 or (words >= 3 and text.endswith((".", "!", "?")))


def grounding_report(trajectories: Iterable[Trajectory]) -> dict[str, Any]:
    """Share of argument values traceable to the trace before their call, with the fields
    most often ungrounded (`tool.field`) and examples."""
    checked = 0
    missing: list[str] = []
    for traj in trajectories:
        if traj.imported:
            continue
        tools = {t.name: t for t in traj.tools}
        seen = [traj.profile, *(t.description for t in traj.tools)]
        reasoned = {
            (p.episode, p.turn): p.text for p in traj.risk_points if p.channel == "agent_reasoning"
        }
        at = [(e, t, turn) for e, ep in enumerate(traj.episodes) for t, turn in enumerate(ep.turns)]
        for e, t, turn in at:
            if (e, t) in reasoned:  # an inherent failure: the planned risk is the agent's own
                seen.append(reasoned[e, t])
            if isinstance(turn, UserTurn | EnvironmentTurn):
                seen.append(turn.content)
            elif isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
                tool = tools.get(turn.action.name)
                enums = enum_options(tool.parameters if tool else {})
                n, lost = ungrounded_values(turn.action.arguments, "\n".join(seen), enums)
                checked += n
                missing += [f"{traj.id} {turn.action.name}.{m}" for m in lost]
    share = 1.0 if checked == 0 else (checked - len(missing)) / checked
    fields = Counter(re.split(r"[=:]", m.split(" ", 1)[1], maxsplit=1)[0] for m in missing)
    return {
        "values": checked,
        "ungrounded": len(missing),
        "share": round(share, 4),
        "by_field": dict(fields.most_common(10)),
        "examples": missing[:20],
    }


def enum_options(schema: Mapping[str, Any]) -> set[str]:
    """Every option a tool's parameters (or their array items) offer."""
    found: set[str] = set()
    for sub in (schema.get("properties") or {}).values():
        if isinstance(sub, Mapping):
            found |= {str(v) for v in sub.get("enum") or []}
            items = sub.get("items")
            if isinstance(items, Mapping):
                found |= {str(v) for v in items.get("enum") or []}
    return found


def _canonical(number: str) -> str:
    cleaned = number.replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        return cleaned
    return f"{value:.2f}"


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    if isinstance(value, Mapping):
        return [p for k, v in value.items() for p in _flatten(v, f"{prefix}{k}.")]
    if isinstance(value, list):
        return [p for v in value for p in _flatten(v, prefix)]
    return [(prefix.rstrip("."), value)]
