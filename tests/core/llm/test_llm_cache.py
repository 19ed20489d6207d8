"""The response cache: zero calls on a rerun, several writer processes, torn lines, kill -9."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from pipeline.core.llm import LLMClient, LLMFailure, LLMSettings, ResponseCache, make_client
from pipeline.core.llm.cache import canonical_json
from tests.core.llm.llm_helpers import (
    SCHEMA,
    Answer,
    ClientFactory,
    make_request,
    procedural_handlers,
)
from tests.support.chat_server import ChatServer, Received
from tests.support.paths import REPO


def run_all(client: LLMClient, ids: list[str]) -> list[Answer | LLMFailure]:
    async def run() -> list[Answer | LLMFailure]:
        async with client:
            return await client.ask_all([(make_request(i), Answer) for i in ids])

    return asyncio.run(run())


def test_second_identical_ask_makes_no_request(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    first = run_all(openai_client(), ["a", "b"])
    second = run_all(openai_client(), ["a", "b"])
    assert first == second == [Answer(text="x")] * 2
    assert len(chat_server.chat_requests) == 2


def test_key_changes_with_sample_index_schema_and_template(
    chat_server: ChatServer, openai_client: ClientFactory, templates_dir: Path
) -> None:
    variants = [
        make_request(),
        make_request(sample_index=1),
        make_request(output_schema={**SCHEMA, "title": "Other"}),
    ]

    async def run(client: LLMClient) -> None:
        async with client:
            for request in variants:
                await client.ask(request, Answer)

    asyncio.run(run(openai_client()))
    assert len(chat_server.chat_requests) == 3
    (templates_dir / "query_generator.j2").write_text("Write a query about {{ topic }}!")
    asyncio.run(run(openai_client()))
    assert len(chat_server.chat_requests) == 6
    asyncio.run(run(openai_client(temperature=0.7)))
    assert len(chat_server.chat_requests) == 9


def _writer(cache_dir: Path, ledger: Path, templates: Path, ids: list[str]) -> None:
    client = make_client(
        LLMSettings(),
        cache_dir=cache_dir,
        namespace="finance",
        ledger_path=ledger,
        templates_dir=templates,
        handlers=procedural_handlers(),
    )
    run_all(client, ids)


def test_two_processes_writing_one_namespace_leave_a_readable_cache(
    tmp_path: Path, templates_dir: Path
) -> None:
    cache_dir, ledger = tmp_path / "cache", tmp_path / "ledger"
    halves = [[str(i) for i in range(0, 300)], [str(i) for i in range(150, 450)]]
    context = multiprocessing.get_context("fork")
    workers = [
        context.Process(target=_writer, args=(cache_dir, ledger, templates_dir, ids))
        for ids in halves
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    assert len(list((cache_dir / "finance").glob("answers-*.jsonl"))) == 2
    assert len(ResponseCache(cache_dir, "finance")) == 450
    # Every answer is served from the cache now: the handlers are never called again.
    client = make_client(
        LLMSettings(),
        cache_dir=cache_dir,
        namespace="finance",
        ledger_path=ledger,
        templates_dir=templates_dir,
        handlers={},
    )
    answers = run_all(client, [str(i) for i in range(450)])
    assert answers[7] == Answer(text="query on topic 7 #0")


def test_a_torn_last_line_is_skipped(tmp_path: Path, procedural_client: ClientFactory) -> None:
    run_all(procedural_client(), ["a", "b", "c"])
    (segment,) = (tmp_path / "cache" / "finance").glob("answers-*.jsonl")
    with segment.open("a") as handle:  # what a kill -9 in the middle of a write leaves
        handle.write(canonical_json({"key": "k", "answer": {"text": "half"}})[:20])
    cache = ResponseCache(tmp_path / "cache", "finance")
    assert len(cache) == 3
    cache.put("k2", {"text": "new"}, {})  # a new writer never appends after the torn line
    cache.close()
    assert len(ResponseCache(tmp_path / "cache", "finance")) == 4


_KILLED_RUN = """
import asyncio
from pathlib import Path
from pipeline.core.llm import LLMSettings, make_client
from tests.core.llm.llm_helpers import Answer, make_request

settings = LLMSettings(backend="openai", base_url={url!r}, model="fake-model", max_concurrency=4)
client = make_client(settings, cache_dir=Path({cache!r}), namespace="finance",
                     ledger_path=Path({ledger!r}), templates_dir=Path({templates!r}))
asyncio.run(client.ask_all([(make_request(str(i)), Answer) for i in range({n})]))
"""


def _echo_topic(received: Received) -> dict[str, str]:
    return {"text": "about " + received.body["messages"][-1]["content"]}


def test_a_killed_run_resumes_asking_only_what_is_missing(
    tmp_path: Path, templates_dir: Path
) -> None:
    n = 40
    ids = [str(i) for i in range(n)]
    with ChatServer(_echo_topic, delay_s=0.05) as server:
        script = _KILLED_RUN.format(
            url=server.url,
            cache=str(tmp_path / "cache"),
            ledger=str(tmp_path / "ledger"),
            templates=str(templates_dir),
            n=n,
        )
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        child = subprocess.Popen([sys.executable, "-c", script], env=env, cwd=REPO)
        deadline = time.monotonic() + 30
        while len(server.chat_requests) < n // 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        assert child.returncode == -signal.SIGKILL
        cached = len(ResponseCache(tmp_path / "cache", "finance"))
        assert 0 < cached < n
        before = len(server.chat_requests)

        def client(cache: Path) -> LLMClient:
            settings = LLMSettings(backend="openai", base_url=server.url, model="fake-model")
            return make_client(
                settings,
                cache_dir=cache,
                namespace="finance",
                ledger_path=tmp_path / "ledger",
                templates_dir=templates_dir,
            )

        resumed = run_all(client(tmp_path / "cache"), ids)
        assert len(server.chat_requests) - before == n - cached
        uninterrupted = run_all(client(tmp_path / "fresh-cache"), ids)
    assert resumed == uninterrupted
    assert resumed[3] == Answer(text="about Write a query about topic 3.")


def test_reopened_cache_keeps_the_answers_key_order(tmp_path: Path) -> None:
    # Later prompts quote earlier answers; a re-sorted answer would change them on a rerun.
    cache = ResponseCache(tmp_path, "domain")
    cache.put("k", {"zeta": 1, "alpha": {"y": 2, "b": 3}}, meta={})
    cache.close()
    reopened = ResponseCache(tmp_path, "domain")
    answer = reopened.get("k")
    assert answer is not None
    assert list(answer) == ["zeta", "alpha"] and list(answer["alpha"]) == ["y", "b"]
    reopened.close()
