"""`atbench build` and `atbench plan` refuse the common mistakes before any run starts.

Each mistake goes through the real entry point (`pipeline.cli.main`, as the `atbench` script
calls it): the message names the option, the exit status is 1, there is no traceback, and
nothing is written where the release would go.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.core.inputs.paths import project_root
from tests.support.chat_server import (
    ChatServer,
    Received,
    closed_port,
    schema_answer,
    schema_of,
)
from tests.support.cli import atbench


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_OUTPUTS", str(tmp_path / "outputs"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    for name in ("ATBENCH_MODEL", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--size", "0"], "--size must be at least 2 (one safe/unsafe pair), got 0"),
        (["--size", "-5"], "--size must be at least 2"),
        (["--size", "1"], "--size must be at least 2"),
        (["--backend", "openai"], "pass --model NAME or set ATBENCH_MODEL"),
        (["--backend", "gpt"], "--backend must be one of procedural, openai, got 'gpt'"),
        (["--domains", "smart_home, pharmacies"], "'pharmacies' (did you mean 'pharmacy'?)"),
        (["--model", "gpt-4o"], "--model applies only to --backend openai"),
        (["--concurrency", "0"], "--concurrency must be at least 1"),
        (["--timeout", "-1"], "--timeout must be 0"),
        (["--structured-output", "xml"], "--structured-output must be one of json_schema"),
        (
            ["--backend", "openai", "--model", "m", "--base-url", "localhost:8000"],
            "--base-url must be an http(s) URL",
        ),
    ],
)
def test_a_bad_option_is_named_before_anything_runs(
    args: list[str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out = tmp_path / "release"
    code, err = atbench(["build", *args, "--out", str(out)], capsys, monkeypatch)
    assert code == 1
    assert message in err
    assert "Traceback" not in err and "pydantic" not in err
    assert not out.exists() and not (tmp_path / "dagster").exists()


def test_out_pointing_at_a_file_is_refused_and_the_file_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    for out in (notes, notes / "release"):
        code, err = atbench(["build", "--size", "4", "--out", str(out)], capsys, monkeypatch)
        assert code == 1 and "--out" in err and "is a file" in err
    assert notes.read_text() == "mine\n"
    assert not (tmp_path / "dagster").exists()


def test_a_folder_that_is_not_a_release_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / "chapter1.tex").write_text("x")
    code, err = atbench(["build", "--out", str(folder)], capsys, monkeypatch)
    assert code == 1 and "--out" in err and "not a release" in err
    assert [p.name for p in folder.iterdir()] == ["chapter1.tex"]


@pytest.mark.parametrize("size", ["0", "-5", "1"])
def test_plan_names_the_size_without_a_traceback(
    size: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, err = atbench(["plan", "--size", size], capsys, monkeypatch)
    assert code == 1 and "--size must be at least 2" in err and "Traceback" not in err


def test_the_unreachable_endpoint_is_the_last_line_and_nothing_is_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    port = closed_port()
    out = tmp_path / "release"
    args = ["build", "--backend", "openai", "--model", "m", "--size", "4"]
    args += ["--domains", "pharmacy", "--base-url", f"http://127.0.0.1:{port}/v1"]
    code, err = atbench([*args, "--out", str(out)], capsys, monkeypatch)
    assert code == 1
    last = err.strip().splitlines()[-1]
    assert "ConnectionFailed" in last and f"127.0.0.1:{port}" in last, err
    assert "balance" not in err and "Traceback" not in err
    assert not out.exists()


def test_version(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from pipeline import __version__

    monkeypatch.setattr(sys, "argv", ["atbench", "--version"])
    with pytest.raises(SystemExit) as exited:
        main()
    assert exited.value.code in (0, None)
    assert capsys.readouterr().out == f"atbench {__version__}\n"


def test_a_fresh_instance_has_telemetry_off_and_a_user_config_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.cli.build import dagster_home

    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "fresh"))
    config = dagster_home() / "dagster.yaml"
    assert config.read_text() == "telemetry:\n  enabled: false\n"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "dagster.yaml").write_text("run_coordinator: {}\n")
    monkeypatch.setenv("DAGSTER_HOME", str(mine))
    assert (dagster_home() / "dagster.yaml").read_text() == "run_coordinator: {}\n"


def failing_model(received: Received) -> object:
    """Answers the preflight probe, then gives every pipeline call prose instead of JSON."""
    if received.role == "preflight":
        return schema_answer(received)
    return "the model is overloaded"


@pytest.mark.parametrize("verbose", [False, True])
def test_dagster_speaks_on_the_terminal_only_with_verbose(
    verbose: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A failed run's Dagster log (step failures, their tracebacks) stays in the event log
    unless --verbose; no telemetry banner either way."""
    monkeypatch.setenv("ATBENCH_FAIL_FAST_AFTER", "2")
    with ChatServer(failing_model) as server:
        args = ["build", "--backend", "openai", "--model", "fake-model", "--size", "8"]
        args += ["--domains", "pharmacy", "--base-url", server.url, "--out", str(tmp_path / "r")]
        code, err = atbench([*args, *(["--verbose"] if verbose else [])], capsys, monkeypatch)
    assert code == 1 and "stopped: 2 of the 2 LLM calls" in err.strip().splitlines()[-1]
    assert ("dagster - " in err) is verbose and ("STEP_FAILURE" in err) is verbose, err
    assert "telemetry" not in err.lower()


@pytest.mark.parametrize(
    ("fail_fast_after", "last_words"),
    [
        ("2", ["in stage skeletons", "stopped: 2 of the 2 LLM calls", "the model is overloaded"]),
        ("0", ["release gate", "rejected:", "at generation/", "not JSON"]),
    ],
)
def test_a_run_that_fails_ends_with_its_cause_and_no_traceback(
    fail_fast_after: str,
    last_words: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With the stop on, the stage stops at the second failed call; with it off, every item
    is rejected and the failed gate says so, with the reason behind the rejections."""
    monkeypatch.setenv("ATBENCH_FAIL_FAST_AFTER", fail_fast_after)
    out = tmp_path / "release"
    with ChatServer(failing_model) as server:
        args = ["build", "--backend", "openai", "--model", "fake-model", "--size", "8"]
        args += ["--domains", "pharmacy", "--base-url", server.url, "--out", str(out)]
        code, err = atbench(args, capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err, err
    last = err.strip().splitlines()[-1]
    assert all(words in last for words in last_words), last
    assert not out.exists()


def test_a_schema_following_model_cannot_take_another_tool_than_the_plan(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against a server that answers every schema with its minimal instance, no tool call or
    observation is rejected for leaving the plan or the world: the plan fixes the tool and
    its arguments, so the tool-call schema asks for the thought alone, and the observation
    schema holds the world's ids, numbers, statuses and listed records as constants. What is
    rejected is content."""
    with ChatServer() as server:
        args = ["build", "--backend", "openai", "--model", "fake-model", "--size", "8"]
        args += ["--domains", "pharmacy", "--base-url", server.url]
        atbench([*args, "--out", str(tmp_path / "release")], capsys, monkeypatch)
    calls = [r for r in server.chat_requests if r.role == "tool_call_simulator"]
    schemas = [schema_of(r) or {} for r in calls]
    assert calls and {name for schema in schemas for name in schema["properties"]} == {"thought"}
    (rejections,) = (tmp_path / "outputs" / "builds").glob("*/candidate/rejections.jsonl")
    rows = [json.loads(line) for line in rejections.read_text().splitlines()]
    assert rows and not [r for r in rows if r["check"] == "tool_call_simulator"]
    assert not [r for r in rows if r["reason_code"] == "observation_contradicts_world"], rows


def test_a_second_build_into_the_same_out_fails_at_once_naming_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "release"
    args = ["build", "--size", "8", "--domains", "pharmacy", "--out", str(out)]
    first = subprocess.Popen(
        [sys.executable, "-c", "from pipeline.cli import main; main()", *args],
        cwd=project_root(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lock = tmp_path / ".release.lock"
    deadline = time.monotonic() + 120
    while not (lock.is_file() and lock.read_text().strip() == str(first.pid)):
        assert first.poll() is None, "the first build ended before it held the lock"
        assert time.monotonic() < deadline, "the first build never took the lock"
        time.sleep(0.01)
    code, err = atbench(args, capsys, monkeypatch)
    _, first_err = first.communicate(timeout=300)
    assert first.returncode == 0, first_err
    assert code == 1 and f"is being written by another build (pid {first.pid}," in err, err
    assert json.loads((out / "manifest.json").read_text())["version"] == 1


@pytest.mark.parametrize(
    ("environment", "message"),
    [
        ({"ATBENCH_EXECUTOR": "spark"}, "ATBENCH_EXECUTOR must be one of in_process, multiprocess"),
        (
            {"ATBENCH_EXECUTOR": "celery", "ATBENCH_CELERY_BROKER": "redis://127.0.0.1:{port}/0"},
            "ATBENCH_CELERY_BROKER redis://127.0.0.1:{port}/0 does not answer",
        ),
        (
            {"ATBENCH_POSTGRES_URL": "postgresql+psycopg2://dagster@127.0.0.1:{port}/dagster"},
            "postgresql+psycopg2://dagster@127.0.0.1:{port}/dagster does not answer",
        ),
        (  # /proc takes no new folder, not even from root
            {"ATBENCH_OUTPUTS": "/proc/atbench-outputs"},
            "the outputs folder /proc/atbench-outputs (ATBENCH_OUTPUTS) is not writable",
        ),
    ],
)
def test_an_engine_that_cannot_run_is_named_before_any_step(
    environment: dict[str, str],
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with socket.socket() as unused:  # bound but never listening: connections are refused
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
        for name, value in environment.items():
            monkeypatch.setenv(name, value.format(port=port))
        out = tmp_path / "release"
        code, err = atbench(["build", "--size", "4", "--out", str(out)], capsys, monkeypatch)
    assert code == 1 and "Traceback" not in err
    assert message.format(port=port) in " ".join(err.split())
    assert not out.exists() and not (tmp_path / "dagster").exists()
    assert not (tmp_path / "outputs" / "builds").exists()
