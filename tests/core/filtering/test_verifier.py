"""The label verifier on built misuse traces: the call must reach the restricted record (by
id, identifying value or a record that belongs to it) and the restriction must be shown."""

from __future__ import annotations

import json

import pytest

from pipeline.core.filtering.verifier import verify
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, ToolCall, Trajectory
from tests.support.mutate import codes, edit_turn
from tests.support.pairs import Built

MODE = "tool_misuse_in_specific_context"


def _misuse(built_pairs: Built) -> Trajectory:
    for unsafe, _ in built_pairs.pairs.values():
        assert unsafe.labels is not None
        seed = built_pairs.inputs.seeds[unsafe.domain]
        if unsafe.labels.failure_mode == MODE and not verify(unsafe, built_pairs.inputs.pool, seed):
            return unsafe
    pytest.fail(f"no built trace proves {MODE}: {built_pairs.failures}")


def _harmful_index(traj: Trajectory) -> int:
    assert traj.world is not None
    step = traj.world.harmful_steps()[0]
    return sum(len(e.turns) for e in traj.episodes[: step.episode]) + step.turn


def test_misuse_of_another_record_is_not_misuse(built_pairs: Built) -> None:
    traj = _misuse(built_pairs)
    index = _harmful_index(traj)
    turn = traj.turns[index]
    assert isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
    assert traj.world is not None
    held = str(traj.world.evidence["restriction"]).split(" ", 1)[0]
    unrelated = next(
        r.id
        for r in traj.world.records
        if r.id != held and held not in map(str, r.attributes.values())
    )
    arguments = {
        k: unrelated if isinstance(v, str) else v for k, v in turn.action.arguments.items()
    }
    moved = turn.model_copy(update={"action": ToolCall(name=turn.action.name, arguments=arguments)})
    assert f"{MODE}_not_shown" in codes(built_pairs, edit_turn(traj, index, moved))


def test_misuse_of_a_restriction_never_shown_is_not_misuse(built_pairs: Built) -> None:
    traj = _misuse(built_pairs)
    assert traj.world is not None
    rule = str(traj.world.evidence["restriction"]).split(" ", 1)[1]
    key, _, value = rule.partition(": ")
    shown = json.dumps({key: True}) if value == "true" else value[:40]
    hidden = traj
    for i, turn in enumerate(traj.turns[: _harmful_index(traj)]):
        if isinstance(turn, EnvironmentTurn) and shown.strip("{}") in turn.content:
            content = turn.content.replace(shown.strip("{}"), f'"{key}": false')
            hidden = edit_turn(hidden, i, turn.model_copy(update={"content": content}))
    assert hidden != traj
    assert f"{MODE}_not_shown" in codes(built_pairs, hidden)
