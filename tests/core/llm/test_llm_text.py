"""Free-text answers (`ask_text`): what guards say in their own format, cached like JSON ones."""

from __future__ import annotations

import asyncio

from pipeline.core.llm import LLMClient, LLMFailure, LLMRequest
from tests.core.llm.llm_helpers import ClientFactory, make_request
from tests.support.chat_server import ChatServer, bad_request, completion, server_error


def ask_text(client: LLMClient, requests: list[LLMRequest]) -> list[str | LLMFailure]:
    async def run() -> list[str | LLMFailure]:
        async with client:
            return list(await asyncio.gather(*(client.ask_text(r) for r in requests)))

    return asyncio.run(run())


def test_text_comes_back_verbatim_without_json_mode(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion("unsafe\nS3"))
    assert ask_text(openai_client(), [make_request()]) == ["unsafe\nS3"]
    body = chat_server.chat_requests[0].body
    assert "response_format" not in body
    assert [m["role"] for m in body["messages"]] == ["user"]


def test_a_rerun_is_answered_from_the_cache(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion("safe"), completion("unsafe"))
    requests = [make_request("a"), make_request("b")]
    first = ask_text(openai_client(), requests)
    again = ask_text(openai_client(), requests)
    assert again == first and sorted(str(a) for a in first) == ["safe", "unsafe"]
    assert len(chat_server.chat_requests) == 2


def test_an_answer_outside_any_format_is_not_reasked(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion("I'd rather not say."))
    assert ask_text(openai_client(), [make_request()]) == ["I'd rather not say."]
    assert len(chat_server.chat_requests) == 1


def test_transport_errors_are_retried_and_refusals_are_failures(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(server_error(), completion("safe"))
    assert ask_text(openai_client(), [make_request("a")]) == ["safe"]
    chat_server.script(bad_request("prompt too long"))
    (refused,) = ask_text(openai_client(), [make_request("b")])
    assert isinstance(refused, LLMFailure) and refused.reason_code == "bad_request"
