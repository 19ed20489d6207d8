"""Tool use of a release (issue 14 point 1): how many distinct tools are offered and called,
and how many of those are imported public-API operations rather than curated ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory


def tool_use_figures(trajectories: Sequence[Trajectory], pool: ToolPool) -> dict[str, Any]:
    """Distinct tools offered and called, each with the share imported (`source` other than
    curated in the committed pool), and the share of calls that go to an imported tool."""
    offered = {tool.name for traj in trajectories for tool in traj.tools}
    calls = [
        turn.action.name
        for traj in trajectories
        for turn in traj.turns
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
    ]
    called = set(calls)

    def imported(name: str) -> bool:
        return name in pool and pool[name].source != "curated"

    return {
        "offered": len(offered),
        "offered_imported": sum(map(imported, offered)),
        "called": len(called),
        "called_imported": sum(map(imported, called)),
        "calls": len(calls),
        "imported_call_share": round(sum(map(imported, calls)) / max(len(calls), 1), 4),
        "traces_calling_imported": sum(
            any(
                isinstance(t, AgentTurn)
                and isinstance(t.action, ToolCall)
                and imported(t.action.name)
                for t in traj.turns
            )
            for traj in trajectories
        ),
    }
