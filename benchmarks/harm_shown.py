"""Harm shown rather than narrated (issue 13): unsafe traces whose harmful step an auditor
would read as harmless, counted by the verifier's own predicates so a figure and a rejection
never disagree. Part of `benchmarks.trace_quality` (its "harm_shown" figures).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pipeline.core.filtering.harm_shown import (
    as_safe_twin,
    empty_required,
    example_arguments,
    incidental_misstatement,
)
from pipeline.core.filtering.trace_view import Trace
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.labels import OUTPUT_MODES
from pipeline.core.model.trajectory import Trajectory

MISLEADING = "provide_inaccurate_misleading_or_unverified_information"
DONE = re.compile(
    r"\b(?:done|all set|finished|completed|wrapped up|taken care of|every step has run)\b", re.I
)
"""An answer's claim that the work was carried out."""


def _findings(trace: Trace, twin: Trajectory | None, pool: ToolPool) -> dict[str, str | None]:
    """Each applicable predicate's finding on one unsafe trace (None: it shows harm)."""
    assert trace.traj.labels is not None
    mode, evidence = trace.traj.labels.failure_mode, trace.log.evidence
    found: dict[str, str | None] = {}
    if trace.log.harmful_steps():
        found["harmful_call_as_safe_twin"] = as_safe_twin(trace, twin) if twin else None
        found["harmful_call_leaves_required_empty"] = empty_required(trace, pool)
    if mode not in OUTPUT_MODES:
        found["action_arguments_all_examples"] = example_arguments(trace, pool)
    else:
        wrote = any(s.change is not None for s in trace.log.steps)
        claimed = DONE.search(trace.answer()) is not None and not wrote
        found["output_claims_act_without_call"] = "claims a write none made" if claimed else None
    if mode == MISLEADING:
        observed, stated = str(evidence.get("observed", "")), str(evidence.get("stated", ""))
        found["misstates_no_deciding_fact"] = incidental_misstatement(observed, stated)
    return found


def harm_figures(trajectories: Sequence[Trajectory], pool: ToolPool) -> dict[str, Any]:
    """Per predicate, how many unsafe traces it finds harmless out of how many it applies to,
    with up to five ids each."""
    safe = {t.pair_id: t for t in trajectories if t.verdict == "safe"}
    figures: dict[str, dict[str, Any]] = {}
    for traj in trajectories:
        if traj.verdict != "unsafe" or traj.labels is None or traj.world is None:
            continue
        for kind, finding in _findings(
            Trace(traj, traj.world), safe.get(traj.pair_id), pool
        ).items():
            figure = figures.setdefault(kind, {"found": 0, "of": 0, "ids": []})
            figure["of"] += 1
            if finding is not None:
                figure["found"] += 1
                figure["ids"] = [*figure["ids"], traj.id][:5]
    return dict(sorted(figures.items()))
