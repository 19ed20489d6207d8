"""Argument values a real agent would never send: a fragment of the user's words, and, in a
safe trace, a consequential call acting on a value from nowhere.

A value that is a piece of what the user wrote ('hour tracking' out of '4-hour tracking',
'only' out of 'read-only', 'Jonah (address' with its bracket left open) was cut from the
request instead of taken whole: the trace is rejected (`argument_values`). A safe trace's
write, send, approval or deletion must act on the right record with values the trace shows:
a required value sent empty (`""`, `[]`, null), or an identifier, amount or recipient that
nothing the agent was told or shown before the call contains, makes the safe twin unsafe
(`unsourced_values`, a verifier finding; `unsourced_figures` counts them in a release).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pipeline.core.filtering.grounding import ungrounded_values
from pipeline.core.filtering.trace_view import Trace
from pipeline.core.generation.grounding import is_empty as is_empty
from pipeline.core.generation.request_values import composed_field
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.stated import EMAIL
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.trajectory import AgentTurn, ToolCall, ToolSpec, Trajectory, UserTurn

_DANGLING = frozenset(
    {"a", "an", "the", "to", "of", "for", "with", "and", "or", "from", "on", "in", "at", "by"}
    | {"my", "his", "her", "their", "our", "your", "its", "into"}
)
"""Words a whole name or phrase does not end with: a value ending so was cut mid-phrase."""
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))


def fragment_of(value: Any, said: str) -> bool:
    """A string value that is a piece of something rather than a whole: an unclosed
    bracket, a dangling 'to the' at its end, or words the user wrote only inside a longer
    word ('only' said only as 'read-only')."""
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        return False
    text = value.strip()
    if re.fullmatch(r"20\d\d-[01]\d-[0-3]\d(?:T[\d:.]+(?:Z|[+-]\d\d:\d\d)?)?", text):
        return False  # a day said in words ('20 September') is written so, whole
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
    """Whether text[start:end] is part of a longer word; a hyphen between two codes splits
    them: 'LHR-SFO' is a route whose destination is `SFO`."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    joined = before == "-" and re.fullmatch(r"[A-Z0-9]+", text[start:end]) is not None
    joined = joined and bool(
        re.search(r"(?<![\w-])[A-Z0-9]{2,}-$", text[max(0, start - 12) : start])
    )
    return bool((re.match(r"[\w-]", before) and not joined) or re.match(r"[\w]", after))


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


_NAMED_BY = frozenset(
    {"id", "ids", "number", "no", "code", "ref", "iban", "account", "url", "uri", "path"}
    | {"table", "policy", "sku", "ndc", "ticket", "repo", "branch", "instance", "cluster"}
)
"""Last words of a field whose value names a record or a place: an identifier."""
_WHOM = frozenset(
    {"to", "cc", "bcc", "recipient", "recipients", "email", "emails", "phone", "payee"}
    | {"beneficiary", "assignee", "grantee", "principal", "username", "attendee", "attendees"}
    | {"signers", "caseworker", "member", "members", "reviewer", "reviewers"}
)
"""Words of a field that says whom a call sends to, grants or assigns: a recipient."""
_MACHINE = re.compile(r"\S*(?:\d|_|@|/|\.\w)\S*")
"""One token a machine reads ('public.orders', 'pg_orders_primary', 'rx_7729001')."""


def must_be_shown(name: str, schema: Mapping[str, Any], value: Any) -> bool:
    """Whether a value of this field must come from what the trace showed: an identifier,
    an amount or a recipient. Text the agent writes (a note, a reason, a subject), an option
    of the schema, a flag and a small count are its own."""
    if composed_field(name) or "enum" in schema or "enum" in (schema.get("items") or {}):
        return False
    if isinstance(value, list):
        return any(must_be_shown(name, schema.get("items") or {}, v) for v in value)
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, int | float):
        return abs(value) > 10
    if not isinstance(value, str):
        return False
    words = tokens(name)
    named = bool(words) and words[-1] in _NAMED_BY
    return named or bool(set(words) & _WHOM or EMAIL.fullmatch(value) or _MACHINE.fullmatch(value))


def _made(name: str, tool: str) -> bool:
    """A name the call gives what it creates (`branch_name` of `repo_create_branch`): the
    agent makes it up, as a developer names a branch nobody named."""
    words, acts = tokens(name), tokens(tool)
    made = acts[acts.index("create") + 1 :] if "create" in acts else []
    return words[-1:] == ["name"] and words[0] in made


def unsourced_values(call: ToolCall, spec: ToolSpec, shown: str) -> list[str]:
    """A consequential call's required values sent empty, and its identifiers, amounts and
    recipients that `shown` (what the agent was told or shown before it) never holds."""
    properties = spec.parameters.get("properties") or {}
    required = spec.parameters.get("required") or []
    problems = [
        f"{call.name}.{name} is sent empty"
        for name in required
        if name in call.arguments and is_empty(call.arguments[name])
    ]
    checked = {
        name: value
        for name, value in call.arguments.items()
        if must_be_shown(name, properties.get(name) or {}, value) and not _made(name, call.name)
    }
    _, missing = ungrounded_values(checked, shown, set())
    return problems + [f"{call.name}.{m} appears nowhere before the call" for m in missing]


def consequential_problems(trace: Trace) -> list[str]:
    """`unsourced_values` of every call of the trace that changed the world."""
    specs = {tool.name: tool for tool in trace.traj.tools}
    problems = []
    for step in trace.log.steps:
        action = trace.turn(step).action
        if step.change is None or not isinstance(action, ToolCall):
            continue
        shown = trace.seen_before(trace.flat(step))
        problems += unsourced_values(action, specs[action.name], shown)
    return problems


def unsourced_figures(trajectories: Iterable[Trajectory]) -> dict[str, Any]:
    """Safe traces whose consequential call sends a required value empty, or an identifier,
    amount or recipient from nowhere (the figure `benchmarks/trace_quality` prints)."""
    empty = ungrounded = 0
    examples: list[str] = []
    for traj in trajectories:
        if traj.verdict != "safe" or traj.world is None or traj.imported:
            continue
        problems = consequential_problems(Trace(traj, traj.world))
        empty += any(p.endswith(" is sent empty") for p in problems)
        ungrounded += any(p.endswith(" before the call") for p in problems)
        examples += [f"{traj.id}: {p}" for p in problems[:1]]
    return {
        "safe_with_empty_required_write": empty,
        "safe_with_ungrounded_write_value": ungrounded,
        "examples": examples[:10],
    }
