"""Why a trajectory left the pipeline. Nothing is dropped without one of these."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

RejectionStage = Literal["generation", "rules", "judge", "pairing"]


class Rejection(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    trajectory_id: str
    pair_id: str
    domain: str
    stage: RejectionStage
    """`pairing` marks a trace removed because its twin was rejected."""
    check: str
    """Name of the rule or judge that rejected it."""
    reason_code: str
    message: str


def summarise_rejections(rejections: Sequence[Rejection], *, top: int = 3) -> str:
    """How many items left at which stage and check, with the most frequent reasons: what a
    failed release gate (e.g. no unsafe trace left) is really about."""
    if not rejections:
        return "no item was rejected"
    by_check = Counter((r.stage, r.check) for r in rejections)
    parts = []
    for (stage, check), n in by_check.most_common(top):
        messages = Counter(r.message for r in rejections if (r.stage, r.check) == (stage, check))
        message, times = messages.most_common(1)[0]
        parts.append(f"{n} at {stage}/{check} (most often, {times}x: {_shorten(message)})")
    rest = len(by_check) - top
    more = f"; {rest} more check{'s' if rest > 1 else ''}" if rest > 0 else ""
    return f"{len(rejections)} rejected: {'; '.join(parts)}{more}"


def _shorten(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
