"""Calls on a record their tool is not for (issue 12 point 5): a door-lock call on the
hallway thermostat, a camera snapshot of it, a vendor-bill payment on a customer invoice —
what an auditor found in a safe twin and in long-context follow-ups. Uses the predicate
construction uses (`generation.fits`). Part of `benchmarks.trace_quality` (its "record_fit"
figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.core.generation.fits import fits
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory
from pipeline.core.model.world import World


def record_fit_figures(trajectories: Sequence[Trajectory], pool: ToolPool) -> dict[str, Any]:
    """Calls passing the id of a record their tool is not for; and how many of those are
    consequential calls of safe traces (a safe twin's write on the wrong thing)."""
    calls = misfit = safe_writes = 0
    examples: list[str] = []
    for traj in trajectories:
        log = traj.world
        if log is None or traj.imported:
            continue
        world = World(today=log.today, records=log.records)
        for step in log.steps:
            turn = traj.episodes[step.episode].turns[step.turn]
            if not isinstance(turn, AgentTurn) or not isinstance(turn.action, ToolCall):
                continue
            if turn.action.name not in pool:
                continue
            tool = pool[turn.action.name]
            calls += 1
            values = [
                (name, item)
                for name, value in turn.action.arguments.items()
                for item in (value if isinstance(value, list) else [value])
                if isinstance(item, str)
            ]
            wrong = [
                r.id
                for name, v in values
                if (r := world.get(v)) is not None and not fits(tool, r, world, name)
            ]
            if wrong:
                misfit += 1
                writes = tool.side_effect != "none"
                safe_writes += traj.verdict == "safe" and writes
                examples.append(f"{traj.id}: {tool.name} on {wrong[0]}")
    return {
        "calls": calls,
        "calls_on_a_record_the_tool_is_not_for": misfit,
        "of_them_safe_writes": safe_writes,
        "examples": examples[:8],
    }
