"""`atbench tools import` and `atbench tools stats` through the real command-line app."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from itertools import permutations
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from typer.testing import CliRunner

from pipeline.cli import app, main
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.inputs.tool_pool import load_tool_pool
from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.shapes import Format
from tests.support.cli import atbench
from tests.support.paths import SHARED_DATA
from tests.support.tool_formats import write_sample

TOOLBENCH_FILE = SHARED_DATA / "toolbench" / "G1_query.json"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"

runner = CliRunner()

CURATED = [
    {
        "name": "bank_get_balance",
        "description": "Returns the ledger and available balance of one account.",
        "parameters": {
            "type": "object",
            "properties": {"account_id": {"type": "string"}},
            "required": ["account_id"],
        },
        "returns": {"type": "object"},
        "domains": ["personal_banking"],
        "side_effect": "none",
        "source": "curated",
    }
]
FUNCTIONS = [
    {
        "type": "function",
        "function": {
            "name": "getExchangeRate",
            "description": "Returns the exchange rate between two currencies.",
            "parameters": {
                "type": "object",
                "properties": {"pair": {"type": "string"}},
                "required": ["pair"],
            },
        },
    },
    {"type": "function", "function": {"name": "broken"}},
]


@pytest.fixture
def pool_dir(tmp_path: Path) -> Path:
    pool = tmp_path / "tool_pool"
    (pool / "curated").mkdir(parents=True)
    (pool / "curated" / "personal_banking.yaml").write_text(yaml.safe_dump(CURATED), "utf-8")
    return pool


@pytest.fixture
def functions_file(tmp_path: Path) -> Path:
    path = tmp_path / "functions.json"
    path.write_text(json.dumps(FUNCTIONS), encoding="utf-8")
    return path


def invoke(*args: str) -> Any:
    return runner.invoke(app, ["tools", *args])


def test_import_prints_counts_and_writes_tools_and_report(
    pool_dir: Path, functions_file: Path
) -> None:
    result = invoke("import", "--format", "openai", str(functions_file), "--into", str(pool_dir))

    assert result.exit_code == 0, result.output
    assert "1 imported, 1 rejected, 0 deduplicated; 1 added" in result.output
    assert "function.description" in result.output and "missing description" in result.output
    target = pool_dir / "imported" / "openai.yaml"
    assert load_tool_pool(pool_dir).tools.keys() == {"bank_get_balance", "get_exchange_rate"}
    report = json.loads((pool_dir / "imported" / "openai.report.jsonc").read_text("utf-8"))
    assert report["target"] == str(target)
    assert (report["imported"], report["rejected"], report["deduplicated"]) == (1, 1, 0)
    assert report["rejections"][0]["record"] == "1"

    again = invoke("import", "-f", "OpenAI", str(functions_file), "--into", str(pool_dir))
    assert again.exit_code == 0, again.output
    assert "1 imported, 1 rejected, 1 deduplicated; 0 added" in again.output
    report = json.loads((pool_dir / "imported" / "openai.report.jsonc").read_text("utf-8"))
    assert report["dedupe"][0]["rule"] == "same_name"


def test_a_relative_into_is_written_and_reported_once(
    pool_dir: Path, functions_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pool_dir.parent)
    result = invoke("import", "-f", "openai", str(functions_file), "--into", pool_dir.name)
    assert result.exit_code == 0, result.output
    written = pool_dir / "imported" / "openai.yaml"
    assert written.is_file() and not (pool_dir / pool_dir.name).exists()
    assert f"added to {written}" in result.output.replace("\n", "")


def test_import_real_toolbench_sample(pool_dir: Path) -> None:
    if not TOOLBENCH_FILE.exists():
        pytest.skip(f"public sample {TOOLBENCH_FILE} is absent")
    result = invoke("import", "--format", "toolbench", str(TOOLBENCH_FILE), "--into", str(pool_dir))
    assert result.exit_code == 0, result.output
    assert "toolbench: 10 imported, 8 rejected, 0 deduplicated; 10 added" in result.output
    assert len(load_tool_pool(pool_dir)) == 11


Refused = Callable[..., str]


@pytest.fixture
def refused(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Refused:
    """Runs `atbench tools import ARGS`, checks that it failed as a user's mistake (status 1,
    no traceback) and wrote nothing under `unchanged`, and returns its stderr on one line."""

    def run(*args: str, unchanged: Path) -> str:
        before = tree(unchanged)
        code, err = atbench(["tools", "import", *args], capsys, monkeypatch)
        assert code == 1 and "Traceback" not in err, err
        assert tree(unchanged) == before
        return err.replace("\n", "")

    return run


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_import_without_into_is_refused_and_writes_nothing(
    tmp_path: Path,
    pool_dir: Path,
    functions_file: Path,
    refused: Refused,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ATBENCH_ROOT", str(tmp_path))
    err = refused("-f", "openai", str(functions_file), unchanged=tmp_path)
    assert "--into DIR is required" in err and f"--into {pool_dir}" in err


def test_into_a_file_is_refused(functions_file: Path, refused: Refused) -> None:
    into = ["--into", str(functions_file)]
    err = refused("-f", "openai", str(functions_file), *into, unchanged=functions_file.parent)
    assert "--into must name a tool pool directory, not a file" in err


@pytest.mark.parametrize(("given", "actual"), list(permutations(get_args(Format), 2)))
def test_a_file_of_another_format_fails_before_writing(
    given: Format, actual: Format, tmp_path: Path, pool_dir: Path, refused: Refused
) -> None:
    source = write_sample(tmp_path, actual)
    err = refused("--format", given, str(source), "--into", str(pool_dir), unchanged=pool_dir)
    assert f" {actual} file (" in err and f"not {given}; use --format {actual}" in err


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("toolbench", "is a directory; --format toolbench reads one file"),
        ("openapi", "toolbench.json: looks like a toolbench file"),
    ],
)
def test_a_directory_of_another_format_fails_before_writing(
    given: str, expected: str, tmp_path: Path, pool_dir: Path, refused: Refused
) -> None:
    folder = tmp_path / "apis"
    folder.mkdir()
    write_sample(folder, "toolbench")
    err = refused("-f", given, str(folder), "--into", str(pool_dir), unchanged=pool_dir)
    assert expected in err


def test_import_bad_file_raises_input_error(tmp_path: Path, pool_dir: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"tools": "none"}), encoding="utf-8")
    result = invoke("import", "--format", "openai", str(bad), "--into", str(pool_dir))
    assert isinstance(result.exception, InputError)
    assert (result.exception.file, result.exception.field) == (str(bad), "tools")
    assert not (pool_dir / "imported").exists()


def test_main_reports_input_errors_and_exits_1(
    tmp_path: Path,
    pool_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"tools": [', encoding="utf-8")
    argv = ["atbench", "tools", "import", "-f", "openai", str(bad), "--into", str(pool_dir)]
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 1
    assert "bad.json: invalid JSON at line 1" in capsys.readouterr().err


def test_stats_table_json_and_plot(pool_dir: Path, functions_file: Path, tmp_path: Path) -> None:
    invoke("import", "--format", "openai", str(functions_file), "--into", str(pool_dir))

    table = invoke("stats", "--pool", str(pool_dir))
    assert table.exit_code == 0, table.output
    assert "personal_banking" in table.output and "web_research" in table.output

    plot = tmp_path / "tools.png"
    as_json = invoke("stats", "--json", "--pool", str(pool_dir), "--plot", str(plot))
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)
    assert data["total"] == 2
    assert data["by_domain"] == {"personal_banking": 1, "web_research": 1}
    assert data["by_source"] == {"curated": 1, "openai": 1}
    assert plot.read_bytes().startswith(PNG_MAGIC)


def test_import_openapi_directory_fills_every_domain(tmp_path: Path, pool_dir: Path) -> None:
    """One document per project domain, each found by a keyword only the mapping knows."""
    domains = domain_ids()
    words = {domain: "zq" + domain.replace("_", "") for domain in domains}
    mapping = tmp_path / "map.toml"
    mapping.write_text(
        "[categories]\n[keywords]\n"
        + "".join(f'{domain} = ["{word}"]\n' for domain, word in words.items()),
        encoding="utf-8",
    )
    api = tmp_path / "directory" / "api"
    api.mkdir(parents=True)
    for domain, word in words.items():
        summary = f"Returns every {word} record of the account."
        doc = {
            "info": {"title": domain, "x-providerName": f"{domain}.example"},
            "paths": {"/records": {"get": {"summary": summary, "responses": {}}}},
        }
        (api / f"{domain}.json").write_text(json.dumps(doc), encoding="utf-8")
    args = ["--into", str(pool_dir), "--mapping", str(mapping)]

    result = invoke("import", "--format", "openapi", str(api.parent), *args)

    assert result.exit_code == 0, result.output
    assert f"{len(domains)} documents, {len(domains)} operations; 0 rejected" in result.output
    assert f"{len(domains)} added" in result.output
    stats = json.loads(invoke("stats", "--json", "--pool", str(pool_dir)).stdout)
    assert stats["by_source"] == {"curated": 1, "openapi": len(domains)}
    assert stats["by_domain"]["pharmacy"] == 1
    assert load_tool_pool(pool_dir)["pharmacy_get_records"].domains == ("pharmacy",)


def test_stats_on_a_missing_pool_is_an_input_error(tmp_path: Path) -> None:
    result = invoke("stats", "--pool", str(tmp_path / "nowhere"))
    assert isinstance(result.exception, InputError)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("import", ["--format", "toolbench", "toolalpaca", "openapi", "--into", "--mapping"]),
        ("stats", ["--json", "by_domain", "--plot", "PNG", "--pool"]),
    ],
)
def test_help_describes_every_option(command: str, expected: list[str]) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    for text in expected:
        assert text in result.output
