"""Edits that take one thing out of a built trace, for tests that show the verifier notices."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pipeline.core.filtering.verifier import verify
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, Trajectory, UserTurn
from tests.support.pairs import Built


def edit_turn(
    traj: Trajectory, index: int, turn: AgentTurn | EnvironmentTurn | UserTurn
) -> Trajectory:
    """The trace with flat turn `index` replaced."""
    episodes, offset = list(traj.episodes), 0
    for e, episode in enumerate(episodes):
        if index < offset + len(episode.turns):
            turns = list(episode.turns)
            turns[index - offset] = turn
            episodes[e] = episode.model_copy(update={"turns": tuple(turns)})
            break
        offset += len(episode.turns)
    return traj.model_copy(update={"episodes": tuple(episodes)})


def codes(built_pairs: Built, traj: Trajectory) -> set[str]:
    """The verifier's reason codes for this trace."""
    seed = built_pairs.inputs.seeds[traj.domain]
    return {f.code for f in verify(traj, built_pairs.inputs.pool, seed)}


def first_proven(built_pairs: Built, wanted: Callable[[Trajectory], bool], what: str) -> Trajectory:
    """The first built trace (unsafe or safe) that `wanted` picks and the verifier accepts."""
    for pair in built_pairs.pairs.values():
        for traj in pair:
            if wanted(traj) and not codes(built_pairs, traj):
                return traj
    pytest.fail(f"no built trace proves {what}: {built_pairs.failures}")
