"""A whole release through `--backend openai` against a local server that answers after a delay.

The local Chat Completions server of tests/support/chat_server.py runs in its own process and writes
real pipeline content (`pipeline_answer`: each role's procedural handler, fed from the rendered
prompt) after --delay seconds, like a model with a fixed latency. Three builds of the same spec
(default: 200 trajectories over every domain), each through Dagster as `atbench build` runs them:
the procedural backend (the floor: Dagster, construction and release without LLM latency), the
openai backend on an empty cache, and the same openai build unchanged (it should make no calls).

From the cold build's ledger (`llm_calls`) it also derives the latency-bound ideal: an item's
calls are sequential (each prompt holds the previous answers) and items run concurrently, so a
(stage, domain) step lasts at least its longest item chain x delay. The current schedule runs
domains one after another inside a stage, so its ideal sums the steps; running domains
concurrently would bring it down to the longest step per stage.

Run from the repository root: .venv/bin/python -m benchmarks.build_openai   (~3.5 min)
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb

from pipeline.cli.build import run_build
from pipeline.core.build.config import BuildConfig
from tests.support.chat_server import ChatServerProcess, pipeline_answer


def chains(release: Path) -> dict[tuple[str, str], int]:
    """Per (stage, domain): the most backend calls one item made (its blueprint or trace)."""
    with duckdb.connect(str(release / "release.duckdb"), read_only=True) as con:
        rows = con.execute(
            "SELECT stage, domain, split_part(item_id, '/', 1) AS item, sum(attempts) "
            "FROM llm_calls GROUP BY ALL"
        ).fetchall()
    longest: dict[tuple[str, str], int] = defaultdict(int)
    for stage, domain, _, attempts in rows:
        longest[stage, domain] = max(longest[stage, domain], int(attempts))
    return dict(longest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200)
    parser.add_argument("--domains", default="", help="comma-separated; default: every seed")
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()

    with (
        tempfile.TemporaryDirectory() as tmp,
        ChatServerProcess(pipeline_answer, delay_s=args.delay) as server,
    ):
        work = Path(tmp)
        os.environ["ATBENCH_OUTPUTS"] = str(work / "outputs")
        os.environ["DAGSTER_HOME"] = str(work / "dagster")

        openai = {
            "backend": "openai",
            "model": "fake-model",
            "base_url": server.url,
            "structured_output": "json_schema",
        }
        spec = {"size": args.size, "domains": args.domains}

        def timed(settings: dict[str, Any], out: str) -> tuple[float, int]:
            before = server.chat_requests()
            started = time.perf_counter()
            run_build(BuildConfig.load(**settings), work / out)
            return time.perf_counter() - started, server.chat_requests() - before

        # Untimed warm-up of Dagster, the inputs and the server's inputs; another seed, so
        # none of its answers is reused below.
        timed({**openai, "size": 2, "seed": 1, "domains": "smart_home"}, "warm-up")
        procedural, _ = timed(spec, "procedural")
        cold, cold_calls = timed({**openai, **spec}, "openai")
        warm, warm_calls = timed({**openai, **spec}, "openai-rerun")
        longest = chains(work / "openai")

    steps = sum(longest.values())
    per_stage: dict[str, int] = defaultdict(int)
    for (stage, _), chain in longest.items():
        per_stage[stage] = max(per_stage[stage], chain)
    ideal = steps * args.delay
    ideal_parallel = sum(per_stage.values()) * args.delay
    result = {
        "size": args.size,
        "domains": args.domains or "all",
        "server_delay_s": args.delay,
        "procedural_build_s": round(procedural, 1),
        "openai_cold_s": round(cold, 1),
        "openai_cold_server_calls": cold_calls,
        "serial_latency_s": round(cold_calls * args.delay, 1),
        "ideal_domains_in_turn_s": round(ideal, 1),
        "cold_vs_ideal_domains_in_turn": round(cold / ideal, 2),
        "cold_minus_procedural_vs_ideal": round((cold - procedural) / ideal, 2),
        "ideal_domains_concurrent_s": round(ideal_parallel, 1),
        "openai_rerun_s": round(warm, 1),
        "openai_rerun_server_calls": warm_calls,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
