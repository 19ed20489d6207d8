"""Argument values a real agent would never send: a fragment of the user's words, and (as a
figure, `benchmarks/trace_quality`) a required value sent empty.

A value that is a piece of what the user wrote ('hour tracking' out of '4-hour tracking',
'only' out of 'read-only', 'Jonah (address' with its bracket left open) was cut from the
request instead of taken whole: the trace is rejected (`argument_values`). A required
parameter sent as `""`, `[]` or null means construction found no value for it; `is_empty`
counts those, and rejecting them waits until construction sources the rest (179 calls in 90
pairs of a default release would go today: 180 traces, below the kept floor).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.trajectory import AgentTurn, ToolCall, ToolSpec, Trajectory, UserTurn

_DANGLING = frozenset(
    {"a", "an", "the", "to", "of", "for", "with", "and", "or", "from", "on", "in", "at", "by"}
    | {"my", "his", "her", "their", "our", "your", "its", "into"}
)
"""Words a whole name or phrase does not end with: a value ending so was cut mid-phrase."""
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))


def is_empty(value: Any) -> bool:
    """No value at all: an empty or blank string, an empty list or object, null."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict) and not value


def fragment_of(value: Any, said: str) -> bool:
    """A string value that is a piece of something rather than a whole: an unclosed
    bracket, a dangling 'to the' at its end, or words the user wrote only inside a longer
    word ('only' said only as 'read-only')."""
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        return False
    text = value.strip()
    if any(text.count(o) != text.count(c) for o, c in _PAIRS):
        return True
    words = text.split()
    if 1 < len(words) <= 8 and words[-1].lower() in _DANGLING:
        return True
    # in the user's own spelling: 'OR' (Oregon) is no piece of 'for'
    hits = [m.start() for m in re.finditer(re.escape(text), said)]
    if not hits or len(text) > 60:
        return False
    return all(_inside_word(said, at, at + len(text)) for at in hits)


def _inside_word(text: str, start: int, end: int) -> bool:
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return bool(re.match(r"[\w-]", before) or re.match(r"[\w]", after))


def argument_values(traj: Trajectory, pool: ToolPool) -> list[str]:
    """Arguments cut out of the user's words (in a trace construction wrote: an imported
    row's calls are its source's)."""
    if traj.imported:
        return []
    specs = {tool.name: tool for tool in traj.tools}
    said = ""
    problems = []
    for index, turn in enumerate(traj.turns):
        if isinstance(turn, UserTurn):
            said += "\n" + turn.content
        if not (isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)):
            continue
        cuts = fragments(turn.action, specs, said)
        problems += [f"turn {index}: {cut} is a fragment" for cut in cuts]
    return problems


def fragments(call: ToolCall, specs: Mapping[str, ToolSpec], said: str) -> list[str]:
    """The call's arguments cut out of what the user said (`tool.field='value'`); an
    option of the schema's enum is a whole value however the user spelled it."""
    properties = specs[call.name].parameters.get("properties") or {}
    return [
        f"{call.name}.{name}={value!r}"
        for name, value in call.arguments.items()
        if "enum" not in properties.get(name, {}) and fragment_of(value, said)
    ]
