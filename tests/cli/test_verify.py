"""A release damaged on disk is reported, naming the file, by every command that reads one
(`releases`, `cost`, `regen`, `eval` and every `audit` command)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.core.model.errors import AtbenchError
from tests.support.releases import publish


@pytest.fixture(scope="module")
def damaged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A published release whose release.duckdb was then cut to half its size."""
    out = publish(tmp_path_factory.mktemp("verify") / "release", n_pairs=4)
    db = out / "release.duckdb"
    db.write_bytes(db.read_bytes()[: db.stat().st_size // 2])
    return out


def run(*args: str) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output, result.exception


def test_releases_lists_it_as_damaged(damaged: Path) -> None:
    code, output, _ = run("releases", "--root", str(damaged.parent), "--json")
    assert code == 0
    (entry,) = json.loads(output)
    assert entry["error"].startswith("damaged: release.duckdb:")


@pytest.mark.parametrize(
    "command",
    [
        ["cost", "--release"],
        ["regen", "--domain", "smart_home", "--out", "/nonexistent/out", "--release"],
        ["eval", "--evaluator", "keyword", "--out", "/nonexistent/run", "--release"],
        ["audit", "serve", "--port", "9", "--release"],
        ["audit", "stats", "--release"],
        ["audit", "export", "--reviewer", "ann", "--out", "/nonexistent/sheet.csv", "--release"],
        ["audit", "import", "/nonexistent/sheet.csv", "--release"],
        ["audit", "apply", "--out", "/nonexistent/out", "--release"],
    ],
)
def test_reading_commands_refuse_it_naming_the_file(damaged: Path, command: list[str]) -> None:
    code, _, error = run(*command, str(damaged))
    assert code != 0 and isinstance(error, AtbenchError)
    assert "release.duckdb" in str(error) and "manifest" in str(error)
    assert not damaged.with_name(f"{damaged.name}.audit.duckdb").exists()  # no audit begun
