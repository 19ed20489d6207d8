"""The engine settings refuse what cannot run, naming the setting and what was tried."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.core.build.engine import Engine, check_engine, redacted
from pipeline.core.model.errors import AtbenchError


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 that nothing listens on (bound, never listening)."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


@pytest.fixture
def listening_port() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def test_the_default_is_in_process_and_needs_no_service(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ATBENCH_EXECUTOR", raising=False)
    engine = Engine.load()
    assert engine.executor == "in_process"
    check_engine(engine, tmp_path / "outputs")
    assert (tmp_path / "outputs").is_dir() and not list((tmp_path / "outputs").iterdir())


def test_an_unknown_executor_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_EXECUTOR", "spark")
    with pytest.raises(AtbenchError, match="ATBENCH_EXECUTOR must be one of in_process, "):
        Engine.load()


def test_celery_without_a_broker_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_EXECUTOR", "celery")
    monkeypatch.delenv("ATBENCH_CELERY_BROKER", raising=False)
    with pytest.raises(AtbenchError, match="needs ATBENCH_CELERY_BROKER"):
        Engine.load()


def test_a_broker_that_does_not_answer_is_named_with_what_was_tried(
    tmp_path: Path, closed_port: int
) -> None:
    engine = Engine(executor="celery", celery_broker=f"redis://127.0.0.1:{closed_port}/0")
    with pytest.raises(AtbenchError) as refused:
        check_engine(engine, tmp_path)
    message = str(refused.value)
    assert message.startswith(f"ATBENCH_CELERY_BROKER redis://127.0.0.1:{closed_port}/0 ")
    assert f"connecting to 127.0.0.1:{closed_port} failed" in message


def test_a_postgres_url_that_does_not_answer_is_named_without_its_password(
    tmp_path: Path, closed_port: int, listening_port: int
) -> None:
    url = f"postgresql+psycopg2://atbench:secret@127.0.0.1:{closed_port}/dagster"
    engine = Engine(
        executor="celery", celery_broker=f"redis://127.0.0.1:{listening_port}/0", postgres_url=url
    )
    with pytest.raises(AtbenchError) as refused:
        check_engine(engine, tmp_path)
    message = str(refused.value)
    assert message.startswith("ATBENCH_POSTGRES_URL postgresql+psycopg2://atbench:***@127.0.0.1:")
    assert "secret" not in message


def test_services_that_answer_pass(tmp_path: Path, listening_port: int) -> None:
    url = f"redis://127.0.0.1:{listening_port}/0"
    check_engine(Engine(executor="celery", celery_broker=url, postgres_url=url), tmp_path)


def test_an_outputs_folder_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    with pytest.raises(AtbenchError, match=r"outputs folder .*a-file/outputs .* not writable"):
        check_engine(Engine(), blocker / "outputs")


def test_a_url_without_a_password_is_shown_whole() -> None:
    assert redacted("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    assert redacted("postgresql://u:p@h:1/d") == "postgresql://u:***@h:1/d"


def test_a_postgres_url_without_the_psycopg2_driver_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ATBENCH_POSTGRES_URL", "postgresql://dagster@127.0.0.1:5432/dagster")
    with pytest.raises(AtbenchError, match=r"must start with postgresql\+psycopg2://"):
        Engine.load()
