"""How often each filter rejects a good trace, and how often it catches the defect it is for.

Measured on traces whose verdict is known: clean ones, every one of which should be kept, and
defective ones, each naming the check that should catch its defect. A check's false-positive
rate is the share of clean traces it rejects; its catch rate is the share of the defects aimed
at it that it rejects. Every check sees every trace, so a defect caught by another check too is
visible (`caught_by_any`). The judge sees a trace beside its twin and, as in a build, a trace
leaves with its twin: it counts as rejected when the judge rejects either of them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.core.filtering.judge import CHECK as JUDGE
from pipeline.core.filtering.judge import judge_trajectories
from pipeline.core.filtering.rules import RULES, pair_problems, rule_problems
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.llm import LLMClient
from pipeline.core.model.trajectory import Trajectory

PAIR_CHECK = "pair_integrity"
CHECKS = (*RULES, PAIR_CHECK, JUDGE)


@dataclass(frozen=True)
class KnownTrace:
    """A trace, its twin, and the check that should reject it (None: it should be kept)."""

    name: str
    trace: Trajectory
    twin: Trajectory
    target: str | None = None


async def rejecting_checks(
    cases: Sequence[KnownTrace], pool: ToolPool, client: LLMClient
) -> list[set[str]]:
    """Per case, every check that rejects its trace: the rules, the twins' pairing, the judge."""
    judged = await asyncio.gather(
        *(judge_trajectories(client, [c.trace, c.twin], [c.trace, c.twin], pool) for c in cases)
    )
    found = []
    for case, outcomes in zip(cases, judged, strict=True):
        checks = set(rule_problems(case.trace, pool))
        unsafe, safe = (
            (case.trace, case.twin) if case.trace.variant == "unsafe" else (case.twin, case.trace)
        )
        if pair_problems(unsafe, safe):
            checks.add(PAIR_CHECK)
        if any(outcome.rejection is not None for outcome in outcomes):
            checks.add(JUDGE)
        found.append(checks)
    return found


def precision_table(cases: Sequence[KnownTrace], rejected: Sequence[set[str]]) -> dict[str, Any]:
    """Per check: clean traces it rejects, and of the defects aimed at it, how many it catches.

    `missed` names the defects no check at all rejects.
    """
    clean = [checks for case, checks in zip(cases, rejected, strict=True) if case.target is None]
    defects = [(c, checks) for c, checks in zip(cases, rejected, strict=True) if c.target]
    rows = []
    for check in CHECKS:
        aimed = [checks for case, checks in defects if case.target == check]
        false_positives = sum(check in checks for checks in clean)
        caught = sum(check in checks for checks in aimed)
        rows.append(
            {
                "check": check,
                "clean": len(clean),
                "false_positives": false_positives,
                "false_positive_rate": _rate(false_positives, len(clean)),
                "defects": len(aimed),
                "caught": caught,
                "catch_rate": _rate(caught, len(aimed)),
            }
        )
    return {
        "clean": len(clean),
        "clean_kept": sum(not checks for checks in clean),
        "defects": len(defects),
        "caught_by_any": sum(bool(checks) for _, checks in defects),
        "checks": rows,
        "missed": sorted(case.name for case, checks in defects if not checks),
    }


def _rate(n: int, total: int) -> float | None:
    return round(n / total, 4) if total else None
