"""A client whose calls keep failing stops the stage, naming the most common error."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.core.llm import LLMFailure, LLMSettings
from pipeline.core.llm.errors import EndpointFailing
from pipeline.core.model.errors import InputError
from tests.core.llm.llm_helpers import Answer, ClientFactory, make_request
from tests.support.chat_server import ChatServer, bad_request, server_error


def test_all_of_the_first_calls_failing_stops_with_the_common_error(
    openai_client: ClientFactory, chat_server: ChatServer
) -> None:
    chat_server.script(*[bad_request("model `m` is not loaded")] * 8)
    client = openai_client(fail_fast_after=5, max_retries=0, max_reasks=0)

    async def ask_in_turn() -> list[object]:
        seen: list[object] = []
        async with client:
            for i in range(8):
                seen.append(await client.ask(make_request(f"item-{i}"), Answer))
        return seen

    with pytest.raises(EndpointFailing) as raised:
        asyncio.run(ask_in_turn())
    message = str(raised.value)
    assert "5 of the 5 LLM calls so far failed" in message
    assert "in 5 of them: BadRequest: Error code: 400 - model `m` is not loaded" in message
    assert len(chat_server.chat_requests) == 5  # the sixth call is never sent


def test_a_success_among_the_first_calls_keeps_the_stage_going(
    openai_client: ClientFactory, chat_server: ChatServer
) -> None:
    chat_server.script(*[server_error()] * 4)  # then the normal answer
    client = openai_client(fail_fast_after=5, max_retries=0, max_reasks=0)

    async def ask_in_turn() -> list[object]:
        async with client:
            return [await client.ask(make_request(f"item-{i}"), Answer) for i in range(8)]

    answers = asyncio.run(ask_in_turn())
    assert sum(isinstance(a, LLMFailure) for a in answers) == 4
    assert all(isinstance(a, Answer) for a in answers[4:])


def test_zero_turns_the_stop_off(openai_client: ClientFactory, chat_server: ChatServer) -> None:
    chat_server.script(*[bad_request("nope")] * 30)
    client = openai_client(fail_fast_after=0, max_retries=0, max_reasks=0)

    async def ask_all() -> list[object]:
        async with client:
            return list(await client.ask_all([(make_request(f"i{n}"), Answer) for n in range(30)]))

    assert all(isinstance(a, LLMFailure) for a in asyncio.run(ask_all()))


def test_the_threshold_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_FAIL_FAST_AFTER", "0")
    assert LLMSettings.from_env().fail_fast_after == 0
    monkeypatch.setenv("ATBENCH_FAIL_FAST_AFTER", "-1")
    with pytest.raises(InputError, match="fail_fast_after"):
        LLMSettings.from_env()
