"""Validated inputs are kept between processes under the digest of the code and inputs: an
edited seed file is loaded afresh, and a broken one still fails."""

from __future__ import annotations

import pickle
import shutil
from pathlib import Path

import pytest

from pipeline.core.build.inputs_cache import cache_file, cached_inputs
from pipeline.core.inputs.paths import project_root
from pipeline.core.model.errors import InputError


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project root with its own seeds (the rest linked) and its own outputs folder."""
    root = tmp_path / "project"
    root.mkdir()
    for name in ("tool_pool", "taxonomy", "templates"):
        (root / name).symlink_to(project_root() / name)
    shutil.copytree(project_root() / "seeds", root / "seeds")
    monkeypatch.setenv("ATBENCH_ROOT", str(root))
    monkeypatch.setenv("ATBENCH_OUTPUTS", str(tmp_path / "outputs"))
    return root


def test_cached_inputs_are_used_until_an_input_file_changes(project: Path) -> None:
    loaded = cached_inputs()
    path = cache_file()
    assert path.is_file()

    # What the cache holds is what a later process gets (shown with a marked copy).
    marked = pickle.loads(path.read_bytes())
    del marked.seeds["smart_home"]
    path.write_bytes(pickle.dumps(marked))
    assert "smart_home" not in cached_inputs().seeds

    seed = project / "seeds" / "smart_home.yaml"
    text = seed.read_text(encoding="utf-8")
    old_name = loaded.seeds["smart_home"].name
    seed.write_text(text.replace(old_name, "Smart home (edited)", 1), encoding="utf-8")
    assert cache_file() != path
    fresh = cached_inputs()
    assert fresh.seeds["smart_home"].name == "Smart home (edited)"
    assert not path.exists()  # the stale pickle is gone
    assert cache_file().is_file()

    seed.write_text(text.replace("workflows:", "workflowz:", 1), encoding="utf-8")
    with pytest.raises(InputError, match="smart_home"):
        cached_inputs()
