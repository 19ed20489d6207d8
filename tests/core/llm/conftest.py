"""Fixtures for the LLM layer: templates in tmp_path, a real chat server, client factories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pipeline.core.llm import LLMClient, LLMSettings, make_client
from tests.core.llm.llm_helpers import ClientFactory, procedural_handlers
from tests.support import chat_server as chat_server_module
from tests.support.chat_server import ChatServer

chat_server = chat_server_module.chat_server
"""The shared fixture: a started ChatServer answering each request's schema minimally."""


@pytest.fixture
def templates_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "query_generator.j2").write_text("Write a query about {{ topic }}.")
    (folder / "judge.j2").write_text("Judge this: {{ topic }}")
    return folder


@pytest.fixture
def openai_client(tmp_path: Path, templates_dir: Path, chat_server: ChatServer) -> ClientFactory:
    """Builds an openai-backend client against `chat_server`, with short timeouts and backoff."""

    def build(**overrides: Any) -> LLMClient:
        values: dict[str, Any] = {
            "backend": "openai",
            "base_url": chat_server.url,
            "api_key": "sk-test-key",
            "model": "fake-model",
            "timeout_s": 2.0,
            "backoff_base_s": 0.01,
            "backoff_max_s": 2.0,
        }
        values.update(overrides)
        return make_client(
            LLMSettings(**values),
            cache_dir=tmp_path / "cache",
            namespace="finance",
            ledger_path=tmp_path / "ledger",
            templates_dir=templates_dir,
        )

    return build


@pytest.fixture
def procedural_client(tmp_path: Path, templates_dir: Path) -> ClientFactory:
    def build(cache_dir: Path | None = None, **overrides: Any) -> LLMClient:
        return make_client(
            LLMSettings(**overrides),
            cache_dir=cache_dir or tmp_path / "cache",
            namespace="finance",
            ledger_path=tmp_path / "ledger",
            templates_dir=templates_dir,
            handlers=procedural_handlers(),
        )

    return build
