"""A stage killed with kill -9 and run again produces what an uninterrupted run produces.

The safe-expansion stage of one domain runs through the openai backend against the local Chat
Completions server (deterministic, with latency so the kill lands midway): once uninterrupted,
and once in a child process that is killed after some answers reached the cache, then resumed.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.core.build import stages
from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.paths import project_root
from pipeline.core.llm import LLMSettings
from pipeline.core.model.spec import ReleaseSpec
from tests.support.chat_server import ChatServer, pipeline_answer
from tests.support.inputs import repository_inputs

DOMAIN = "smart_home"
SPEC = ReleaseSpec(size=12, domains=(DOMAIN,), backend="openai", model="fake-model")
KILL_AFTER_ANSWERS = 20
"""Answers in the killed run's cache when it is killed (a full run asks several times more)."""


def run_expansion(outputs: Path, base_url: str) -> Path:
    """Plan the domain, then expand its blueprints; the cache lives under ATBENCH_OUTPUTS."""
    settings = LLMSettings(
        backend="openai", base_url=base_url, model="fake-model", structured_output="json_schema"
    )
    ws = Workspace.for_spec(SPEC, outputs)
    stages.plan_stage(SPEC, repository_inputs(), ws)
    asyncio.run(stages.expand_stage(SPEC, repository_inputs(), DOMAIN, ws, settings))
    return ws.stage_file("skeletons", DOMAIN)


def cached_answers(outputs: Path) -> int:
    folder = outputs / "cache" / DOMAIN
    return sum(p.read_bytes().count(b"\n") for p in folder.glob("answers-*.jsonl"))


@dataclass
class Runs:
    uninterrupted: Path
    uninterrupted_calls: int
    answers_at_kill: int
    killed_returncode: int | None
    resumed: Path
    resumed_calls: int


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    root = tmp_path_factory.mktemp("resume")
    whole, broken = root / "uninterrupted", root / "interrupted"
    with ChatServer(pipeline_answer, delay_s=0.05) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("ATBENCH_OUTPUTS", str(whole))
        uninterrupted = run_expansion(whole, server.url)
        uninterrupted_calls = len(server.chat_requests)

        child = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from pathlib import Path; from tests.core.build.test_resume import "
                "run_expansion; run_expansion(Path(sys.argv[1]), sys.argv[2])",
                str(broken),
                server.url,
            ],
            cwd=project_root(),
            env={**os.environ, "ATBENCH_OUTPUTS": str(broken)},
        )
        deadline = time.monotonic() + 60
        while cached_answers(broken) < KILL_AFTER_ANSWERS and child.poll() is None:
            assert time.monotonic() < deadline, "the child never reached the kill point"
            time.sleep(0.02)
        killed = child.poll() is None
        child.send_signal(signal.SIGKILL)
        child.wait()
        answers_at_kill = cached_answers(broken)

        env.setenv("ATBENCH_OUTPUTS", str(broken))
        before = len(server.chat_requests)
        resumed = run_expansion(broken, server.url)
        yield Runs(
            uninterrupted=uninterrupted,
            uninterrupted_calls=uninterrupted_calls,
            answers_at_kill=answers_at_kill,
            killed_returncode=child.returncode if killed else None,
            resumed=resumed,
            resumed_calls=len(server.chat_requests) - before,
        )


def test_the_kill_lands_midway_and_the_rerun_asks_only_the_rest(runs: Runs) -> None:
    assert runs.killed_returncode == -signal.SIGKILL
    assert KILL_AFTER_ANSWERS <= runs.answers_at_kill < runs.uninterrupted_calls
    # Only what was neither cached nor answered is asked again (calls in flight at the kill
    # were answered but never cached, so they are asked twice).
    assert 0 < runs.resumed_calls < runs.uninterrupted_calls


def test_the_resumed_stage_file_equals_the_uninterrupted_one(runs: Runs) -> None:
    assert runs.resumed.read_bytes() == runs.uninterrupted.read_bytes()
