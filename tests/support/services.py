"""Redis, PostgreSQL and celery workers as real processes on 127.0.0.1, for the distributed
tier: each on a free port in its own temporary folder, stopped and removed on exit.

PostgreSQL refuses to run as root, so as root (CI) its commands run as the `postgres` user
that Debian's package creates, over a data folder that user owns.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
CELERY_CONFIG = PROJECT / "deploy" / "celery.yaml"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder (Debian keeps it off PATH)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def missing_services() -> list[str]:
    """What the distributed tier needs and this machine lacks (`.ci/run` installs it)."""
    missing = [name for name in ("redis-server",) if shutil.which(name) is None]
    if postgres_bin() is None:
        missing.append("postgresql (initdb, pg_ctl)")
    return missing


def wait_until_answering(port: int, what: str, log: Path, *, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"{what} did not answer on 127.0.0.1:{port}: {log.read_text()[-2000:]}")


@contextmanager
def redis_server(root: Path) -> Iterator[str]:
    """A Redis on a free port, without persistence; yields its URL."""
    port, log = free_port(), root / "redis.log"
    command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(root)]
    command += ["--save", "", "--appendonly", "no", "--logfile", str(log)]
    with subprocess.Popen(command) as server:
        try:
            wait_until_answering(port, "redis-server", log)
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            server.terminate()
            server.wait(timeout=30)


def _as_postgres(command: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@contextmanager
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster (trust auth, fsync off) on a free port; yields its URL."""
    bin_dir = postgres_bin()
    assert bin_dir is not None, "PostgreSQL is not installed"
    root = Path(tempfile.mkdtemp(prefix="atbench-pg-"))
    data, log, port = root / "data", root / "postgres.log", free_port()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    try:
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", "dagster", "--auth=trust"]
        subprocess.run(_as_postgres(initdb), check=True, capture_output=True)
        options = f"-p {port} -k {data} -c listen_addresses=127.0.0.1 -c fsync=off"
        start = [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log)]
        subprocess.run(_as_postgres([*start, "-w", "start"]), check=True, capture_output=True)
        try:
            yield f"postgresql+psycopg2://dagster@127.0.0.1:{port}/postgres"
        finally:
            stop = [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
            subprocess.run(_as_postgres(stop), check=True, capture_output=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Worker:
    """One `dagster-celery worker start` in its own process group (wrapper and celery)."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def kill(self) -> None:
        """SIGKILL the whole worker, as a lost machine would go: no task is finished."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def freeze(self) -> None:
        """SIGSTOP: the worker holds still, in whatever step it is in."""
        os.killpg(self.process.pid, signal.SIGSTOP)

    def thaw(self) -> None:
        os.killpg(self.process.pid, signal.SIGCONT)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def start_worker(name: str, env: Mapping[str, str], logs: Path, config: Path) -> Worker:
    """A celery worker running one step at a time (`--pool solo`), as docs/scaling.md starts
    them; `config` is the worker's celery YAML (`deploy/celery.yaml` or a test's copy)."""
    bin_dir = Path(os.environ.get("VIRTUAL_ENV", PROJECT / ".venv")) / "bin"
    log = logs / f"{name}.log"
    command = [str(bin_dir / "dagster-celery"), "worker", "start", "-A", "dagster_celery.app"]
    command += ["-y", str(config), "-n", name, "-l", "WARNING", "--", "--pool", "solo"]
    path = f"{bin_dir}{os.pathsep}{env.get('PATH', os.defpath)}"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            command,
            env={**env, "PATH": path},
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=PROJECT,
        )
    return Worker(name, process, log)
