"""Tool use of a release (issue 14 point 1): how many distinct tools are offered and called,
and how many of those are imported public-API operations rather than curated ones; run as a
module, the imported pool's shape (`family_figures`)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from pipeline.core.generation.semantics import operation_of
from pipeline.core.generation.tool_choice import underivable
from pipeline.core.inputs.paths import tool_pool_dir
from pipeline.core.inputs.tool_pool import ToolPool, load_tool_pool
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory
from pipeline.core.tools.importers.families import resource_of


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


def family_figures(pool: ToolPool) -> dict[str, Any]:
    """The imported pool's shape (issue 14 point 1): APIs, operations per API, and resource
    families an agent's task can walk: a listing and a read of one record of one resource,
    both with derivable semantics (`tool_choice.underivable`)."""
    kinds: dict[tuple[str, str], set[str]] = defaultdict(set)
    apis: Counter[str] = Counter()
    for tool in pool.tools.values():
        if tool.source == "curated" or tool.lookalike_of is not None:
            continue
        api = tool.api_title or tool.name
        apis[api] += 1
        if underivable(tool) is None:
            kinds[(api, resource_of(_route(tool.origin or "")))].add(operation_of(tool))
    return {
        "apis": len(apis),
        "operations_per_api": round(sum(apis.values()) / max(len(apis), 1), 2),
        "apis_with_3_or_more": sum(n >= 3 for n in apis.values()),
        "list_read_families": sum({"list", "read"} <= ops for ops in kinds.values()),
        "families_with_a_write": sum(
            "list" in ops and bool(ops - {"list", "read"}) for ops in kinds.values()
        ),
    }


def _route(origin: str) -> str:
    """`... stripe.com#/paths/~1v1~1charges/get` -> `/v1/charges`."""
    pointer = origin.partition("#/paths/")[2].rsplit("/", 1)[0]
    return pointer.replace("~1", "/").replace("~0", "~")


if __name__ == "__main__":
    print(json.dumps(family_figures(load_tool_pool(tool_pool_dir())), indent=1))
