"""An unchanged rebuild does no work: no stage runs, no Dagster run, no new release version;
and the first build's progress shows items, rejections and calls per stage."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
from rich.console import Console

from pipeline.cli.build import run_build
from pipeline.core.build.config import BuildConfig
from pipeline.core.generation.overplan import pair_slots
from pipeline.core.model.seeding import seeded_rng

DOMAIN = "personal_banking"
SETTINGS = {"size": 8, "domains": f"personal_assistant,{DOMAIN}", "seed": 5}
"""The whole build is one Dagster run over both."""


def config() -> BuildConfig:
    """The build, read under the module's outputs folder (`build_root`)."""
    return BuildConfig.load(**SETTINGS)


@dataclass
class Builds:
    out: Path
    first: dict[str, Any]
    progress: str
    runs_after_first: int
    manifest_after_first: str
    second: dict[str, Any]
    runs_after_second: int


@pytest.fixture(scope="module")
def builds(build_root: Path) -> Iterator[Builds]:
    instance = dg.DagsterInstance.ephemeral()
    out = build_root / "release"
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=120)
    first = run_build(config(), out, instance=instance, console=console)
    runs = len(instance.get_run_records())
    manifest = (out / "manifest.json").read_text()
    second = run_build(config(), out, instance=instance, console=Console(file=io.StringIO()))
    yield Builds(
        out, first, screen.getvalue(), runs, manifest, second, len(instance.get_run_records())
    )


def test_the_unchanged_rebuild_starts_no_run_and_keeps_the_release(builds: Builds) -> None:
    assert builds.runs_after_first == 1  # planning, both domains' stages and the release
    assert builds.runs_after_second == builds.runs_after_first
    assert builds.second == {"version": 1, "path": str(builds.out), "unchanged": True}
    assert (builds.out / "manifest.json").read_text() == builds.manifest_after_first


def test_a_changed_stage_file_is_rebuilt_and_republished(builds: Builds, build_root: Path) -> None:
    manifest = json.loads(builds.manifest_after_first)
    work = next((build_root / "outputs" / "builds").iterdir())
    plan = work / "plan" / f"{DOMAIN}.jsonl"
    plan.write_text(plan.read_text())  # same bytes: still current
    again = run_build(config(), builds.out, instance=dg.DagsterInstance.ephemeral())
    assert again.get("unchanged")
    (work / "stamps" / "paired" / f"{DOMAIN}.json").unlink()  # as if killed before the stamp
    stamps_before = {p: p.stat().st_mtime_ns for p in (work / "stamps").rglob("*.json")}
    instance = dg.DagsterInstance.ephemeral()
    rebuilt = run_build(config(), builds.out, instance=instance)
    # One run; inside it only the unstamped stage works (from the cache, into the same bytes,
    # so filtered stays current); its new ledger segment is new release content, so the
    # release is published again.
    assert [r.dagster_run.job_name for r in instance.get_run_records()] == ["build"]
    assert {p: p.stat().st_mtime_ns for p in stamps_before} == stamps_before
    assert (work / "stamps" / "paired" / f"{DOMAIN}.json").exists()
    assert rebuilt["version"] == manifest["version"] + 1


def test_progress_counts_items_rejections_and_calls_per_stage(builds: Builds) -> None:
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", builds.progress)
    lines = {line.split()[0]: line for line in screen.splitlines() if line.split()}  # last wins
    assert set(lines) >= {"blueprints", "skeletons", "injected", "paired", "filtered", "release"}
    # size 8 at the default unsafe share: 4 pairs, no benign traces, over-planned per domain
    spec = BuildConfig.load(**SETTINGS).spec()
    pairs = sum(pair_slots(spec, seeded_rng(spec.seed, "plan")).values())
    assert pairs > 4
    assert f"{pairs}/{pairs}" in lines["skeletons"] and "rej" in lines["skeletons"]
    assert "calls" in lines["skeletons"] and "cached" in lines["skeletons"]
    calls = int(lines["skeletons"].split(" calls")[0].split()[-1])
    assert calls > pairs  # several generator calls per skeleton, counted as they happen
