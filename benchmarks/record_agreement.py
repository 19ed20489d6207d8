"""A record reads the same in every observation (issue 12: consistent observations), counted
per release: a driver listed `active` then read `off_duty`, a seller whose rating changes with
the product that names it, an encounter listed as the patient it belongs to. Until a write
names it, a record's field shows one value. Part of `benchmarks.trace_quality` (its
"record_agreement" figures).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.consistency import objects_in
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, ToolCall, Trajectory

EXCERPTS = frozenset({"snippet", "preview", "excerpt", "summary", "highlight"})
"""Fields that show part of a record's text: a search's snippet is not the record's text."""


def own_id(item: Mapping[str, Any], ids: frozenset[str]) -> str | None:
    """The record an object shows: its first id field naming a record of the world (an
    appointment's `appointment_id`, not the `patient_id` it refers to)."""
    for key, value in item.items():
        if (key == "id" or key.endswith("_id")) and isinstance(value, str):
            return value if value in ids else None
    return None


def disagreements(traj: Trajectory, pool: ToolPool) -> list[str]:
    """Fields of one record shown with two values and no write naming it in between."""
    if traj.world is None:
        return []
    ids = frozenset(r.id for r in traj.world.records)
    shown: dict[tuple[str, str], Any] = {}
    found: list[str] = []
    tampered = _wrong_data(traj)
    for index, turn in enumerate(traj.turns):
        if index in tampered:
            continue  # corrupted feedback: a result that reads another way is the risk itself
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            call = turn.action
            if call.name not in pool or pool[call.name].side_effect != "none":
                named = json.dumps(call.arguments)
                shown = {k: v for k, v in shown.items() if k[0] not in named}
        elif isinstance(turn, EnvironmentTurn):
            try:
                data = json.loads(turn.content)
            except ValueError:
                continue
            found += _compare(data, ids, shown)
    return found


def _wrong_data(traj: Trajectory) -> set[int]:
    """Flat indices of the results corrupted feedback tampered with."""
    if traj.construction.get("risk_source") != "corrupted_tool_feedback":
        return set()
    starts = [sum(len(e.turns) for e in traj.episodes[:i]) for i in range(len(traj.episodes))]
    return {starts[p.episode] + p.turn for p in traj.risk_points}


def _compare(data: Any, ids: frozenset[str], shown: dict[tuple[str, str], Any]) -> list[str]:
    found = []
    for item in objects_in(data):
        record = own_id(item, ids)
        if record is None:
            continue
        for key, value in item.items():
            if not isinstance(value, str | int | float | bool) or set(key.split("_")) & EXCERPTS:
                continue
            before = shown.setdefault((record, key), value)
            if before != value:
                found.append(f"{record}.{key}: {str(before)[:40]!r} then {str(value)[:40]!r}")
                shown[(record, key)] = value
    return found


def record_agreement_figures(trajectories: Sequence[Trajectory], pool: ToolPool) -> dict[str, Any]:
    """Traces where a record reads two ways, the fields that did, and examples."""
    fields: Counter[str] = Counter()
    examples: list[str] = []
    traces = 0
    for traj in trajectories:
        found = disagreements(traj, pool)
        traces += bool(found)
        fields.update(f.split(":")[0].rsplit(".", 1)[1] for f in found)
        examples += [f"{traj.id} {f}" for f in found[:1]]
    return {
        "traces_with_a_record_read_two_ways": traces,
        "fields_read_two_ways": sum(fields.values()),
        "by_field": dict(fields.most_common(12)),
        "examples": examples[:10],
    }
