"""Which Dagster executor runs a build's steps, and the services it needs, checked up front.

The engine is how a build runs, not what it builds: it never enters the release spec or the
work folder's name. Every process that loads the Dagster definitions (the CLI, `dagster dev`,
each celery worker) reads the same `ATBENCH_*` environment, so they agree on the executor.
A distributed executor is only as good as the services behind it, so `check_engine` tries
each one (broker, instance database, outputs folder) before any step runs and names the
setting that failed.
"""

from __future__ import annotations

import socket
import uuid
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from pipeline.core.inputs.paths import project_root
from pipeline.core.model.errors import AtbenchError, InputError, naming_full_disk

EXECUTORS = ("in_process", "multiprocess", "celery", "k8s")

POSTGRES_SCHEME = "postgresql+psycopg2:"
_DEFAULT_PORTS = {
    "redis": 6379,
    "rediss": 6379,
    "amqp": 5672,
    "pyamqp": 5672,
    "postgresql+psycopg2": 5432,
}
_CONNECT_TIMEOUT_S = 3.0


class Engine(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="ATBENCH_", extra="ignore", frozen=True)

    executor: str = "in_process"
    """in_process | multiprocess | celery | k8s (`ATBENCH_EXECUTOR`)."""
    celery_broker: str | None = None
    """The celery broker the executor and every worker use (`ATBENCH_CELERY_BROKER`)."""
    celery_backend: str | None = None
    """Where workers put step results (`ATBENCH_CELERY_BACKEND`); unset: the broker."""
    postgres_url: str | None = None
    """Dagster instance storage shared with the workers (`ATBENCH_POSTGRES_URL`); unset: the
    CLI's own SQLite instance, which only processes on the same machine can reach."""
    submit: bool = False
    """Submit the run to the instance under `DAGSTER_HOME` (its run coordinator, run launcher
    and `dagster-daemon`) instead of running it from the CLI (`ATBENCH_SUBMIT`, `--submit`)."""
    workspace: Path | None = None
    """The workspace file a submitted run's code location comes from, the one `dagster-daemon`
    was started with (`ATBENCH_WORKSPACE`); unset: the project's `workspace.yaml`."""

    @classmethod
    def load(cls, *, submit: bool = False) -> Engine:
        """The engine of the `ATBENCH_*` environment; `submit` (the CLI's `--submit`) turns
        submission on whatever `ATBENCH_SUBMIT` says."""
        try:
            engine = cls(submit=True) if submit else cls()
        except ValidationError as err:
            raise InputError.from_validation(err, file="ATBENCH_* environment") from None
        if engine.executor not in EXECUTORS:
            raise AtbenchError(
                f"ATBENCH_EXECUTOR must be one of {', '.join(EXECUTORS)}, got {engine.executor!r}"
            )
        if engine.executor == "celery" and not engine.celery_broker:
            raise AtbenchError(
                "ATBENCH_EXECUTOR=celery needs ATBENCH_CELERY_BROKER, the broker URL the workers "
                "listen on (e.g. redis://127.0.0.1:6379/0)"
            )
        if engine.postgres_url and not engine.postgres_url.startswith(POSTGRES_SCHEME):
            raise AtbenchError(
                f"ATBENCH_POSTGRES_URL must start with {POSTGRES_SCHEME}// (dagster-postgres "
                "speaks psycopg2; SQLAlchemy 2.1 opens a bare postgresql:// with psycopg 3), "
                f"got {redacted(engine.postgres_url)!r}"
            )
        return engine

    def workspace_file(self) -> Path:
        """The workspace file to submit through, which must exist."""
        found = self.workspace or project_root() / "workspace.yaml"
        if not found.is_file():
            raise AtbenchError(
                f"ATBENCH_WORKSPACE {found} is not a file: a submitted run names its code "
                "location from the workspace file dagster-daemon was started with"
            )
        return found

    @property
    def result_backend(self) -> str | None:
        return self.celery_backend or self.celery_broker


def check_engine(engine: Engine, outputs: Path) -> None:
    """Stop before any step runs if a service of `engine` does not answer or `outputs` cannot
    be written; the message names the setting and what was tried."""
    if engine.executor == "celery":
        _check_answers("ATBENCH_CELERY_BROKER", engine.celery_broker)
        if engine.celery_backend:
            _check_answers("ATBENCH_CELERY_BACKEND", engine.celery_backend)
    if engine.postgres_url:
        _check_answers("ATBENCH_POSTGRES_URL", engine.postgres_url)
    check_writable(outputs)


def check_writable(outputs: Path) -> None:
    """Write and remove a probe file where stage files, the cache and the ledger go. A full
    disk is the one-line `NoSpaceError` naming the folder, as for every other write."""
    probe = outputs / f".write-probe-{uuid.uuid4().hex}"
    try:
        with naming_full_disk(outputs):
            outputs.mkdir(parents=True, exist_ok=True)
            probe.write_text("probe\n", encoding="utf-8")
            probe.unlink()
    except OSError as err:
        raise AtbenchError(
            f"the outputs folder {outputs} (ATBENCH_OUTPUTS) is not writable: writing "
            f"{probe.name} there failed with {err.strerror or err}"
        ) from None


def redacted(url: str) -> str:
    """`url` without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
    return parts._replace(netloc=netloc).geturl()


def _check_answers(setting: str, url: str | None) -> None:
    """Open a TCP connection to the host and port of `url`; a refusal or a timeout names them."""
    if not url:
        raise AtbenchError(f"{setting} is empty")
    parts = urlsplit(url)
    try:
        port = parts.port or _DEFAULT_PORTS.get(parts.scheme)
    except ValueError:
        port = None
    if not parts.hostname or port is None:
        raise AtbenchError(f"{setting} {redacted(url)!r} names no host and port to connect to")
    try:
        with socket.create_connection((parts.hostname, port), timeout=_CONNECT_TIMEOUT_S):
            pass
    except OSError as err:
        raise AtbenchError(
            f"{setting} {redacted(url)} does not answer: connecting to {parts.hostname}:{port} "
            f"failed ({err.strerror or err}); start the service or fix the setting"
        ) from None
