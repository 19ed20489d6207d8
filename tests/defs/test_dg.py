"""Dagster's `dg` command line loads the project from `[tool.dg]` in pyproject.toml: the same
assets, checks and job as the CLI's `pipeline.definitions`, and `dg check defs` passes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.definitions import defs

ROOT = Path(__file__).resolve().parents[2]
DG = Path(sys.executable).with_name("dg")


def _dg(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    home = tmp_path / "dagster"
    home.mkdir(exist_ok=True)
    (home / "dagster.yaml").touch()
    return subprocess.run(
        [str(DG), *args],
        cwd=ROOT,
        env=os.environ | {"DAGSTER_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def listed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict[str, object]]]:
    done = _dg(tmp_path_factory.mktemp("dg"), "list", "defs", "--json")
    assert done.returncode == 0, done.stderr
    listing: dict[str, list[dict[str, object]]] = json.loads(done.stdout)
    return listing


def test_dg_check_defs_passes(tmp_path: Path) -> None:
    done = _dg(tmp_path, "check", "defs")
    assert done.returncode == 0, done.stderr
    assert "All definitions loaded successfully" in done.stdout + done.stderr


def test_dg_lists_the_assets_checks_and_job_of_the_definitions(
    listed: dict[str, list[dict[str, object]]],
) -> None:
    graph = defs.resolve_asset_graph()
    assert {a["asset_key"] for a in listed["assets"]} == {
        key.to_user_string() for key in graph.get_all_asset_keys()
    }
    assert {c["key"] for c in listed["asset_checks"]} == {
        f"{key.asset_key.to_user_string()}:{key.name}" for key in graph.asset_check_keys
    }
    assert [j["name"] for j in listed["jobs"]] == ["build"]
