"""A server that echoes the request's credentials in its errors: no file written keeps them."""

from __future__ import annotations

import contextlib
import io
import itertools
from pathlib import Path

import pytest
from rich.console import Console

from pipeline.cli.build import run_build
from pipeline.core.llm.redact import redact
from pipeline.core.model.errors import AtbenchError
from tests.support.builds import stand_in_config
from tests.support.chat_server import ChatServer, Received, Reply, bad_request, pipeline_answer

KEY = "correct-horse-battery-staple-4711"
"""Shaped like no known key format: only knowing the configured key can remove it."""
DOMAIN = "smart_home"


def echoing_server() -> ChatServer:
    """Every third pipeline request fails with a 400 quoting its headers, as some proxies do."""
    counter = itertools.count()

    def answer(received: Received) -> object | Reply:
        if received.role != "preflight" and next(counter) % 3 == 0:
            auth = received.headers.get("authorization", "")
            return bad_request(f"bad request; you sent Authorization: {auth} (key {KEY[:4]}...)")
        answered: object = pipeline_answer(received)
        return answered

    return ChatServer(answer)


def test_an_echoed_key_reaches_no_file_and_no_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A whole build through Dagster on a persistent instance: work folder, candidate, release
    and Dagster's run storage and compute logs are all under `tmp_path`, and all are read."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ATBENCH_OUTPUTS", str(tmp_path / "outputs"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    monkeypatch.setenv("ATBENCH_FAIL_FAST_AFTER", "0")  # every failure becomes a rejection
    with echoing_server() as server:
        config = stand_in_config(8, DOMAIN, server.url)
        with contextlib.suppress(AtbenchError):  # the rejections may fail a release gate
            run_build(config, tmp_path / "release", console=Console(file=io.StringIO()))
        echoed = [r for r in server.chat_requests if KEY in r.headers.get("authorization", "")]
    assert echoed, "the server never saw the key, so it could not echo it"
    rejections = config.workspace().rejections_file("skeletons", DOMAIN).read_text()
    assert "Authorization: Bearer [redacted]" in rejections
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.is_relative_to(tmp_path / "dagster" / "storage") for p in written)
    assert [p for p in written if KEY.encode() in p.read_bytes()] == []
    assert KEY not in caplog.text


def test_key_shapes_are_redacted_even_when_not_configured() -> None:
    text = "auth=Bearer abc.def-123 key sk-proj-AbCdEf123456 url https://user:pw@proxy/v1"
    assert redact(text) == ("auth=Bearer [redacted] key [redacted] url https://[redacted]@proxy/v1")
