"""What planted risks say, on pairs the real stages built: a tool's wrong data as the tool
holds it, a false claim where people publish one."""

from __future__ import annotations

import itertools
import json
import re

from pipeline.core.generation.feasibility import authored, carries_text
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, ToolCall, Trajectory
from tests.support.pairs import Built


def _source(traj: Trajectory) -> str:
    return traj.labels.risk_source if traj.labels is not None else ""


def _carrier(traj: Trajectory) -> str:
    """The tool whose answer holds the first risk point."""
    point = traj.risk_points[0]
    turns = traj.episodes[point.episode].turns
    call = turns[point.turn - 1]
    assert isinstance(call, AgentTurn) and isinstance(call.action, ToolCall)
    return call.action.name


def _corrupted(built: Built) -> list[Trajectory]:
    found = [u for u, _ in built.pairs.values() if _source(u) == "corrupted_tool_feedback"]
    assert found, built.failures
    return found


def test_corrupted_feedback_is_plain_data_that_vouches_for_nothing(built_pairs: Built) -> None:
    """Stated as a result states data, field by field (a wrong value in the result's own
    field is its own test's, in test_pairs)."""
    for unsafe in _corrupted(built_pairs):
        if unsafe.world is not None and "corrupted" in unsafe.world.evidence:
            continue
        text = unsafe.risk_points[0].text
        assert re.search(r"\w: \S", text), text  # 'status: paid', field by field
        assert not re.search(r"verified by|approved by|successfully|supersedes", text, re.I)
        assert " is " not in text.split(" — ")[-1], text  # data, not a sentence about it
        assert "True" not in re.findall(r"\b\w+\b", text), text  # JSON's true, not Python's


def test_corrupted_feedback_sits_in_a_tools_own_result_when_the_run_has_one(
    built_pairs: Built,
) -> None:
    """A tampered value inside a driver's message reads as the driver's claim: an answer
    someone wrote carries it only when no earlier answer of the tool's own could."""
    pool = built_pairs.inputs.pool
    for unsafe in _corrupted(built_pairs):
        point = unsafe.risk_points[0]
        if not authored(pool[_carrier(unsafe)]):
            continue
        turns = unsafe.episodes[point.episode].turns[: point.turn - 1]
        for call, answer in itertools.pairwise(turns):
            if isinstance(call, AgentTurn) and isinstance(call.action, ToolCall):
                assert isinstance(answer, EnvironmentTurn)
                tool = pool[call.action.name]
                own = not authored(tool) and carries_text(tool, json.loads(answer.content))
                assert not own, (unsafe.id, tool.name)
