"""A server that echoes the request's credentials in its errors: no file written keeps them."""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path

import pytest

from pipeline.core.build import stages
from pipeline.core.build.workspace import Workspace
from pipeline.core.llm import LLMSettings
from pipeline.core.llm.redact import redact
from pipeline.core.model.spec import ReleaseSpec
from tests.support.chat_server import (
    ChatServer,
    Received,
    Reply,
    bad_request,
    inputs_once,
    pipeline_answer,
)

KEY = "correct-horse-battery-staple-4711"
"""Shaped like no known key format: only knowing the configured key can remove it."""
DOMAIN = "smart_home"


def echoing_server() -> ChatServer:
    """Every third request fails with a 400 quoting its headers, as some proxies do."""
    counter = itertools.count()

    def answer(received: Received) -> object | Reply:
        if next(counter) % 3 == 0:
            auth = received.headers.get("authorization", "")
            return bad_request(f"bad request; you sent Authorization: {auth} (key {KEY[:4]}...)")
        answered: object = pipeline_answer(received)
        return answered

    return ChatServer(answer)


def test_an_echoed_key_reaches_no_file_and_no_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    spec = ReleaseSpec(size=8, domains=(DOMAIN,), backend="openai", model="fake-model")
    ws = Workspace.for_spec(spec, tmp_path)
    with echoing_server() as server:
        settings = LLMSettings.from_env(
            backend="openai", base_url=server.url, model="fake-model", max_reasks=0
        )
        stages.plan_stage(spec, inputs_once(), ws)
        asyncio.run(stages.expand_stage(spec, inputs_once(), DOMAIN, ws, settings))
        echoed = [r for r in server.chat_requests if KEY in r.headers.get("authorization", "")]
    assert echoed, "the server never saw the key, so it could not echo it"
    rejections = ws.rejections_file("skeletons", DOMAIN).read_text()
    assert "Authorization: Bearer [redacted]" in rejections
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert [p for p in written if KEY.encode() in p.read_bytes()] == []
    assert KEY not in caplog.text


def test_key_shapes_are_redacted_even_when_not_configured() -> None:
    text = "auth=Bearer abc.def-123 key sk-proj-AbCdEf123456 url https://user:pw@proxy/v1"
    assert redact(text) == ("auth=Bearer [redacted] key [redacted] url https://[redacted]@proxy/v1")
