"""The project digest behind every stamp: held for a block of stamp checks, fresh after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core.build.stamps import project_digest, project_held


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for folder in ("seeds", "tool_pool", "taxonomy", "templates"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "one.yaml").write_text(f"{folder}: 1\n", encoding="utf-8")
    monkeypatch.setenv("ATBENCH_ROOT", str(tmp_path))
    return tmp_path


def test_an_edited_input_changes_the_digest_only_after_the_held_block(checkout: Path) -> None:
    before = project_digest()
    with project_held():
        (checkout / "seeds" / "one.yaml").write_text("seeds: 2\n", encoding="utf-8")
        assert project_digest() == before
    after = project_digest()
    assert after != before
    (checkout / "seeds" / "one.yaml").write_text("seeds: 1\n", encoding="utf-8")
    assert project_digest() == before
