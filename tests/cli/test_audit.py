"""`atbench audit export | import | stats | apply | serve` on the command line."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from tests.core.audit.helpers import publish_small

runner = CliRunner()


@pytest.fixture(scope="module")
def release_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish_small(tmp_path_factory.mktemp("releases") / "r1", n_pairs=1)


def _review_by_sheet(release: Path, tmp_path: Path, reviewer: str, flip: set[str]) -> None:
    sheet = tmp_path / f"{reviewer}.csv"
    args = ["audit", "export", "--release", str(release), "--reviewer", reviewer]
    result = runner.invoke(app, [*args, "--out", str(sheet), "--audit-db", str(tmp_path / "a.db")])
    assert result.exit_code == 0, result.output
    with sheet.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        for key in ("verdict", "risk_source", "failure_mode", "real_world_harm"):
            row[key] = row[f"release_{key}"]
        if row["id"] in flip:
            row.update(verdict="safe", risk_source="", failure_mode="", real_world_harm="")
    with sheet.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = runner.invoke(
        app,
        [
            "audit",
            "import",
            str(sheet),
            "--release",
            str(release),
            "--audit-db",
            str(tmp_path / "a.db"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"{len(rows)} reviews stored" in result.output


def test_offline_audit_from_sheets_to_a_new_version(release_dir: Path, tmp_path: Path) -> None:
    db = ["--audit-db", str(tmp_path / "a.db")]
    _review_by_sheet(release_dir, tmp_path, "ann", set())
    _review_by_sheet(release_dir, tmp_path, "bob", {"banking-0000-unsafe"})
    stats = runner.invoke(app, ["audit", "stats", "--release", str(release_dir), *db, "--json"])
    assert stats.exit_code == 0, stats.output
    payload = json.loads(stats.output)
    assert payload["status"] == {
        "unreviewed": 0,
        "in_review": 0,
        "agreed": 1,
        "disagreed": 1,
        "adjudicated": 0,
    }
    assert payload["agreement"][0] == {
        "axis": "verdict",
        "pairs": 2,
        "agreement": 0.5,
        "kappa": 0.0,
    }
    out = tmp_path / "r2"
    refused = runner.invoke(
        app, ["audit", "apply", "--release", str(release_dir), "--out", str(out), *db]
    )
    assert refused.exit_code == 1 and "not settled yet" in str(refused.exception)
    done = runner.invoke(
        app,
        ["audit", "apply", "--release", str(release_dir), "--out", str(out), *db, "--allow-open"],
    )
    assert done.exit_code == 0, done.output
    assert "release v2" in done.output and "0 trajectories corrected" in done.output
    table = runner.invoke(app, ["audit", "stats", "--release", str(release_dir), *db])
    assert "Cohen's kappa" in table.output and "disagreed" in table.output


def test_stats_without_an_audit_says_how_to_start_one(release_dir: Path, tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["audit", "stats", "--release", str(release_dir), "--audit-db", str(tmp_path / "x.db")]
    )
    assert result.exit_code == 1
    assert "no audit found" in str(result.exception) and "atbench audit serve" in str(
        result.exception
    )


def test_serve_refuses_a_public_interface_without_a_token(release_dir: Path) -> None:
    result = runner.invoke(
        app,
        ["audit", "serve", "--release", str(release_dir), "--host", "0.0.0.0"],
        env={"ATBENCH_AUDIT_TOKEN": ""},
    )
    assert result.exit_code == 1
    assert "refusing to serve the audit on '0.0.0.0' without a token" in str(result.exception)
