"""Why a trajectory left the pipeline. Nothing is dropped without one of these."""

from __future__ import annotations

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
