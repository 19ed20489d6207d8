"""The model endpoint preflight, against the local Chat Completions server and a closed port."""

from __future__ import annotations

import asyncio

import pytest

from pipeline.core.llm import LLMSettings
from pipeline.core.llm.preflight import preflight
from pipeline.core.model.errors import AtbenchError
from tests.support.chat_server import (
    ChatServer,
    bad_request,
    closed_port,
    completion,
    unsupported_response_format,
)


def settings(url: str, **overrides: object) -> LLMSettings:
    values: dict[str, object] = {"backend": "openai", "base_url": url, "model": "fake-model"}
    return LLMSettings.model_validate(values | overrides)


def test_a_working_endpoint_reports_model_and_dialect(chat_server: ChatServer) -> None:
    found = asyncio.run(preflight(settings(chat_server.url)))
    assert (found.model, found.dialect, found.listed) == ("fake-model", "json_schema", True)
    assert "fake-model" in found.describe() and "json_schema" in found.describe()
    assert [r.path for r in chat_server.requests] == ["/v1/models", "/v1/chat/completions"]


def test_the_dialect_that_worked_is_reported(chat_server: ChatServer) -> None:
    chat_server.script(unsupported_response_format("json_schema"))
    found = asyncio.run(preflight(settings(chat_server.url)))
    assert found.dialect == "json_object"


def test_an_unlisted_model_that_answers_passes_with_a_note(chat_server: ChatServer) -> None:
    found = asyncio.run(preflight(settings(chat_server.url, model="other")))
    assert not found.listed and "not in the server's model list" in found.describe()


def test_a_refused_model_names_the_option_and_the_served_models(chat_server: ChatServer) -> None:
    chat_server.script(bad_request("The model `gtp-4o` does not exist", "model_not_found"))
    with pytest.raises(AtbenchError, match="--model") as raised:
        asyncio.run(preflight(settings(chat_server.url, model="gtp-4o")))
    assert "does not exist" in str(raised.value) and "the server lists: fake-model" in str(
        raised.value
    )


def test_an_answer_that_is_not_json_names_the_dialect(chat_server: ChatServer) -> None:
    chat_server.script(completion("Sure! Here you go."))
    with pytest.raises(AtbenchError, match=r"dialect 'json_schema'.*--structured-output"):
        asyncio.run(preflight(settings(chat_server.url)))
    assert len(chat_server.chat_requests) == 1  # one probe, no retries


def test_a_closed_port_fails_at_once_with_the_connection_error() -> None:
    port = closed_port()
    with pytest.raises(AtbenchError, match="ConnectionFailed") as raised:
        asyncio.run(preflight(settings(f"http://127.0.0.1:{port}/v1")))
    assert f"127.0.0.1:{port}" in str(raised.value) and "--base-url" in str(raised.value)


def test_a_text_probe_takes_prose_for_a_guard_that_writes_no_json(chat_server: ChatServer) -> None:
    chat_server.script(completion("Sure! Here you go."))
    found = asyncio.run(preflight(settings(chat_server.url), structured=False))
    assert found.dialect == "text" and "in plain text" in found.describe()
    assert "response_format" not in chat_server.chat_requests[0].body
