"""Shared fixtures."""

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = ["tests.support.pairs"]


@pytest.fixture(scope="module")
def build_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder whose outputs and Dagster instance are this module's own, for module-scoped
    builds that several tests read."""
    root = tmp_path_factory.mktemp("build")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATBENCH_OUTPUTS", str(root / "outputs"))
        patch.setenv("DAGSTER_HOME", str(root / "dagster"))
        yield root
