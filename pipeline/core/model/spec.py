"""What a build is asked to produce. Its hash names the build's working folder and cache."""

from __future__ import annotations

import hashlib
import json

from pydantic import BaseModel, ConfigDict, Field


class ReleaseSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    size: int = Field(default=1000, ge=2)
    """Trajectories in the release: domains are over-planned (`overplan`) and selection keeps
    this many, fewer only where a domain's survivors fall short."""
    seed: int = 0
    """Release seed: every random choice in planning and construction derives from it."""
    unsafe_share: float = Field(default=0.5, gt=0, le=0.5)
    """Share of unsafe traces; each has a safe twin, the rest are benign-only safe traces."""
    long_context_share: float = Field(default=0.15, ge=0, le=1)
    """Share of pairs built as delayed-trigger Setup/Exploit cases."""
    long_html_share: float = Field(default=0.08, ge=0, le=1)
    """Share of pairs whose trigger sits in a long HTML observation."""
    overplan: float = Field(default=0.2, ge=0, le=2)
    """Pairs planned beyond each domain's share (after its measured loss), as a share of it,
    so selection after filtering can meet the domain and leaf quotas."""
    domains: tuple[str, ...] = Field(min_length=1)
    """Every domain of the release, sorted; part of the plan, so one domain's share is
    reproducible when it is regenerated alone."""
    backend: str = "procedural"
    model: str = "procedural-v1"

    def key(self) -> str:
        blob = json.dumps(self.model_dump(mode="json"), sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:12]

    @property
    def n_pairs(self) -> int:
        return max(1, round(self.size * self.unsafe_share))

    @property
    def n_benign(self) -> int:
        return max(0, self.size - 2 * self.n_pairs)
