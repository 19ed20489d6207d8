"""The rule and judge tests' shared population: one domain built up to pairing, once."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.trajectory import Trajectory
from tests.support.builds import PAIRED_DOMAIN, build_paired, paired_workspace
from tests.support.shared import shared_folder


@pytest.fixture(scope="session")
def pool(inputs: Inputs) -> ToolPool:
    return inputs.pool


@pytest.fixture(scope="session")
def build(tmp_path_factory: pytest.TempPathFactory, inputs: Inputs) -> Iterator[Workspace]:
    """The paired build (tests/support/builds.py) in an outputs folder of its own, made once
    for all the session's workers."""

    def make(outputs: Path) -> None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ATBENCH_OUTPUTS", str(outputs))
            build_paired(outputs, inputs)

    outputs = shared_folder(tmp_path_factory, "paired-build", make)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATBENCH_OUTPUTS", str(outputs))
        yield paired_workspace(outputs)


@pytest.fixture(scope="session")
def built(build: Workspace) -> list[Trajectory]:
    trajectories: list[Trajectory] = build.read("paired", PAIRED_DOMAIN, Trajectory)
    # Risk points in a tool's interface and in the agent's own reasoning are the channels the
    # rule tests mutate; personal banking offers no tool that could report acting on its own.
    assert {t.construction.get("risk_source") for t in trajectories} >= {
        "tool_description_injection",
        "inherent_agent_failures",
    }
    return trajectories
