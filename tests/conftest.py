"""Fixtures shared by the whole suite; their machinery lives in tests/support/."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.core.build.collector import tune_collector
from pipeline.core.inputs.loading import Inputs
from tests.support.builds import DefaultBuild, build_default, read_default
from tests.support.inputs import repository_inputs
from tests.support.shared import shared_folder

pytest_plugins = ["tests.support.pairs"]

tune_collector()  # the suite builds releases in-process, as the CLI does


@pytest.fixture(scope="module")
def build_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder whose outputs and Dagster instance are this module's own, for module-scoped
    builds that several tests read."""
    root = tmp_path_factory.mktemp("build")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATBENCH_OUTPUTS", str(root / "outputs"))
        patch.setenv("DAGSTER_HOME", str(root / "dagster"))
        yield root


@pytest.fixture(scope="session")
def inputs() -> Inputs:
    """The repository's taxonomy, tool pool and seeds, validated once for the session."""
    return repository_inputs()


@pytest.fixture(scope="session")
def default_build(tmp_path_factory: pytest.TempPathFactory) -> DefaultBuild:
    """The default release (tests/support/builds.py), made once for all the session's
    workers, read-only to the tests that use it."""
    return read_default(shared_folder(tmp_path_factory, "default-build", build_default))
