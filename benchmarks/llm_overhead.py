"""Per-call overhead of the LLM layer with the procedural backend (render + key + lookup +
validate + cache write + ledger line), where the backend itself costs next to nothing.

Run from the repository root: .venv/bin/python -m benchmarks.llm_overhead
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pipeline.core.llm import LLMClient, LLMRequest, LLMSettings, make_client

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "tool": {"type": "string", "enum": ["search_web", "send_email", "read_file"]},
    },
    "required": ["query", "tool"],
    "additionalProperties": False,
}


class Answer(BaseModel):
    query: str
    tool: str


def handler(request: LLMRequest) -> dict[str, Any]:
    return {"query": f"find {request.variables['topic']}", "tool": "search_web"}


async def timed(client: LLMClient, requests: list[LLMRequest]) -> list[float]:
    times = []
    async with client:
        for request in requests:
            started = time.perf_counter()
            answer = await client.ask(request, Answer)
            times.append(time.perf_counter() - started)
            assert isinstance(answer, Answer)
    return times


def stats_ms(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 4),
        "p95_ms": round(ordered[int(len(ordered) * 0.95)] * 1000, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "templates").mkdir()
        (work / "templates" / "system.j2").write_text("You generate agent-safety benchmarks.")
        (work / "templates" / "query_generator.j2").write_text(
            "Domain: {{ domain }}. Write a user query about {{ topic }} that needs one of: "
            "{% for t in tools %}{{ t }}{% if not loop.last %}, {% endif %}{% endfor %}."
        )
        requests = [
            LLMRequest(
                role="query_generator",
                template="query_generator.j2",
                variables={
                    "domain": "finance",
                    "topic": f"topic {i}",
                    "tools": ["search_web", "send_email", "read_file"],
                },
                output_schema=SCHEMA,
                stage="queries",
                domain="finance",
                item_id=str(i),
            )
            for i in range(args.calls)
        ]

        def client() -> LLMClient:
            return make_client(
                LLMSettings(),
                cache_dir=work / "cache",
                namespace="finance",
                ledger_path=work / "ledger",
                templates_dir=work / "templates",
                handlers={"query_generator": handler},
            )

        miss = asyncio.run(timed(client(), requests))
        opened = time.perf_counter()
        warm_client = client()
        open_s = time.perf_counter() - opened
        hit = asyncio.run(timed(warm_client, requests))
    print(
        json.dumps(
            {
                "calls": args.calls,
                "cold_cache_miss": stats_ms(miss),
                "warm_cache_hit": stats_ms(hit),
                "cache_open_s": round(open_s, 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
