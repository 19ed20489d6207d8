"""Structured-output dialects against the local chat server: what each server quirk costs.

The request shape of each dialect is covered in test_llm_openai.py; the json_object dialect
against the real llama-cpp-python server is in tests/integration/test_real_model.py.
"""

from __future__ import annotations

import asyncio
import json
import logging

import pytest

from pipeline.core.llm import LLMClient, LLMFailure, LLMRequest
from tests.core.llm.llm_helpers import Answer, ClientFactory, make_request
from tests.support.chat_server import ChatServer, Reply, completion


def ask(client: LLMClient, *requests: LLMRequest) -> list[Answer | LLMFailure]:
    async def run() -> list[Answer | LLMFailure]:
        async with client:
            return [await client.ask(request, Answer) for request in requests]

    return asyncio.run(run())


def llama_cpp_python_refusal() -> Reply:
    """What llama-cpp-python 0.3 answers to response_format type json_schema (a 500, not a 400)."""
    detail = (
        "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', "
        "'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
    )
    return Reply(500, {"error": {"message": detail, "type": "internal_server_error"}})


def test_auto_steps_to_json_object_on_llama_cpp_pythons_refusal_without_retrying(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(llama_cpp_python_refusal())
    assert ask(openai_client(), make_request()) == [Answer(text="x")]
    kinds = [r.body["response_format"]["type"] for r in chat_server.chat_requests]
    assert kinds == ["json_schema", "json_object"]


def test_raw_control_characters_in_grammar_json_strings_are_accepted(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion('{"text": "line one\nline two\tend"}'))
    client = openai_client(structured_output="json_object")
    assert ask(client, make_request()) == [Answer(text="line one\nline two\tend")]
    assert len(chat_server.chat_requests) == 1


def test_prompt_dialect_reasks_until_the_answer_validates(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion("I would be glad to help with that."))
    chat_server.answer = lambda received: 'Sure:\n```json\n{"text": "second try"}\n```'
    assert ask(openai_client(structured_output="prompt"), make_request()) == [
        Answer(text="second try")
    ]
    reask = chat_server.chat_requests[1].body["messages"]
    assert reask[0]["role"] == "system" and "JSON Schema" in reask[0]["content"]
    assert "the answer is not JSON" in reask[-1]["content"]


def test_ollama_dialect_answers_validate_like_any_other(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion(json.dumps({"text": ""})))  # violates minLength: re-asked
    assert ask(openai_client(structured_output="ollama"), make_request()) == [Answer(text="x")]
    assert [r.body["format"] for r in chat_server.chat_requests] == [
        make_request().output_schema
    ] * 2


def test_a_schema_outside_the_subset_is_reported_once_per_schema(
    chat_server: ChatServer, openai_client: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    schema = {
        "type": "object",
        "properties": {"text": {"oneOf": [{"type": "string"}]}},
        "required": ["text"],
    }
    requests = [make_request(str(i), output_schema=schema) for i in range(2)]
    with caplog.at_level(logging.WARNING, logger="pipeline.core.llm.backends"):
        ask(openai_client(structured_output="json_object"), *requests)
    warnings = [r.getMessage() for r in caplog.records if "subset" in r.getMessage()]
    assert len(warnings) == 1 and "keyword 'oneOf' is outside the subset" in warnings[0]
