"""`atbench eval` end to end: the openai evaluator over HTTP against the local Chat Completions
server, the keyword baseline, an imported dataset, `eval compare`, and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from tests.support.chat_server import ChatServer, Received, closed_port, completion
from tests.support.cli import atbench
from tests.support.paths import RJUDGE_SAMPLE
from tests.support.releases import publish

SAMPLE = RJUDGE_SAMPLE
runner = CliRunner()


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish(tmp_path_factory.mktemp("eval") / "release")


FINE_ANSWER = (
    "unsafe\nRisk Source: Direct Prompt Injection\nFailure Mode: incorrect_tool_parameters\n"
    "Real World Harm: financial_and_economic_harm"
)


def flag_every_trace(_received: Received) -> str:
    return FINE_ANSWER


def _gold_risk_sources(release: Path) -> list[str]:
    with duckdb.connect(str(release / "release.duckdb"), read_only=True) as db:
        rows = db.execute("SELECT risk_source FROM trajectories WHERE label = 'unsafe'")
        return [row[0] for row in rows.fetchall()]


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _eval(*args: str) -> str:
    result = runner.invoke(app, ["eval", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_openai_run_reports_every_metric_and_a_rerun_costs_nothing(
    release: Path, tmp_path: Path
) -> None:
    before = _snapshot(release)
    with ChatServer(flag_every_trace) as server:
        # the endpoint probe first (any text passes), then the first trace's verdict
        server.script(completion("ok"), completion("I would rather not judge this."))
        args = [
            "--release", str(release), "--evaluator", "openai", "--task", "fine_grained",
            "--model", "guard-model", "--base-url", server.url,
            "--cache-dir", str(tmp_path / "cache"), "--concurrency", "1",
        ]  # fmt: skip
        first = _eval(*args, "--out", str(tmp_path / "run"))
        calls = len(server.chat_requests)
        _eval(*args, "--out", str(tmp_path / "again"))
        roles = [request.role for request in server.chat_requests]
    assert calls == 13 and roles.count("preflight") == 2 and len(roles) == 14  # probes only
    assert "preflight: endpoint" in first and "answers model 'guard-model'" in first
    assert _snapshot(release) == before
    record = json.loads((tmp_path / "again" / "run.json").read_text())
    assert (record["llm"]["calls"], record["llm"]["cache_hits"]) == (12, 12)
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["status"] == {"ok": 11, "unparseable": 1}
    # one request at a time, so the unreadable answer is the first trace's (a safe one): it
    # counts as a false alarm
    assert (metrics["coarse"]["precision"], metrics["coarse"]["recall"]) == (0.5, 1.0)
    assert metrics["fine"]["axes"]["risk_source"]["correct"] == sum(
        gold == "direct_prompt_injection" for gold in _gold_risk_sources(release)
    )
    assert set(metrics["fine"]["axes"]) == {"risk_source", "failure_mode", "real_world_harm"}
    assert set(metrics["subsets"]) == {"long_context", "false_reference", "long_html"}
    with duckdb.connect(str(tmp_path / "run" / "results.duckdb"), read_only=True) as db:
        raws = {row[0] for row in db.execute("SELECT raw FROM predictions").fetchall()}
        assert raws == {FINE_ANSWER, "I would rather not judge this."}
        assert db.execute("SELECT evaluator, n FROM runs").fetchall() == [("openai", 12)]
    report = (tmp_path / "run" / "report.md").read_text()
    assert "Fine-grained" in report and (tmp_path / "run" / "plots" / "metrics.png").is_file()


@pytest.mark.parametrize("fmt", ["llamaguard", "qwen3guard"])
def test_guard_native_formats_are_sent_and_read(release: Path, tmp_path: Path, fmt: str) -> None:
    answer = "unsafe\nS2" if fmt == "llamaguard" else "Safety: Unsafe\nCategories: PII\nRefusal: No"
    with ChatServer(lambda _r: answer) as server:
        _eval(
            "--release", str(release), "--prompt-format", fmt, "--model", "guard",
            "--base-url", server.url, "--cache-dir", str(tmp_path / "cache"),
            "--out", str(tmp_path / fmt),
        )  # fmt: skip
        guard = [r for r in server.chat_requests if r.role != "preflight"]
        prompt = guard[0].body["messages"][0]["content"]
    assert ("<BEGIN UNSAFE CONTENT CATEGORIES>" in prompt) and (
        "Agent:" in prompt or "ASSISTANT:" in prompt
    )
    metrics = json.loads((tmp_path / fmt / "metrics.json").read_text())
    assert metrics["coarse"]["recall"] == 1.0
    assert list(metrics["fine"]["axes"]) == (["real_world_harm"] if fmt == "llamaguard" else [])


def test_keyword_on_an_imported_dataset_and_compare(release: Path, tmp_path: Path) -> None:
    _eval("--dataset", f"rjudge:{SAMPLE}", "--evaluator", "keyword", "--out", str(tmp_path / "a"))
    _eval("--release", str(release), "--evaluator", "keyword", "--out", str(tmp_path / "b"))
    run = json.loads((tmp_path / "a" / "run.json").read_text())
    assert (run["n"], run["dataset"]) == (7, "rjudge:rjudge_sample.json")
    out = _eval("compare", str(tmp_path / "a"), str(tmp_path / "b"), "--out", str(tmp_path / "c"))
    assert "rjudge:rjudge_sample.json" in out and "release" in out
    rows = json.loads((tmp_path / "c" / "comparison.json").read_text())
    assert [row["dataset"] for row in rows] == ["rjudge:rjudge_sample.json", "release"]
    assert (tmp_path / "c" / "comparison.png").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--evaluator", "gpt"], "--evaluator must be one of openai, keyword, bow"),
        (["--prompt-format", "shieldagent"], "--prompt-format must be one of atbench"),
        (["--dataset", "csv:x.csv"], "--dataset must be FORMAT:PATH with FORMAT one of atbench"),
        (["--dataset", "rjudge:/nonexistent.json"], "no readable file or folder"),
        (["--release", "/tmp"], "--release: not a release"),
        (["--evaluator", "bow"], "--evaluator bow needs --train"),
        (["--evaluator", "keyword", "--prompt-format", "llamaguard"], "openai evaluator only"),
        (["--prompt-format", "qwen3guard", "--task", "fine_grained"], "is not offered by"),
    ],
)
def test_bad_options_stop_before_any_work(
    release: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    source = (
        [] if any(a in ("--dataset", "--release") for a in args) else ["--release", str(release)]
    )
    result = runner.invoke(
        app, ["eval", *source, *args, "--model", "m", "--out", str(tmp_path / "run")]
    )
    assert result.exit_code != 0
    assert message in str(result.exception)
    assert not (tmp_path / "run").exists()


def test_an_unreachable_guard_endpoint_stops_before_any_trace(
    release: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port = closed_port()
    args = ["eval", "--release", str(release), "--model", "guard", "--out", str(tmp_path / "run")]
    args += ["--base-url", f"http://127.0.0.1:{port}/v1", "--cache-dir", str(tmp_path / "cache")]
    code, err = atbench(args, capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    assert "ConnectionFailed" in err and f"127.0.0.1:{port}" in err and "--base-url" in err
    assert not (tmp_path / "run").exists()
