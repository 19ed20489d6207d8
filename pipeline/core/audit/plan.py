"""Open a release's audit, creating it on first use with its scope: all, or a sample."""

from __future__ import annotations

from pathlib import Path

from pipeline.core.audit.source import open_release
from pipeline.core.audit.store import AuditStore, audit_db_path
from pipeline.core.model.errors import AtbenchError


def open_audit(
    release_dir: Path,
    *,
    db: Path | None = None,
    sample: int | None = None,
    seed: int = 0,
    create: bool = True,
) -> AuditStore:
    """The audit store of `release_dir`; a new audit covers `sample` trajectories or all.

    With `create=False` (stats, apply) a missing audit file is an error, not a new audit.
    """
    release = open_release(release_dir)
    path = db or audit_db_path(release_dir)
    if not create and not path.is_file():
        raise AtbenchError(
            f"no audit found at {path}; start one with `atbench audit serve --release "
            f"{release_dir}`"
        )
    store = AuditStore(path, release)
    if not create:
        return store
    if sample is None:
        if not store.scope():
            store.plan([t.id for t in release.trajectories], "all")
    else:
        store.plan(
            release.stratified_sample(sample, seed), f"stratified sample of {sample}, seed {seed}"
        )
    return store
