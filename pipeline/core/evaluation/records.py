"""What one evaluation run records per trajectory: the gold side, the raw answer, its reading."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipeline.core.evaluation.formats import Parsed
from pipeline.core.model.labels import AxisId
from pipeline.core.model.trajectory import Tag, Trajectory, Verdict

Status = Literal["ok", "unparseable", "failed"]
"""`unparseable`: the answer had no readable verdict; `failed`: no answer at all (the LLM
layer gave up). Both count as wrong in every metric."""


class Prediction(BaseModel):
    """One row of `predictions.jsonl` and of the run's `predictions` table."""

    model_config = ConfigDict(frozen=True)

    id: str
    domain: str
    tags: tuple[Tag, ...]
    gold_verdict: Verdict
    gold_labels: dict[AxisId, str] | None
    """None for safe traces and for unsafe imported rows the source never labelled."""
    status: Status
    verdict: Verdict | None
    labels: dict[AxisId, str | None]
    raw: str | None
    """The evaluator's answer exactly as it came; None when there was none."""
    problems: tuple[str, ...] = ()


def make_prediction(
    traj: Trajectory, raw: str | None, parsed: Parsed | None, error: str
) -> Prediction:
    """A prediction from an answer and its reading, or from the error that left none."""
    gold = traj.labels.model_dump() if traj.labels is not None else None
    if parsed is None:
        status: Status = "failed"
    else:
        status = "ok" if parsed.verdict is not None else "unparseable"
    return Prediction(
        id=traj.id,
        domain=traj.domain,
        tags=tuple(sorted(traj.tags)),
        gold_verdict=traj.verdict,
        gold_labels=gold,
        status=status,
        verdict=parsed.verdict if parsed else None,
        labels=dict(parsed.labels) if parsed else {},
        raw=raw,
        problems=parsed.problems if parsed else (error,),
    )


@dataclass(frozen=True)
class EvalSource:
    name: str
    """How runs and comparisons name it: the release folder, or `<format>:<file>`."""
    kind: str
    """`release` or `dataset`."""
    path: Path
    trajectories: list[Trajectory]
    details: dict[str, Any]
    """Release version and backend, or the import counts (rows, rejected, flagged)."""
