"""`atbench cost`: the LLM ledger of a release, read from its DuckDB file."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import dagster as dg
import pytest
from typer.testing import CliRunner

from pipeline.cli import app, main
from pipeline.cli.build import run_build
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.llm import Ledger, LedgerEntry, summarise_ledger
from pipeline.core.release.store import write_release_db
from pipeline.core.release.verify import file_digests
from tests.support.builds import DefaultBuild
from tests.support.factories import make_release

runner = CliRunner()


def entry(**fields: Any) -> LedgerEntry:
    values: dict[str, Any] = {
        "ts": 1_735_787_045.0,
        "stage": "safe_expansion",
        "domain": "banking",
        "role": "tool_call_simulator",
        "item_id": "banking-0000/e0/s0/call",
        "model": "gpt-test",
        "backend": "openai",
        "cached": False,
        "attempts": 1,
        "prompt_tokens": 1000,
        "completion_tokens": 200,
        "tokens_estimated": False,
        "latency_s": 0.5,
        "cost_usd": 0.002,
        "status": "ok",
    }
    values.update(fields)
    return LedgerEntry.model_validate(values)


ENTRIES = [
    entry(),
    entry(latency_s=1.5, attempts=2, prompt_tokens=1500, cost_usd=0.003),
    entry(cached=True, attempts=0, prompt_tokens=0, completion_tokens=0, cost_usd=0.0),
    entry(role="query_generator", domain="smart_home", prompt_tokens=400, completion_tokens=50),
    entry(
        role="reason_generator",
        stage="pairing",
        status="invalid",
        attempts=3,
        error="no valid answer",
        tokens_estimated=True,
    ),
]


def write_release(folder: Path, rows: list[dict[str, Any]]) -> Path:
    """A verified release of two factory pairs whose ledger is `rows`."""
    folder.mkdir()
    write_release_db(
        folder / "release.duckdb",
        make_release(2),
        [],
        rows,
        default_taxonomy(),
        {"version": 1, "backend": "openai"},
    )
    # cost verifies a release against its manifest before reading it
    manifest = {"version": 1, "backend": "openai", "files": file_digests(folder)}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder


@pytest.fixture
def release(tmp_path: Path) -> Path:
    return write_release(tmp_path / "release", [e.model_dump(mode="json") for e in ENTRIES])


def cost_json(release: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["cost", "--release", str(release), "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def test_figures_per_role_stage_and_domain(release: Path) -> None:
    data = cost_json(release)
    calls = data["by_role"]["tool_call_simulator"]
    assert calls["calls"] == 3 and calls["cache_hits"] == 1 and calls["attempts"] == 3
    assert (calls["prompt_tokens"], calls["completion_tokens"]) == (2500, 400)
    assert calls["cost_usd"] == pytest.approx(0.005)
    assert calls["latency_s_total"] == pytest.approx(2.0)  # the cache hit's latency is not a call
    assert not calls["tokens_estimated"]
    assert data["by_role"]["reason_generator"]["invalid"] == 1
    assert data["by_role"]["reason_generator"]["tokens_estimated"]
    assert {name: f["calls"] for name, f in data["by_stage"].items()} == {
        "pairing": 1,
        "safe_expansion": 4,
    }
    assert {name: f["calls"] for name, f in data["by_domain"].items()} == {
        "banking": 4,
        "smart_home": 1,
    }
    assert data["models"] == [{"backend": "openai", "model": "gpt-test", "calls": 5}]


def test_totals_agree_with_the_ledger_files(release: Path, tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger")
    for item in ENTRIES:
        ledger.record(item)
    ledger.close()
    from_files = summarise_ledger([tmp_path / "ledger"])
    totals = cost_json(release)["totals"]
    for key, value in totals.items():
        assert value == pytest.approx(from_files[key]), key


def test_tables_name_every_role_and_mark_estimated_tokens(release: Path) -> None:
    result = runner.invoke(app, ["cost", "--release", str(release)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    for title in ("LLM calls by role", "LLM calls by stage", "LLM calls by domain"):
        assert title in result.output
    for role in ("tool_call_simulator", "query_generator", "reason_generator"):
        assert role in result.output
    assert "~ estimated" in result.output
    assert "5 calls, 1 cache hits, 1 failed" in result.output


def test_calls_outside_the_build_count_only_in_the_history(tmp_path: Path) -> None:
    built = [e.model_dump(mode="json") | {"in_build": True} for e in ENTRIES]
    killed = [e.model_dump(mode="json") | {"in_build": False} for e in ENTRIES[:2]]
    data = cost_json(write_release(tmp_path / "release", [*killed, *built]))
    assert data["totals"]["calls"] == len(ENTRIES)
    assert data["by_role"]["tool_call_simulator"]["calls"] == 3
    assert data["history"]["calls"] == len(ENTRIES) + 2
    assert data["history"]["cost_usd"] == pytest.approx(data["totals"]["cost_usd"] + 0.005)


def test_a_stage_run_again_counts_once_and_its_first_run_only_in_the_history(
    default_build: DefaultBuild, tmp_path: Path
) -> None:
    """The reproduction of the bug: a rerun after a kill used to count both runs' calls."""
    before = cost_json(default_build.release)
    copy = default_build.copy_to(tmp_path)
    domain = copy.domains[0]
    stamp = copy.workspace().root / "stamps" / "paired" / f"{domain}.json"
    first_run = json.loads(stamp.read_text())["report"]["ledger_segments"]
    ledger = copy.workspace().ledger_dir(domain)
    first_calls = summarise_ledger([ledger / name for name in first_run])["calls"]
    stamp.unlink()  # as if killed after the stage file, before its stamp: the stage runs again
    run_build(copy.config, copy.release, instance=dg.DagsterInstance.ephemeral())
    after = cost_json(copy.release)
    assert after["totals"]["calls"] == before["totals"]["calls"]
    for group in ("by_stage", "by_domain", "by_role"):
        assert {k: v["calls"] for k, v in after[group].items()} == {
            k: v["calls"] for k, v in before[group].items()
        }
    assert first_calls > 0
    assert after["history"]["calls"] == before["totals"]["calls"] + first_calls


def test_a_directory_without_a_release_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["atbench", "cost", "--release", str(tmp_path)])
    with pytest.raises(SystemExit) as caught:
        main()
    assert caught.value.code == 1
    assert f"{tmp_path / 'release.duckdb'} not found" in capsys.readouterr().err
