"""`atbench regen`, `import` and `releases` on the command line, a build killed midway, and a
release's atbench.json imported back."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
from rich.console import Console
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.cli.build import run_build
from pipeline.core.build.config import BuildConfig
from pipeline.core.build.workspace import Workspace
from pipeline.core.llm.ledger import read_ledger
from pipeline.core.model.errors import InputError
from pipeline.core.release.atbench_format import public_view
from pipeline.core.release.store import load_trajectories
from pipeline.core.release.verify import file_digests
from tests.support.builds import DefaultBuild
from tests.support.paths import RJUDGE_SAMPLE

SAMPLE = RJUDGE_SAMPLE
DOMAIN = "personal_banking"
REBUILT: dict[str, Any] = {"size": 8, "seed": 1, "domains": DOMAIN}
"""The build that is killed and rerun; the release it would replace has seed 0."""
ATBENCH = Path(sys.executable).with_name("atbench")

runner = CliRunner()


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _manifest(folder: Path, version: int, **extra: object) -> None:
    """A manifest listing the files already in `folder`, as a publish writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    manifest = {"version": version, "created_at": "2026-01-02T03:04:05+00:00"}
    manifest |= {"backend": "procedural", "counts": {"total": 8, "safe": 4, "unsafe": 4}}
    manifest["files"] = file_digests(folder)
    (folder / "manifest.json").write_text(json.dumps(manifest | extra))


@pytest.mark.parametrize(
    ("command", "phrase"),
    [
        ("regen", "Rebuild one domain"),
        ("import", "external benchmark"),
        ("releases", "List the releases"),
    ],
)
def test_help_texts(command: str, phrase: str) -> None:
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert phrase in result.output


def test_releases_lists_manifests_and_skips_hidden_copies(tmp_path: Path) -> None:
    _manifest(tmp_path / "release", 3)
    _manifest(tmp_path / "releases" / "abc123", 1, backend="imported:rjudge")
    _manifest(tmp_path / ".release.tmp-1a2b", 4)  # an unfinished publish
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{not json")
    result = runner.invoke(app, ["releases", "--root", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    found = {Path(e["path"]).relative_to(tmp_path).as_posix(): e for e in json.loads(result.output)}
    assert set(found) == {"release", "releases/abc123", "broken"}
    assert (found["release"]["version"], found["release"]["counts"]["total"]) == (3, 8)
    assert found["releases/abc123"]["backend"] == "imported:rjudge"
    assert "unreadable" in found["broken"]["error"]


def test_releases_table_shows_version_and_counts(tmp_path: Path) -> None:
    _manifest(tmp_path / "release", 3)
    result = runner.invoke(app, ["releases", "--root", str(tmp_path)])
    assert result.exit_code == 0
    row = next(line for line in result.output.splitlines() if "release " in line)
    assert row.split()[:2] == ["release", "3"]


def test_releases_table_fits_80_columns_without_breaking_words(tmp_path: Path) -> None:
    _manifest(tmp_path / "imports" / "rjudge", 12, backend="imported:rjudge")
    result = runner.invoke(app, ["releases", "--root", str(tmp_path)], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    assert all(len(line) <= 80 for line in result.output.splitlines())
    row = next(line for line in result.output.splitlines() if "imported:rjudge" in line)
    assert "2026-01-02" in row and row.split()[1] == "12"


def test_import_prints_counts_and_writes_the_report(tmp_path: Path) -> None:
    out = tmp_path / "rjudge"
    result = runner.invoke(app, ["import", "--format", "rjudge", str(SAMPLE), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "imported 7 of 7 rows" in result.output
    assert (tmp_path / "rjudge.import-report.json").exists()
    assert (out / "release.duckdb").exists()


def test_regen_names_the_domain_the_release_lacks(tmp_path: Path) -> None:
    release = tmp_path / "release"
    spec = BuildConfig.load(size=8, domains=DOMAIN).spec().model_dump(mode="json")
    release.mkdir()
    (release / "release.duckdb").touch()
    _manifest(release, 1, config={"spec": spec})
    args = ["regen", "--release", str(release), "--domain", "smart_home", "--out", "x"]
    result = runner.invoke(app, args)
    assert isinstance(result.exception, InputError)
    assert "'smart_home' is not in this release" in str(result.exception)


@pytest.fixture(scope="module")
def small_release(default_build: DefaultBuild) -> Path:
    return default_build.release


def test_atbench_json_imports_back_into_identical_trajectories(
    small_release: Path, tmp_path: Path
) -> None:
    out = tmp_path / "reimported"
    source = small_release / "atbench.json"
    result = runner.invoke(app, ["import", "--format", "atbench", str(source), "--out", str(out)])
    assert result.exit_code == 0, result.output
    original = {t.id: t for t in load_trajectories(small_release / "release.duckdb")}
    back = {t.id: t for t in load_trajectories(out / "release.duckdb")}
    assert back.keys() == original.keys()
    assert all(public_view(back[uid]) == public_view(original[uid]) for uid in original)
    assert json.loads((out / "atbench.json").read_text()) == json.loads(source.read_text())


@dataclass(frozen=True)
class Killed:
    """A build of another seed, killed with SIGKILL once its expansion stage was written."""

    target: Path
    before: dict[str, bytes]
    """The release it would have replaced, file by file, before the build started."""
    ws: Workspace
    segments: set[Path]
    """Ledger segments written before the kill."""


@pytest.fixture(scope="module")
def killed(build_root: Path, small_release: Path) -> Killed:
    target = build_root / "killed" / "release"
    shutil.copytree(small_release, target)
    before = _snapshot(target)
    ws = BuildConfig.load(**REBUILT).workspace()
    command = ["build", "--size", "8", "--seed", "1", "--domains", DOMAIN, "--out", str(target)]
    build = subprocess.Popen(
        [str(ATBENCH), *command],
        env=os.environ | {"DAGSTER_HOME": str(build_root / "killed" / "dagster")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not ws.stage_file("skeletons", DOMAIN).exists():
        assert build.poll() is None and time.monotonic() < deadline, "the build ended first"
        time.sleep(0.02)
    build.send_signal(signal.SIGKILL)
    assert build.wait() == -signal.SIGKILL
    return Killed(target, before, ws, set(ws.ledger_dir(DOMAIN).glob("*.jsonl")))


@pytest.fixture(scope="module")
def rerun(killed: Killed) -> dict[str, object]:
    """The same build again, to completion."""
    quiet = Console(file=io.StringIO())
    return run_build(
        BuildConfig.load(**REBUILT),
        killed.target,
        instance=dg.DagsterInstance.ephemeral(),
        console=quiet,
    )


def test_a_killed_build_leaves_the_previous_release_untouched(killed: Killed) -> None:
    assert _snapshot(killed.target) == killed.before
    # Only the dead build's lock file is left beside it; the next build takes it over.
    left = sorted(p.name for p in killed.target.parent.iterdir())
    assert left == [".release.lock", "dagster", "release"]


def test_the_rerun_of_a_killed_build_completes(killed: Killed, rerun: dict[str, object]) -> None:
    assert rerun["version"] == 2
    assert sorted(p.name for p in killed.target.parent.iterdir()) == ["dagster", "release"]
    manifest = json.loads((killed.target / "manifest.json").read_text())
    assert manifest["config"]["spec"]["seed"] == 1


def test_the_rerun_answers_finished_stages_from_the_cache(
    killed: Killed, rerun: dict[str, object]
) -> None:
    expanded = [e for e in read_ledger(sorted(killed.segments)) if e.stage == "safe_expansion"]
    segments = set(killed.ws.ledger_dir(DOMAIN).glob("*.jsonl")) - killed.segments
    again = [e for e in read_ledger(sorted(segments)) if e.stage == "safe_expansion"]
    # The finished stage is current (stamped), so it is skipped; unstamped, it is replayed
    # from the cache. Either way the rerun asks the backend nothing for it.
    assert expanded and len(again) in (0, len(expanded))
    assert all(e.cached and e.attempts == 0 for e in again)
