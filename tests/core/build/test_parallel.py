"""A stage's domains over forked processes: same reports and files as one loop, progress and
errors carried back to the parent."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from pipeline.core.build import parallel, stages
from pipeline.core.build.workspace import StageReport, Workspace
from pipeline.core.inputs.loading import Inputs
from pipeline.core.llm import LLMSettings
from pipeline.core.model.progress import report as progress
from pipeline.core.model.progress import reporting_to
from pipeline.core.model.spec import ReleaseSpec
from tests.support.progress import Recorder

DOMAINS = ["brokerage", "logistics", "pharmacy", "smart_home"]


async def _toy(domain: str) -> StageReport:
    progress().planned(3)
    for index in range(3):
        progress().item_done(rejected=index == 0)
        progress().call_done(cached=index > 0)
        await asyncio.sleep(0)
    return StageReport(
        stage="toy", domain=domain, written=len(domain), details={"pid": os.getpid()}
    )


def test_reports_come_back_in_order_from_two_processes() -> None:
    recorder = Recorder()
    with reporting_to(recorder):
        reports = parallel.run_domains(DOMAINS, _toy, processes=2)
    assert [r.domain for r in reports] == DOMAINS
    assert [r.written for r in reports] == [len(d) for d in DOMAINS]
    assert len({r.details["pid"] for r in reports}) == 2
    assert os.getpid() in {r.details["pid"] for r in reports}
    # every domain's progress reached the parent's sink, the child's included
    assert recorder.counts == {"planned": 12, "done": 12, "rejected": 4, "calls": 12, "hits": 8}


async def _fails_in_logistics(domain: str) -> StageReport:
    if domain == "logistics":
        raise ValueError(f"bad seed for {domain}")
    return StageReport(stage="toy", domain=domain, written=0)


def test_an_error_in_a_child_is_raised_in_the_parent() -> None:
    split = parallel.groups(DOMAINS, {}, 2)
    assert "logistics" not in split[0]  # so it runs in the forked process
    with pytest.raises(ValueError, match="bad seed for logistics"):
        parallel.run_domains(DOMAINS, _fails_in_logistics, processes=2)


def test_groups_balance_weight_and_keep_order() -> None:
    weights = {"brokerage": 10.0, "logistics": 6.0, "pharmacy": 5.0, "smart_home": 1.0}
    split = parallel.groups(DOMAINS, weights, 2)
    assert split == [["brokerage", "smart_home"], ["logistics", "pharmacy"]]  # 11 and 11
    assert parallel.groups(DOMAINS, weights, 1) == [DOMAINS]
    assert parallel.groups(["a"], {}, 4) == [["a"]]


def test_processes_follow_the_backend_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parallel.processes_for("openai") == 1
    monkeypatch.setenv("ATBENCH_PROCESSES", "3")
    assert parallel.processes_for("procedural") == 3
    monkeypatch.delenv("ATBENCH_PROCESSES")
    assert parallel.processes_for("procedural") == len(os.sched_getaffinity(0))


def _build(inputs: Inputs, root: Path, processes: int) -> dict[str, bytes]:
    spec = ReleaseSpec(size=16, domains=("logistics", "smart_home"))
    ws = Workspace.for_spec(spec, root)
    settings = LLMSettings()
    stages.plan_stage(spec, inputs, ws)
    for stage in (stages.expand_stage, stages.inject_stage, stages.pair_stage):
        parallel.run_domains(
            spec.domains,
            lambda d, stage=stage: stage(spec, inputs, d, ws, settings),  # type: ignore[misc]
            processes=processes,
        )
    return {
        str(path.relative_to(ws.root)): path.read_bytes()
        for stage in ("skeletons", "injected", "paired")
        for path in sorted((ws.root / stage).glob("*.jsonl"))
    }


def test_stage_files_are_the_same_in_one_process_or_two(inputs: Inputs, tmp_path: Path) -> None:
    one = _build(inputs, tmp_path / "one", 1)
    two = _build(inputs, tmp_path / "two", 2)
    assert len(one) == 6
    assert one == two
