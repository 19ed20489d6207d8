"""Where a build's files live (one folder per release spec under the outputs folder), and
what a stage reports about its run over one domain.

Partitioned stages write per-domain files there atomically, so any process sharing the folder
can run any stage; only the release step reads them all and writes DuckDB.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pipeline.core.inputs.files import read_jsonl
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.spec import ReleaseSpec


@dataclass(frozen=True)
class Workspace:
    """The folder of one build: stage files, rejections and the ledger, per domain, and the
    plan record and release candidate of the whole build. The one owner of its layout."""

    root: Path

    @classmethod
    def for_spec(cls, spec: ReleaseSpec, outputs: Path | None = None) -> Workspace:
        return cls((outputs or outputs_dir()) / "builds" / spec.key())

    def stage_file(self, stage: str, domain: str) -> Path:
        return self.root / stage / f"{domain}.jsonl"

    def rejections_file(self, stage: str, domain: str) -> Path:
        return self.root / "rejections" / stage / f"{domain}.jsonl"

    @property
    def cache_dir(self) -> Path:
        """The response cache, shared by every build under the same outputs folder."""
        return self.root.parent.parent / "cache"

    def ledger_dir(self, domain: str) -> Path:
        return self.root / "ledger" / domain

    @property
    def plan_record_file(self) -> Path:
        """The plan's leaf coverage and incompatibilities (`stages.plan_record`)."""
        return self.root / "plan" / "coverage.json"

    @property
    def agreement_dir(self) -> Path:
        """Per-domain agreement of the judge with the rules, and their merge."""
        return self.root / "judge_agreement"

    @property
    def candidate_trajectories_file(self) -> Path:
        return self.root / "candidate" / "trajectories.jsonl"

    @property
    def candidate_rejections_file(self) -> Path:
        return self.root / "candidate" / "rejections.jsonl"

    @property
    def candidate_ledger_file(self) -> Path:
        return self.root / "candidate" / "ledger.jsonl"

    @property
    def candidate_release_file(self) -> Path:
        """How to publish the candidate: manifest config, backend, the version it follows."""
        return self.root / "candidate" / "release.json"

    def read(self, stage: str, domain: str, model: type[Any]) -> list[Any]:
        path = self.stage_file(stage, domain)
        if not path.exists():
            raise FileNotFoundError(
                f"{path} is missing: materialise stage {stage!r} for domain {domain!r} first"
            )
        return read_jsonl(path, model)

    def rejections(self, domain: str) -> list[Rejection]:
        found = sorted((self.root / "rejections").glob(f"*/{domain}.jsonl"))
        return [r for path in found for r in read_jsonl(path, Rejection)]


class StageReport(BaseModel):
    """What a stage did for one domain; Dagster shows it as materialisation metadata."""

    stage: str
    domain: str
    written: int
    rejected: int = 0
    details: dict[str, Any] = {}
    ledger_segments: list[str] = []
    """The ledger segment files (names in the domain's ledger folder) this run wrote: the
    calls behind the stage file, as `atbench cost --release` counts them."""
