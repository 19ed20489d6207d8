"""The release under audit, read once and never written.

The audit reads `release.duckdb` read-only and keeps the trajectories in memory (a release of
1,000 is a few megabytes), so every page and sheet works from the same snapshot. The audit
tables bind to this release by its manifest version and the database's sha256, so audit
answers are never applied to a different release by mistake.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.core.model.errors import InputError
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.publish import read_manifest
from pipeline.core.release.sources import check_release
from pipeline.core.release.store import DB_FILE, load_trajectories
from pipeline.core.release.verify import MANIFEST_FILE


@dataclass(frozen=True)
class AuditedRelease:
    """A release directory's trajectories, public ids and twins."""

    path: Path
    manifest: dict[str, Any]
    trajectories: tuple[Trajectory, ...]
    """In public-id order: `trajectories[i]` has public id `i`."""
    by_uid: dict[str, Trajectory] = field(repr=False)
    public_id: dict[str, int] = field(repr=False)
    by_pair: dict[tuple[str, str], Trajectory] = field(repr=False)
    """(pair_id, variant) -> trajectory."""

    @property
    def version(self) -> int:
        return int(self.manifest["version"])

    @property
    def db_sha256(self) -> str:
        return str(self.manifest["files"][DB_FILE]["sha256"])

    def twin(self, uid: str) -> Trajectory | None:
        """The other variant of the same pair, if the release has it."""
        traj = self.by_uid[uid]
        other = "safe" if traj.variant == "unsafe" else "unsafe"
        return self.by_pair.get((traj.pair_id, other))

    def stratified_sample(self, size: int, seed: int) -> list[str]:
        """`size` uids drawn per (verdict, domain) stratum in proportion to its share.

        Largest-remainder rounding makes the sizes add up exactly; the draw is seeded, so the
        same call gives the same sample. Returned in public-id order.
        """
        if not 0 < size <= len(self.trajectories):
            raise InputError(
                f"sample size must be between 1 and {len(self.trajectories)}, got {size}",
                field="sample",
            )
        strata: dict[tuple[str, str], list[str]] = defaultdict(list)
        for traj in self.trajectories:
            strata[(traj.verdict, traj.domain)].append(traj.id)
        total = len(self.trajectories)
        quotas = {key: size * len(uids) / total for key, uids in strata.items()}
        counts = {key: int(quota) for key, quota in quotas.items()}
        by_remainder = sorted(strata, key=lambda key: (counts[key] - quotas[key], key))
        for key in by_remainder[: size - sum(counts.values())]:
            counts[key] += 1
        rng = random.Random(seed)
        chosen = {uid for key in sorted(strata) for uid in rng.sample(strata[key], counts[key])}
        return [t.id for t in self.trajectories if t.id in chosen]


def open_release(release_dir: Path) -> AuditedRelease:
    """Read a published release that matches its manifest; errors name the file that is
    missing, unreadable or not as the manifest lists it."""
    manifest = read_manifest(release_dir)
    check_release(release_dir)  # a damaged release must not be audited, nor republished
    if DB_FILE not in manifest.get("files", {}):
        raise InputError(
            f"lists no digest for {DB_FILE}", file=release_dir / MANIFEST_FILE, field="files"
        )
    trajectories = tuple(load_trajectories(release_dir / DB_FILE))
    return AuditedRelease(
        path=release_dir,
        manifest=manifest,
        trajectories=trajectories,
        by_uid={t.id: t for t in trajectories},
        public_id={t.id: i for i, t in enumerate(trajectories)},
        by_pair={(t.pair_id, t.variant): t for t in trajectories},
    )
