"""The public ATBench record format (design §3.1): export, import and the public projection.

A row is what a guard sees plus the answer key: the tool list, the episodes of turns, the
binary label and, for unsafe rows, one leaf id per axis. Everything else in a `Trajectory`
(profile, risk points, construction notes, provenance) stays in the release's DuckDB file, so
`public_view` names exactly the part that survives `to_atbench_row` -> `from_atbench_row`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from itertools import pairwise
from typing import Any, get_args

from pydantic import ValidationError

from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.actions import format_action, parse_action
from pipeline.core.model.channels import CHANNEL_OF, Channel
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES, leaf_context
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    Provenance,
    Tag,
    Trajectory,
    UserTurn,
)

PUBLIC_KEYS = (
    "id",
    "tool_used",
    "contents",
    "label",
    "risk_source",
    "failure_mode",
    "real_world_harm",
    "reason",
)
"""The published ATBench keys, in the order the public data has them."""
EXTRA_KEYS = ("domain", "pair_id", "subsets")
"""Keys our releases add after the public ones; readers of the public data ignore them."""

IMPORTED_DOMAIN = "imported"

_TAGS: frozenset[str] = frozenset(get_args(Tag))

# The public format does not locate an imported unsafe row's risk, so the point goes on the
# first turn of the role its risk source's channel (`CHANNEL_OF`) arrives through.
_ROLE_OF_CHANNEL: dict[Channel, str] = {
    "user_turn": "user",
    "observation": "environment",
    "tool_output": "environment",
    "tool_execution": "environment",
    "agent_reasoning": "agent",
}


def release_order(trajectories: Iterable[Trajectory]) -> list[Trajectory]:
    """Trajectories sorted by uid; a row's position is its public id, stable across rebuilds."""
    ordered = sorted(trajectories, key=lambda t: t.id)
    for previous, current in pairwise(ordered):
        if previous.id == current.id:
            raise ValueError(f"trajectory id {current.id!r} appears twice in the release")
    return ordered


def to_atbench_row(traj: Trajectory, public_id: int) -> dict[str, Any]:
    """One public row; safe rows carry "" on the label axes, as in the published data."""
    labels = traj.labels
    return {
        "id": public_id,
        "tool_used": [tool.model_dump() for tool in traj.tools],
        "contents": [[_turn_row(turn) for turn in episode.turns] for episode in traj.episodes],
        "label": 1 if traj.verdict == "unsafe" else 0,
        "risk_source": labels.risk_source if labels else "",
        "failure_mode": labels.failure_mode if labels else "",
        "real_world_harm": labels.real_world_harm if labels else "",
        "reason": traj.reason,
        "domain": traj.domain,
        "pair_id": traj.pair_id,
        "subsets": sorted(traj.tags),
    }


def _turn_row(turn: UserTurn | AgentTurn | EnvironmentTurn) -> dict[str, str]:
    if isinstance(turn, AgentTurn):
        return {"role": "agent", "thought": turn.thought, "action": format_action(turn.action)}
    return {"role": turn.role, "content": turn.content}


def public_view(traj: Trajectory) -> dict[str, Any]:
    """The part of a trajectory the public format carries; equal after an export/import trip."""
    return {
        "domain": traj.domain,
        "pair_id": traj.pair_id,
        "verdict": traj.verdict,
        "labels": traj.labels.model_dump() if traj.labels else None,
        "reason": traj.reason,
        "tags": sorted(traj.tags),
        "tools": [tool.model_dump() for tool in traj.tools],
        "episodes": [
            [turn.model_dump(exclude={"grounded_in_context"}) for turn in episode.turns]
            for episode in traj.episodes
        ],
    }


def from_atbench_row(
    row: Mapping[str, Any], *, taxonomy: Taxonomy, provenance: Provenance
) -> Trajectory:
    """Rebuild a trajectory from a public row (ours or the published data).

    Label spellings go through `taxonomy.normalise`; labels on a safe row are ignored, since a
    safe trajectory carries none. Without our extra keys the row becomes domain `imported`,
    pair `row-<id>`. The public format has no agent profile, so it is "" unless the row has a
    `profile` (R-Judge-style rows do). Episodes become setup/exploit when a two-episode row is
    tagged `delayed_trigger`, else `main`. The public format does not locate the risk, so an
    unsafe row gets one risk point whose channel follows its risk source, on the first turn of
    the matching role (turn 0 when none matches), with the row's reason as its text.
    Errors are `InputError`s naming the row id and the field.
    """
    row_id = row.get("id")
    if not isinstance(row_id, int) or isinstance(row_id, bool):
        raise InputError(f"id must be an integer, got {row_id!r}", field="id")
    record = str(row_id)

    verdict = _verdict(row.get("label"), record)
    labels = _labels(row, taxonomy, record) if verdict == "unsafe" else None
    tags = _tags(row.get("subsets", []), record)
    pair_id = str(row.get("pair_id") or f"row-{row_id}")
    episodes = _episodes(row.get("contents"), tags, record)
    reason = row.get("reason", "")
    if not isinstance(reason, str):
        raise InputError("reason must be a string", record=record, field="reason")

    data: dict[str, Any] = {
        "id": f"{pair_id}-{verdict}",
        "domain": row.get("domain") or IMPORTED_DOMAIN,
        "pair_id": pair_id,
        "variant": verdict,
        "tools": _tools(row.get("tool_used"), record),
        "profile": row.get("profile") or "",
        "episodes": episodes,
        "verdict": verdict,
        "labels": labels,
        "reason": reason,
        "risk_points": _imported_risk_points(episodes, labels, reason) if labels else [],
        "tags": tags,
        "provenance": provenance,
        "construction": {"imported_row_id": record},
    }
    try:
        return Trajectory.model_validate(data, context=leaf_context(taxonomy))
    except ValidationError as err:
        raise InputError.from_validation(err, file=None, record=record) from None


def _verdict(label: Any, record: str) -> str:
    verdicts = {0: "safe", 1: "unsafe", "safe": "safe", "unsafe": "unsafe"}
    if isinstance(label, int | str) and not isinstance(label, bool) and label in verdicts:
        return verdicts[label]
    raise InputError(
        f"label must be 0 (safe) or 1 (unsafe), got {label!r}", record=record, field="label"
    )


def _labels(row: Mapping[str, Any], taxonomy: Taxonomy, record: str) -> dict[str, str]:
    labels: dict[str, str] = {}
    for axis in AXES:
        spelling = row.get(axis)
        if not isinstance(spelling, str) or not spelling.strip():
            raise InputError("an unsafe row needs a leaf on this axis", record=record, field=axis)
        try:
            labels[axis] = taxonomy.normalise(axis, spelling)
        except ValueError as err:
            raise InputError(str(err), record=record, field=axis) from None
    return labels


def _tags(subsets: Any, record: str) -> list[str]:
    if not isinstance(subsets, list) or not all(isinstance(s, str) for s in subsets):
        raise InputError("subsets must be a list of strings", record=record, field="subsets")
    unknown = sorted(set(subsets) - _TAGS)
    if unknown:
        raise InputError(
            f"unknown subsets {unknown}; expected some of {sorted(_TAGS)}",
            record=record,
            field="subsets",
        )
    return sorted(set(subsets))


def _tools(tool_used: Any, record: str) -> list[dict[str, Any]]:
    """Keep name, description and parameters; public rows may carry extra bookkeeping keys."""
    if not isinstance(tool_used, list):
        raise InputError("tool_used must be a list of tools", record=record, field="tool_used")
    tools = []
    for index, tool in enumerate(tool_used):
        if not isinstance(tool, dict):
            raise InputError("a tool must be an object", record=record, field=f"tool_used.{index}")
        tools.append({key: tool.get(key) for key in ("name", "description", "parameters")})
    return tools


def _episodes(contents: Any, tags: list[str], record: str) -> list[dict[str, Any]]:
    if not isinstance(contents, list) or not all(isinstance(ep, list) for ep in contents):
        raise InputError(
            "contents must be a list of episodes (lists of turns)", record=record, field="contents"
        )
    kinds = ["setup", "exploit"] if len(contents) == 2 and "delayed_trigger" in tags else None
    return [
        {
            "kind": kinds[e] if kinds else "main",
            "turns": [_turn(turn, record, f"contents.{e}.{t}") for t, turn in enumerate(episode)],
        }
        for e, episode in enumerate(contents)
    ]


def _turn(turn: Any, record: str, where: str) -> dict[str, Any]:
    role = turn.get("role") if isinstance(turn, dict) else None
    if role == "agent":
        action = turn.get("action")
        if not isinstance(action, str):
            raise InputError("action must be a string", record=record, field=f"{where}.action")
        try:
            parsed = parse_action(action)
        except ValueError as err:
            raise InputError(str(err), record=record, field=f"{where}.action") from None
        return {"role": "agent", "thought": turn.get("thought") or "", "action": parsed}
    if role in ("user", "environment"):
        content = turn.get("content", "")
        if not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        return {"role": role, "content": content}
    raise InputError(
        f"role must be user, agent or environment, got {role!r}", record=record, field=where
    )


def _imported_risk_points(
    episodes: list[dict[str, Any]], labels: dict[str, str], reason: str
) -> list[dict[str, Any]]:
    channel = CHANNEL_OF.get(labels["risk_source"], "user_turn")
    role = _ROLE_OF_CHANNEL.get(channel)
    located = (
        (e, t)
        for e, episode in enumerate(episodes)
        for t, turn in enumerate(episode["turns"])
        if turn["role"] == role
    )
    episode, turn = next(located, (0, 0))
    text = reason.strip() or f"imported row labelled {labels['risk_source']}"
    return [{"episode": episode, "turn": turn, "channel": channel, "text": text}]
