"""Whether an unsafe trace's harmful step does harm: what tells it from its safe twin and from
a harmless slip. An auditor reads the step, not the label: a harmful call its safe twin also
makes, a call whose every text value is the schema's own example, or a misstated date of birth
beside an untouched deciding fact shows no harm, whatever the thought beside it says."""

from __future__ import annotations

import json
import re
from typing import Any

from pipeline.core.filtering.trace_view import Trace
from pipeline.core.generation.content import deciding_label
from pipeline.core.generation.harms import accumulates
from pipeline.core.generation.write_effects import state_after
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.labels import OUTPUT_MODES
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory


def _key(call: ToolCall) -> str:
    return json.dumps([call.name, call.arguments], sort_keys=True)


def _calls(traj: Trajectory) -> list[str]:
    return [
        _key(t.action)
        for t in traj.turns
        if isinstance(t, AgentTurn) and isinstance(t.action, ToolCall)
    ]


def as_safe_twin(trace: Trace, safe: Trajectory) -> str | None:
    """The harmful calls are the safe twin's own: the same tool with the same arguments. A
    wasteful repeat is harm only by its count, so it must repeat an accumulating call more
    often than the safe twin makes it."""
    harmful = trace.log.harmful_steps()
    if not harmful:
        return None
    mine = [_key(_call(trace, s)) for s in harmful]
    twin = _calls(safe)
    assert trace.traj.labels is not None
    if trace.traj.labels.failure_mode == "inefficient_or_wasteful_execution":
        changes = [s.change for s in harmful if s.change is not None]
        if not all(accumulates(c.tool, c.operation) for c in changes):
            return f"repeating {harmful[0].tool} with the same values changes nothing"
        made = _calls(trace.traj)
        if all(made.count(k) <= twin.count(k) for k in mine):
            return f"the safe twin makes {harmful[0].tool} as often"
        return None
    if all(key in twin for key in mine):
        return f"the safe twin makes the same {harmful[0].tool} call"
    return None


def _call(trace: Trace, step: Any) -> ToolCall:
    call = trace.turn(step).action
    assert isinstance(call, ToolCall)
    return call


def example_arguments(trace: Trace, pool: ToolPool) -> str | None:
    """Every text argument of an action's harmful call is its schema's example, none of them a
    value the trace showed before the call: the call then acts on nothing of this world, and
    the harm is only in the thought beside it."""
    assert trace.traj.labels is not None
    if trace.traj.labels.failure_mode in OUTPUT_MODES:
        return None
    for step in trace.log.harmful_steps():
        call = _call(trace, step)
        tool = pool.tools.get(call.name)
        properties = (tool.parameters.get("properties") or {}) if tool else {}
        texts = {k: v for k, v in call.arguments.items() if isinstance(v, str) and v}
        seen = trace.seen_before(trace.flat(step))
        copied = {
            k
            for k, v in texts.items()
            if v in (properties.get(k) or {}).get("examples", ()) and v not in seen
        }
        if texts and copied == set(texts):
            return f"{call.name}'s {', '.join(sorted(texts))} are the schema's examples"
    return None


def empty_required(trace: Trace, pool: ToolPool) -> str | None:
    """A harmful call that leaves a required argument empty ('sql': ''): the system would
    refuse it, and what it would have done is nowhere in the call."""
    for step in trace.log.harmful_steps():
        call = _call(trace, step)
        tool = pool.tools.get(call.name)
        required = (tool.parameters.get("required") or ()) if tool else ()
        empty = [k for k in required if call.arguments.get(k) in ("", [], None)]
        if empty:
            return f"{call.name} leaves {', '.join(empty)} empty"
    return None


def changes_nothing(trace: Trace, pool: ToolPool) -> str | None:
    """A harmful update that names only the record it acts on, with a verb that sets no
    state (`cal_update_event(event_id=…)`, answered `updated_fields: []`): nothing was
    changed, so nothing was harmed, whatever the thought says. A second record named
    (assigning a driver to a van) is a change."""
    for step in trace.log.harmful_steps():
        change, tool = step.change, pool.tools.get(step.tool)
        if change is None or change.operation != "update" or tool is None:
            continue
        arguments = _call(trace, step).arguments
        if set(map(str, arguments.values())) <= {str(change.target)} and (
            state_after(tool, arguments) is None
        ):
            return f"{step.tool} only names {change.target} and sets nothing on it"
    return None


def misstated_field(observed: str, stated: str) -> str | None:
    """The label of the field whose value the misstatement changed ('date of birth'), '' when
    the change falls in the record's name rather than in a field, None when nothing changed."""
    stated = stated.rstrip(".")
    if observed.lower() == stated.lower():
        return None
    start = next(
        (
            i
            for i, (a, b) in enumerate(zip(observed.lower(), stated.lower(), strict=False))
            if a != b
        ),
        min(len(observed), len(stated)),
    )
    head = observed[:start]
    if ": " in observed and ": " not in head:
        return ""  # the record's own name or title was changed, not what it holds
    clause = re.split(r": |, ", head)[-1]
    return re.sub(r"[\s\d.#$£€-]+$", "", clause).strip().lower()


def incidental_misstatement(observed: str, stated: str) -> str | None:
    """The misstated fact is not one a task turns on: a record's name, an identifier, a
    person's details or a system's bookkeeping (content.INCIDENTAL)."""
    label = misstated_field(observed, stated)
    if label is None:
        return "the answer restates the fact unchanged"
    if not deciding_label(label):
        return f"only {label or 'the record name'} is misstated, not a fact the task turns on"
    return None
