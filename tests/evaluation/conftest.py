"""A small published release (factory twins) the evaluation tests read."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core.release import publish_release
from pipeline.core.taxonomy import default_taxonomy
from tests.release.factories import make_release


def publish(out_dir: Path, n_pairs: int = 6, seed: int = 7) -> Path:
    publish_release(
        make_release(n_pairs),
        [],
        [],
        out_dir,
        taxonomy=default_taxonomy(),
        config={"spec": {"seed": seed, "domains": ["banking", "smart_home"]}},
        backend="procedural",
        code_version="0.1.0+test",
    )
    return out_dir


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish(tmp_path_factory.mktemp("eval") / "release")
