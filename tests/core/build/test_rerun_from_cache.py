"""An unchanged openai build rerun from its response cache alone sends nothing and publishes
the same release, even where items ask identical prompts and the model answers each of them
differently (issue 17, point 1: the cache once kept one answer per prompt, so on the rerun one
item got another's answer and everything after it missed the cache).

The rerun starts from an empty work folder, so every stage runs again and every answer must
come from the cache; the server samples, so a wrong answer would change the release.
"""

from __future__ import annotations

import io
import json
import shutil
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest
from rich.console import Console

from pipeline.cli.build import run_build
from tests.support.builds import stand_in_config
from tests.support.chat_server import ChatServer, Received, pipeline_answer

DOMAINS = "personal_banking,pharmacy"
SIZE = 24


class Sampling:
    """Answers like a sampling model: each time a prompt is asked it gets another answer."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, received: Received) -> object:
        prompt = json.dumps([received.role, received.body["messages"][:2]], sort_keys=True)
        with self._lock:
            self.asked[prompt] += 1
            times = self.asked[prompt]
        answer: object = pipeline_answer(received, salt=str(times))
        return answer


@dataclass
class Runs:
    first_prompts: Counter[str]
    """How often the first build sent each prompt."""
    rerun_requests: list[Received]
    first: Path
    rerun: Path


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    root = tmp_path_factory.mktemp("rerun-from-cache")
    instance = dg.DagsterInstance.ephemeral()
    quiet = Console(file=io.StringIO())
    sampling = Sampling()
    with pytest.MonkeyPatch.context() as env, ChatServer(sampling) as server:
        env.setenv("ATBENCH_OUTPUTS", str(root / "outputs"))
        config = stand_in_config(SIZE, DOMAINS, server.url)
        run_build(config, root / "first", instance=instance, console=quiet)
        first_prompts = Counter(sampling.asked)
        shutil.rmtree(config.workspace().root)  # the cache lives beside it, and stays
        seen = len(server.chat_requests)
        run_build(config, root / "rerun", instance=instance, console=quiet)
        rerun_requests = server.chat_requests[seen:]
    yield Runs(first_prompts, rerun_requests, root / "first", root / "rerun")


def test_the_first_build_asks_some_prompts_for_several_items(runs: Runs) -> None:
    assert max(runs.first_prompts.values()) > 1


def test_the_rerun_sends_nothing_but_the_endpoint_probe(runs: Runs) -> None:
    assert [r.role for r in runs.rerun_requests] == ["preflight"]


def test_the_rerun_publishes_the_same_release(runs: Runs) -> None:
    for name in ("atbench.json", "trajectories.jsonl"):
        assert (runs.rerun / name).read_bytes() == (runs.first / name).read_bytes(), name
