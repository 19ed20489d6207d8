"""One answer per key, kept: duplicated prompts, requests in flight twice, two processes
sharing a cache, and cache lines edited on disk."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

from pipeline.core.llm import LLMClient, LLMFailure, LLMSettings, ResponseCache, make_client
from tests.core.llm.llm_helpers import Answer, ClientFactory, make_request
from tests.support.chat_server import ChatServer
from tests.support.paths import REPO


def numbered_answers() -> ChatServer:
    """A server whose every answer differs, as a sampling model's may."""
    counter = itertools.count()
    return ChatServer(lambda _received: {"text": f"answer {next(counter)}"}, delay_s=0.05)


def ask(client: LLMClient, requests: list[tuple[str, str]]) -> list[Answer | LLMFailure]:
    """Ask (item id, topic) pairs concurrently."""

    async def run() -> list[Answer | LLMFailure]:
        async with client:
            return await client.ask_all(
                [
                    (make_request(item, variables={"topic": topic}), Answer)
                    for item, topic in requests
                ]
            )

    return asyncio.run(run())


def test_items_with_one_prompt_keep_their_own_answers_on_a_rerun(
    openai_client: ClientFactory,
) -> None:
    same_prompt = [("item-a", "rent"), ("item-b", "rent"), ("item-c", "tax")]
    with numbered_answers() as server:
        first = ask(openai_client(base_url=server.url), same_prompt)
        rerun = ask(openai_client(base_url=server.url), same_prompt)
        assert len(server.chat_requests) == 3
    assert rerun == first
    assert len({answer.text for answer in first if isinstance(answer, Answer)}) == 3


def test_one_request_in_flight_twice_is_sent_once(openai_client: ClientFactory) -> None:
    with numbered_answers() as server:
        answers = ask(openai_client(base_url=server.url), [("item-a", "rent")] * 4)
        assert len(server.chat_requests) == 1
    assert answers == [Answer(text="answer 0")] * 4


_SHARING_RUN = """
import asyncio, sys
from pathlib import Path
from pipeline.core.llm import LLMSettings, make_client
from tests.core.llm.llm_helpers import Answer, make_request

url, cache, ledger, templates = sys.argv[1:5]
settings = LLMSettings(backend="openai", base_url=url, model="fake-model", max_concurrency=8)
client = make_client(settings, cache_dir=Path(cache), namespace="finance",
                     ledger_path=Path(ledger), templates_dir=Path(templates))

async def main():
    async with client:
        answers = await client.ask_all([(make_request(str(i)), Answer) for i in range(24)])
    print(",".join(a.text for a in answers))

asyncio.run(main())
"""


def test_two_processes_sharing_a_cache_ask_each_key_once_and_agree(
    tmp_path: Path, templates_dir: Path
) -> None:
    with numbered_answers() as server:
        args = [server.url, str(tmp_path / "cache"), str(tmp_path / "ledger"), str(templates_dir)]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        children = [
            subprocess.Popen(
                [sys.executable, "-c", _SHARING_RUN, *args],
                env=env,
                cwd=REPO,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        outputs = [child.communicate(timeout=60)[0] for child in children]
        assert [child.returncode for child in children] == [0, 0]
        assert len(server.chat_requests) == 24
    assert outputs[0] == outputs[1]
    assert not list((tmp_path / "cache" / "finance" / "locks").iterdir())


def test_an_edited_cache_line_is_reported_and_asked_again(
    tmp_path: Path, openai_client: ClientFactory, caplog: object
) -> None:
    with numbered_answers() as server:
        ask(openai_client(base_url=server.url), [("item-a", "rent"), ("item-b", "tax")])
        (segment,) = (tmp_path / "cache" / "finance").glob("answers-*.jsonl")
        lines = segment.read_text().splitlines()
        edited = json.loads(lines[0])
        edited["answer"]["text"] = "planted"
        segment.write_text("\n".join([json.dumps(edited), lines[1]]) + "\n")

        cache = ResponseCache(tmp_path / "cache", "finance")
        assert (len(cache), cache.damaged) == (1, 1)
        answers = ask(openai_client(base_url=server.url), [("item-a", "rent"), ("item-b", "tax")])
        assert len(server.chat_requests) == 3
    assert "planted" not in {a.text for a in answers if isinstance(a, Answer)}


def test_a_procedural_item_never_gets_another_items_cached_answer(
    tmp_path: Path, templates_dir: Path
) -> None:
    """What a kill leaves: one item's answer cached, another item with the same variables not."""

    def client(cache: str) -> LLMClient:
        # Like the pipeline's handlers, this one seeds its answer by the item that asks.
        handlers = {"query_generator": lambda r: {"text": f"{r.item_id}: {r.variables['topic']}"}}
        return make_client(
            LLMSettings(),
            cache_dir=tmp_path / cache,
            namespace="finance",
            ledger_path=tmp_path / "ledger",
            templates_dir=templates_dir,
            handlers=handlers,
        )

    same_variables = [("item-a", "rent"), ("item-b", "rent")]
    ask(client("resumed"), same_variables[:1])
    assert ask(client("resumed"), same_variables) == ask(client("clean"), same_variables)
