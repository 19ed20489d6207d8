"""One published factory release for the whole session; fresh audit tables per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core.audit import AuditStore, open_audit

from .helpers import publish_small


@pytest.fixture(scope="session")
def release_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish_small(tmp_path_factory.mktemp("releases") / "r1", n_pairs=6)


@pytest.fixture
def store(release_dir: Path, tmp_path: Path) -> AuditStore:
    return open_audit(release_dir, db=tmp_path / "audit.duckdb")
