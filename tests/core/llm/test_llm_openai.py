"""The openai backend against a real local Chat Completions server: retries, re-asks, dialects."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from pipeline.core.llm import LLMClient, LLMFailure, LLMRequest, LLMSettings, summarise_ledger
from tests.core.llm.llm_helpers import SCHEMA, Answer, ClientFactory, make_request
from tests.support.chat_server import (
    ChatServer,
    bad_request,
    completion,
    rate_limited,
    server_error,
    slow,
    unsupported_response_format,
)


def ask(client: LLMClient, request: LLMRequest) -> Answer | LLMFailure:
    async def run() -> Answer | LLMFailure:
        async with client:
            return await client.ask(request, Answer)

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("reply", "wait"),
    [(rate_limited(retry_after=0.5), 0.5), (rate_limited(retry_after_ms=300), 0.3)],
    ids=["retry-after", "retry-after-ms"],
)
def test_rate_limit_waits_as_long_as_the_server_asked(
    chat_server: ChatServer, openai_client: ClientFactory, reply: Any, wait: float
) -> None:
    chat_server.script(reply)
    answer = ask(openai_client(), make_request())
    assert answer == Answer(text="x")
    first, second = chat_server.chat_requests
    assert second.at - first.at >= wait  # backoff alone (base 10 ms) would be far shorter


def test_server_error_then_success(chat_server: ChatServer, openai_client: ClientFactory) -> None:
    chat_server.script(server_error())
    assert ask(openai_client(), make_request()) == Answer(text="x")
    assert len(chat_server.chat_requests) == 2


def test_timeout_then_success(chat_server: ChatServer, openai_client: ClientFactory) -> None:
    chat_server.script(slow(1.5))
    assert ask(openai_client(timeout_s=0.3), make_request()) == Answer(text="x")
    assert len(chat_server.chat_requests) == 2


def test_exhausted_retries_return_a_failure_with_grouped_errors(
    chat_server: ChatServer, openai_client: ClientFactory, tmp_path: Path
) -> None:
    chat_server.script(server_error(), server_error(), server_error(), server_error())
    result = ask(openai_client(max_retries=2), make_request())
    assert isinstance(result, LLMFailure)
    assert result.reason_code == "retries_exhausted"
    assert result.attempts == 3
    assert len(result.errors) == 1
    assert result.errors[0].startswith("ServerError: ") and result.errors[0].endswith("(x3)")
    summary = summarise_ledger([tmp_path / "ledger"])
    assert (summary["calls"], summary["failed"], summary["attempts"]) == (1, 1, 3)


def test_bad_request_is_not_retried(chat_server: ChatServer, openai_client: ClientFactory) -> None:
    chat_server.script(bad_request("The model `fake-model` does not exist", "model_not_found"))
    result = ask(openai_client(), make_request())
    assert isinstance(result, LLMFailure)
    assert (result.reason_code, result.attempts) == ("bad_request", 1)
    assert "does not exist" in result.errors[0]


def test_malformed_json_is_reasked_with_the_error(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion("Sure! Here you go: text=hello"))
    assert ask(openai_client(), make_request()) == Answer(text="x")
    reask = chat_server.chat_requests[1].body["messages"]
    assert reask[-2] == {"role": "assistant", "content": "Sure! Here you go: text=hello"}
    assert reask[-1]["role"] == "user"
    assert "the answer is not JSON" in reask[-1]["content"]


def test_schema_invalid_answers_become_invalid_answer_failure(
    chat_server: ChatServer, openai_client: ClientFactory, tmp_path: Path
) -> None:
    wrong = completion(json.dumps({"text": ""}))  # violates minLength
    chat_server.script(wrong, wrong, wrong)
    result = ask(openai_client(max_reasks=2), make_request())
    assert isinstance(result, LLMFailure)
    assert (result.reason_code, result.attempts) == ("invalid_answer", 3)
    assert "SchemaViolation" in result.errors[0] and "(x3)" in result.errors[0]
    last = chat_server.chat_requests[-1].body["messages"][-1]["content"]
    assert "does not match the schema at $.text" in last
    assert summarise_ledger([tmp_path / "ledger"])["invalid"] == 1


def test_answer_cut_at_max_tokens_counts_as_a_failed_attempt(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(completion('{"text": "a very lo', finish_reason="length"))
    assert ask(openai_client(max_tokens=5), make_request()) == Answer(text="x")
    assert "cut off at max_tokens" in chat_server.chat_requests[1].body["messages"][-1]["content"]
    assert chat_server.chat_requests[0].body["max_tokens"] == 5


def test_content_filtered_answers_become_a_failure(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    cut = completion("", finish_reason="content_filter")
    chat_server.script(cut, cut)
    result = ask(openai_client(max_reasks=1), make_request())
    assert isinstance(result, LLMFailure)
    assert (result.reason_code, result.attempts) == ("content_filtered", 2)


@pytest.mark.parametrize("dialect", ["json_schema", "json_object", "ollama", "prompt"])
def test_each_dialect_sends_its_request_shape(
    chat_server: ChatServer, openai_client: ClientFactory, dialect: str
) -> None:
    if dialect == "prompt":  # such servers answer in prose: the JSON is fished out of a fence
        chat_server.answer = lambda received: 'Here it is:\n```json\n{"text": "fenced"}\n```'
    answer = ask(openai_client(structured_output=dialect), make_request())
    body = chat_server.chat_requests[0].body
    if dialect == "json_schema":
        assert body["response_format"] == {
            "type": "json_schema",
            "json_schema": {"name": "query_generator", "schema": SCHEMA, "strict": True},
        }
    elif dialect == "json_object":
        assert body["response_format"] == {"type": "json_object", "schema": SCHEMA}
    elif dialect == "ollama":
        assert "response_format" not in body and body["format"] == SCHEMA
    else:
        assert "response_format" not in body and "format" not in body
        system = body["messages"][0]
        assert system["role"] == "system" and json.dumps(SCHEMA) in system["content"]
        assert answer == Answer(text="fenced")


def test_strict_only_when_the_schema_allows_it(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    open_schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    ask(openai_client(), make_request(output_schema=open_schema))
    assert "strict" not in chat_server.chat_requests[0].body["response_format"]["json_schema"]


def test_auto_falls_back_and_remembers_the_dialect(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(unsupported_response_format("json_schema"))
    client = openai_client()

    async def run() -> list[Answer | LLMFailure]:
        async with client:
            first = await client.ask(make_request("a"), Answer)
            second = await client.ask(make_request("b"), Answer)
            return [first, second]

    assert asyncio.run(run()) == [Answer(text="x"), Answer(text="x")]
    kinds = [r.body["response_format"]["type"] for r in chat_server.chat_requests]
    assert kinds == ["json_schema", "json_object", "json_object"]


def test_auto_falls_back_to_prompt_when_no_json_mode_works(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.script(
        unsupported_response_format("json_schema"), unsupported_response_format("json_object")
    )
    assert ask(openai_client(), make_request()) == Answer(text="x")
    assert "response_format" not in chat_server.chat_requests[2].body


def test_concurrency_is_bounded_by_the_semaphore(
    chat_server: ChatServer, openai_client: ClientFactory
) -> None:
    chat_server.delay_s = 0.1
    client = openai_client(max_concurrency=3)

    async def run() -> list[Answer | LLMFailure]:
        async with client:
            return await client.ask_all([(make_request(str(i)), Answer) for i in range(9)])

    assert asyncio.run(run()) == [Answer(text="x")] * 9
    assert chat_server.max_in_flight == 3


def test_the_key_never_leaves_the_request(
    chat_server: ChatServer,
    openai_client: ClientFactory,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    secret = "sk-test-SECRET-do-not-leak-42"
    caplog.set_level(logging.DEBUG)
    chat_server.script(rate_limited(retry_after_ms=10), completion("not json"))
    client = openai_client(api_key=secret)
    ask(client, make_request())
    assert chat_server.chat_requests[0].headers["authorization"] == f"Bearer {secret}"
    settings = client.settings
    shown = [repr(settings), str(settings), settings.model_dump_json(), repr(client)]
    shown += [repr(client.backend), json.dumps(settings.fingerprint()), caplog.text]
    assert not [text for text in shown if secret in text]
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.suffix == ".jsonl"]
    assert written and not [p for p in written if secret in p.read_text()]


def test_settings_come_from_env_and_overrides_win(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("ATBENCH_MODEL", "env-model")
    monkeypatch.setenv("ATBENCH_STRUCTURED_OUTPUT", "ollama")
    settings = LLMSettings.from_env(backend="openai", model="cli-model", base_url=None)
    assert settings.base_url == "http://127.0.0.1:9/v1"
    assert settings.api_key is not None and settings.api_key.get_secret_value() == "sk-env"
    assert (settings.model, settings.structured_output) == ("cli-model", "ollama")
    assert settings.fingerprint() == {
        "backend": "openai",
        "model": "cli-model",
        "max_tokens": None,
        "temperature": None,
        "top_p": None,
    }


def test_settings_reject_out_of_bounds_and_unknown_fields() -> None:
    with pytest.raises(ValueError, match="max_concurrency"):
        LLMSettings(max_concurrency=0)
    with pytest.raises(ValueError, match="Extra inputs"):
        LLMSettings(model_name="x")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="ATBENCH_MODEL"):
        LLMSettings(backend="openai")


def test_tokens_come_from_the_response_and_cost_from_prices(
    chat_server: ChatServer, openai_client: ClientFactory, tmp_path: Path
) -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 500}
    chat_server.script(completion('{"text": "y"}', usage=usage))
    client = openai_client(price_input_per_mtok=2.0, price_output_per_mtok=8.0)
    assert ask(client, make_request()) == Answer(text="y")
    summary = summarise_ledger([tmp_path / "ledger"])
    assert (summary["prompt_tokens"], summary["completion_tokens"]) == (1000, 500)
    assert summary["tokens_estimated"] is False
    assert summary["cost_usd"] == pytest.approx(0.006)
