"""A procedural build ends with exactly the release candidate a clean build of its spec ends
with (the same trajectories and rejections, byte for byte; the release's atbench.json and
DuckDB rows are written from them), whatever its cache already holds: answers left by a build
killed with kill -9 at several moments, or another spec's answers.

Each build runs every stage through the core functions in a child process; the parent watches
the build's cache and kills the child at a kill point. The children read the inputs the parent
validated (pickled once for the module), so each build pays for building, not for loading.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.core.build import stages
from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.paths import project_root
from pipeline.core.llm import LLMSettings
from pipeline.core.model.spec import ReleaseSpec

SPEC = ReleaseSpec(size=20, seed=13, domains=("smart_home",))
KILL_POINTS = (30, "reason_generator", "plausibility_judge")
"""When the child is killed: after 30 cached answers (a whole build caches about 250), once
the first rationale is cached while the other items' are still being answered, and once the
judge has answered in the filtering stage, the last one that asks."""


def build(outputs: Path, inputs: Inputs, seed: int = SPEC.seed) -> None:
    """Every stage for every domain of SPEC (at `seed`), up to the release candidate."""
    spec = SPEC.model_copy(update={"seed": seed})
    settings = LLMSettings()
    ws = Workspace.for_spec(spec, outputs)
    stages.plan_stage(spec, inputs, ws)
    for stage in (stages.expand_stage, stages.inject_stage, stages.pair_stage, stages.filter_stage):
        for domain in spec.domains:
            asyncio.run(stage(spec, inputs, domain, ws, settings))
    stages.candidate_stage(spec, inputs, ws, settings)


def start_build(outputs: Path, inputs: Path, seed: int = SPEC.seed) -> subprocess.Popen[bytes]:
    """A child process building into `outputs` from the pickled inputs at `inputs`."""
    code = "import pickle, sys; from pathlib import Path; "
    code += "from tests.core.build.test_resume_procedural import build; "
    code += (
        "build(Path(sys.argv[1]), pickle.loads(Path(sys.argv[2]).read_bytes()), int(sys.argv[3]))"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code, str(outputs), str(inputs), str(seed)],
        cwd=project_root(),
        env={**os.environ, "ATBENCH_OUTPUTS": str(outputs)},
    )


def reached(outputs: Path, kill_at: int | str) -> bool:
    segments = list((outputs / "cache").glob("*/answers-*.jsonl"))
    if isinstance(kill_at, int):
        return sum(p.read_bytes().count(b"\n") for p in segments) >= kill_at
    return any(f'"role":"{kill_at}"'.encode() in p.read_bytes() for p in segments)


def candidate(outputs: Path) -> dict[str, bytes]:
    """The candidate's trajectories and rejections (its ledger says when each call ran)."""
    ws = Workspace.for_spec(SPEC, outputs)
    files = (ws.candidate_trajectories_file, ws.candidate_rejections_file)
    return {path.name: path.read_bytes() for path in files if path.exists()}


@pytest.fixture(scope="module")
def pickled_inputs(tmp_path_factory: pytest.TempPathFactory, inputs: Inputs) -> Path:
    path = tmp_path_factory.mktemp("inputs") / "inputs.pickle"
    path.write_bytes(pickle.dumps(inputs, protocol=pickle.HIGHEST_PROTOCOL))
    return path


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory, pickled_inputs: Path) -> Path:
    outputs = tmp_path_factory.mktemp("clean")
    assert start_build(outputs, pickled_inputs).wait(timeout=120) == 0
    return outputs


def test_a_build_over_another_specs_cache_equals_a_clean_build(
    clean: Path, pickled_inputs: Path, tmp_path: Path
) -> None:
    # Another seed plans items with the same ids, some asking with the same variables.
    assert start_build(tmp_path, pickled_inputs, seed=7).wait(timeout=120) == 0
    assert start_build(tmp_path, pickled_inputs).wait(timeout=120) == 0
    assert candidate(tmp_path) == candidate(clean)


@pytest.mark.parametrize("kill_at", KILL_POINTS)
def test_a_build_resumed_after_kill_9_equals_a_clean_build(
    clean: Path, pickled_inputs: Path, tmp_path: Path, kill_at: int | str
) -> None:
    child = start_build(tmp_path, pickled_inputs)
    deadline = time.monotonic() + 120
    while not reached(tmp_path, kill_at) and child.poll() is None:
        assert time.monotonic() < deadline, "the build never reached the kill point"
        time.sleep(0.005)
    child.send_signal(signal.SIGKILL)
    assert child.wait(timeout=30) == -signal.SIGKILL, "the build ended before the kill point"
    assert not candidate(tmp_path)

    assert start_build(tmp_path, pickled_inputs).wait(timeout=120) == 0
    assert candidate(tmp_path) == candidate(clean)
