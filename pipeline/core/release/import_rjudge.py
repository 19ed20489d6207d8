"""R-Judge / ASSEBench rows as trajectories (the decisions are in `importers`' docstring):
what can be read is read and noted as a repair, what cannot is kept verbatim and flagged, and
a row without a label or turns is rejected."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES, SNAKE_CASE
from pipeline.core.model.trajectory import (
    FinalAnswer,
    Provenance,
    ToolCall,
    Trajectory,
    UnparsedAction,
)
from pipeline.core.release.atbench_format import (
    IMPORTED_DOMAIN,
    _imported_risk_points,
    _tools,
    _verdict,
)
from pipeline.core.release.import_actions import read_action
from pipeline.core.release.import_sources import SourceRow, row_mapping

_SLUG = re.compile(r"[^a-z0-9]+")
_RJUDGE_CONSUMED = frozenset(
    {"id", "contents", "label", "profile", "tool_used", "risk_description"}
)


def rjudge_trajectory(
    row: SourceRow, taken_pair_ids: set[str], taxonomy: Taxonomy, provenance: Provenance
) -> tuple[Trajectory, set[str]]:
    data = row_mapping(row)
    notes: set[str] = set()
    record = str(row.id if row.id is not None else f"#{row.index}")
    row_id = data.get("id")
    if not isinstance(row_id, int) or isinstance(row_id, bool):
        row_id = row.index
        notes.add("missing_id")
    verdict = _verdict(data.get("label"), record)
    episodes = _rjudge_episodes(data.get("contents"), record, notes)
    labels = _rjudge_labels(data, verdict, taxonomy, notes)
    reason = data.get("risk_description") or data.get("reason") or ""
    if not isinstance(reason, str):
        raise InputError("must be a string", record=record, field="risk_description")
    pair_id = _unique(f"row-{row_id}", taken_pair_ids, notes)
    consumed = _RJUDGE_CONSUMED | (set(AXES) if labels else set())
    construction = {
        "imported_row_id": str(row_id),
        "source_file": row.file,
        **{f"source.{key}": _text(value) for key, value in data.items() if key not in consumed},
    }
    trajectory = {
        "id": f"{pair_id}-{verdict}",
        "domain": _domain(data),
        "pair_id": pair_id,
        "variant": verdict,
        "tools": _rjudge_tools(data.get("tool_used"), episodes, record, notes),
        "profile": _text(data.get("profile") or ""),
        "episodes": episodes,
        "verdict": verdict,
        "labels": labels,
        "reason": reason,
        "risk_points": _imported_risk_points(episodes, labels, reason) if labels else [],
        "provenance": provenance,
        "construction": construction,
    }
    if notes:
        construction["import_notes"] = ",".join(sorted(notes))
    try:
        return Trajectory.model_validate(trajectory), notes
    except ValidationError as err:
        raise InputError.from_validation(err, file=None, record=record) from None


def _unique(pair_id: str, taken: set[str], notes: set[str]) -> str:
    if pair_id not in taken:
        return pair_id
    notes.add("duplicate_id")
    suffix = 2
    while f"{pair_id}-{suffix}" in taken:
        suffix += 1
    return f"{pair_id}-{suffix}"


def _domain(data: Mapping[str, Any]) -> str:
    """Our `domain` key when valid, else a slug of the source's scenario, else `imported`."""
    for key in ("domain", "scenario", "application_scenario"):
        value = data.get(key)
        if isinstance(value, str):
            slug = _SLUG.sub("_", value.lower()).strip("_")
            if re.match(SNAKE_CASE, slug):
                return slug
    return IMPORTED_DOMAIN


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _rjudge_labels(
    data: Mapping[str, Any], verdict: str, taxonomy: Taxonomy, notes: set[str]
) -> dict[str, str] | None:
    """Taxonomy leaves when every axis maps onto one; otherwise NULL, flagged."""
    if verdict == "safe":
        return None
    spellings = {axis: data.get(axis) for axis in AXES}
    labels = {
        axis: taxonomy.try_normalise(axis, value)
        for axis, value in spellings.items()
        if isinstance(value, str) and value.strip()
    }
    if len(labels) == len(AXES) and all(labels.values()):
        return {axis: leaf for axis, leaf in labels.items() if leaf}
    notes.add("unlabelled_unsafe")
    if any(value not in (None, "") for value in spellings.values()):
        notes.add("unmapped_labels")
    return None


def _rjudge_tools(
    tool_used: Any, episodes: list[dict[str, Any]], record: str, notes: set[str]
) -> list[dict[str, Any]]:
    """The row's own tool list if it has one, plus a synthesised spec per unlisted name."""
    tools = _tools(tool_used, record) if tool_used is not None else []
    listed = {tool["name"] for tool in tools}
    for turn in (turn for episode in episodes for turn in episode["turns"]):
        action = turn.get("action")
        if isinstance(action, ToolCall) and action.name not in listed:
            tools.append({"name": action.name, "description": "", "parameters": {"type": "object"}})
            listed.add(action.name)
            notes.add("synthesised_tools")
    if not tools:
        notes.add("no_tools")
    return tools


def _rjudge_episodes(contents: Any, record: str, notes: set[str]) -> list[dict[str, Any]]:
    if not isinstance(contents, list) or not all(isinstance(ep, list) for ep in contents):
        raise InputError(
            "contents must be a list of episodes (lists of turns)", record=record, field="contents"
        )
    episodes = []
    for e, episode in enumerate(contents):
        turns = _rjudge_turns(episode, record, e, notes)
        if turns:
            episodes.append({"kind": "main", "turns": turns})
        else:
            notes.add("dropped_empty_episode")
    if not episodes:
        raise InputError("the row has no turns", record=record, field="contents")
    return episodes


def _rjudge_turns(episode: list[Any], record: str, e: int, notes: set[str]) -> list[dict[str, Any]]:
    """Turns in the model's shape; a call always ends up with exactly one observation."""
    turns: list[dict[str, Any]] = []

    def awaiting_observation() -> bool:
        return bool(turns) and isinstance(turns[-1].get("action"), ToolCall)

    def close_call() -> None:
        if awaiting_observation():
            turns.append({"role": "environment", "content": ""})
            notes.add("inserted_empty_observation")

    for t, turn in enumerate(episode):
        where = f"contents.{e}.{t}"
        role = turn.get("role") if isinstance(turn, dict) else None
        if role == "environment":
            content = turn.get("content")
            if content is None or (isinstance(content, str) and not content.strip()):
                if awaiting_observation():
                    turns.append({"role": "environment", "content": content or ""})
                    if content is None:
                        notes.add("null_observation")
                else:
                    notes.add("dropped_empty_observation")
                continue
            previous = turns[-1].get("action") if turns else None
            if not isinstance(previous, ToolCall | UnparsedAction):
                notes.add("unanchored_observation")
            turns.append({"role": "environment", "content": _text(content)})
            continue
        close_call()
        if role == "user":
            turns.append({"role": "user", "content": _text(turn.get("content") or "")})
        elif role == "agent":
            raw = turn.get("action")
            raw = "" if raw is None else _text(raw)
            observed = _has_observation(episode[t + 1] if t + 1 < len(episode) else None)
            turns.append(
                {
                    "role": "agent",
                    "thought": _text(turn.get("thought") or ""),
                    "action": _agent_action(raw, observed, notes),
                }
            )
        else:
            raise InputError(
                f"role must be user, agent or environment, got {role!r}", record=record, field=where
            )
    close_call()
    return turns


def _has_observation(turn: Any) -> bool:
    if not isinstance(turn, dict) or turn.get("role") != "environment":
        return False
    content = turn.get("content")
    return content is not None and not (isinstance(content, str) and not content.strip())


def _agent_action(
    raw: str, observed: bool, notes: set[str]
) -> ToolCall | FinalAnswer | UnparsedAction:
    """Read one action; plain text is the final answer unless an observation follows it."""
    reading = read_action(raw)
    notes.update(reading.notes)
    if reading.action is not None:
        return reading.action
    if observed:
        notes.add("unparsed_action")
        return UnparsedAction(raw=raw)
    notes.add("free_text_final_answer")
    return FinalAnswer(response=raw.strip())
