"""One openai-backend build over several domains on the celery executor, with one and with two
workers: each domain is its own branch of steps, so two workers construct two domains at once.

A local Chat Completions server (tests/support/chat_server.py, in its own process) answers
every request with real pipeline content after --delay seconds, like a model with a fixed
latency. Redis (broker) and PostgreSQL (Dagster instance) run on 127.0.0.1 as in the celery
test (tests/support/services.py). Each build is `atbench build` with `ATBENCH_EXECUTOR=celery`
on a cold outputs folder (no cached answer), each worker running one step at a time with the
same bound on requests in flight (--concurrency), the `llm` pool left unbounded. An
in-process build of the same spec (one branch, every domain in one event loop, one bound) is
timed too, for reference.

Run from the repository root, with the distributed extra installed and redis-server and
PostgreSQL on the machine: .venv/bin/python -m benchmarks.celery_scaling   (~8 min)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from tests.support.chat_server import ChatServerProcess, pipeline_answer
from tests.support.services import (
    CELERY_CONFIG,
    PROJECT,
    postgres_server,
    redis_server,
    start_worker,
)


def timed_build(args: argparse.Namespace, env: dict[str, str], url: str, out: Path) -> float:
    command = [str(PROJECT / ".venv" / "bin" / "atbench"), "build", "--backend", "openai"]
    command += ["--model", "fake-model", "--base-url", url, "--size", str(args.size)]
    command += ["--domains", args.domains, "--concurrency", str(args.concurrency)]
    command += ["--out", str(out / "release")]
    started = time.perf_counter()
    subprocess.run(command, env=env | {"ATBENCH_OUTPUTS": str(out / "outputs")}, check=True)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=40)
    parser.add_argument("--domains", default="ecommerce,email_calendar,smart_home,travel_booking")
    parser.add_argument("--delay", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()

    with (
        tempfile.TemporaryDirectory() as tmp,
        ChatServerProcess(pipeline_answer, delay_s=args.delay) as server,
        redis_server(Path(tmp)) as broker,
        postgres_server() as postgres,
    ):
        root = Path(tmp)
        home = root / "dagster"
        env = dict(os.environ, DAGSTER_HOME=str(home))
        home.mkdir()
        (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
        figures: dict[str, float] = {
            "in_process_s": timed_build(args, env, server.url, root / "in-process")
        }
        env |= {
            "ATBENCH_EXECUTOR": "celery",
            "ATBENCH_CELERY_BROKER": broker,
            "ATBENCH_POSTGRES_URL": postgres,
        }
        for count in (1, 2):
            workers = [start_worker(f"w{count}{i}", env, root, CELERY_CONFIG) for i in range(count)]
            try:
                figures[f"celery_{count}_worker_s"] = timed_build(
                    args, env, server.url, root / f"celery-{count}"
                )
            finally:
                for worker in workers:
                    worker.stop()
        calls = server.chat_requests()

    figures = {key: round(value, 1) for key, value in figures.items()}
    result = {
        "size": args.size,
        "domains": args.domains,
        "server_delay_s": args.delay,
        "concurrency_per_worker": args.concurrency,
        "server_calls_all_builds": calls,
        **figures,
        "speed_up_two_workers": round(
            figures["celery_1_worker_s"] / figures["celery_2_worker_s"], 2
        ),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
