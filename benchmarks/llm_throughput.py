"""Throughput of the LLM layer against a latency-bound server, next to a bare openai loop.

2,000 structured calls at concurrency 64 against a local Chat Completions server (in its own
process) that answers after 500 ms: the ideal wall time is 2000 / 64 * 0.5 = 15.6 s.
(a) a bare asyncio.gather + semaphore loop over AsyncOpenAI; (b) LLMClient with an empty cache;
(c) LLMClient again over the warm cache, which must make zero server calls.

Run from the repository root: .venv/bin/python -m benchmarks.llm_throughput
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

import openai
from pydantic import BaseModel

from pipeline.core.llm import LLMRequest, LLMSettings, make_client
from tests.support.chat_server import ChatServerProcess

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
    "additionalProperties": False,
}


class Answer(BaseModel):
    text: str


async def bare_loop(url: str, calls: int, concurrency: int) -> float:
    client = openai.AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0, timeout=60)
    semaphore = asyncio.Semaphore(concurrency)
    response_format: Any = {
        "type": "json_schema",
        "json_schema": {"name": "query_generator", "schema": SCHEMA, "strict": True},
    }

    async def one(i: int) -> Answer:
        async with semaphore:
            response = await client.chat.completions.create(
                model="fake-model",
                messages=[{"role": "user", "content": f"Write a query about topic {i}."}],
                response_format=response_format,
            )
        return Answer.model_validate_json(response.choices[0].message.content or "")

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(calls)))
    wall = time.perf_counter() - started
    await client.close()
    return wall


async def layer(url: str, calls: int, concurrency: int, work: Path) -> float:
    settings = LLMSettings(
        backend="openai", base_url=url, model="fake-model", max_concurrency=concurrency
    )
    client = make_client(
        settings,
        cache_dir=work / "cache",
        namespace="bench",
        ledger_path=work / "ledger",
        templates_dir=work / "templates",
    )
    requests = [
        LLMRequest(
            role="query_generator",
            template="query_generator.j2",
            variables={"topic": f"topic {i}"},
            output_schema=SCHEMA,
            stage="bench",
            domain="bench",
            item_id=str(i),
        )
        for i in range(calls)
    ]
    started = time.perf_counter()
    async with client:
        answers = await client.ask_all([(request, Answer) for request in requests])
    wall = time.perf_counter() - started
    assert all(isinstance(a, Answer) for a in answers), "some calls failed"
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.5)
    args = parser.parse_args()
    ideal = args.calls / args.concurrency * args.delay
    with tempfile.TemporaryDirectory() as tmp, ChatServerProcess(delay_s=args.delay) as server:
        work = Path(tmp)
        (work / "templates").mkdir()
        (work / "templates" / "query_generator.j2").write_text("Write a query about {{ topic }}.")
        bare = asyncio.run(bare_loop(server.url, args.calls, args.concurrency))
        before = server.chat_requests()
        cold = asyncio.run(layer(server.url, args.calls, args.concurrency, work))
        cold_requests = server.chat_requests() - before
        warm = asyncio.run(layer(server.url, args.calls, args.concurrency, work))
        warm_requests = server.chat_requests() - before - cold_requests
    result = {
        "calls": args.calls,
        "concurrency": args.concurrency,
        "server_delay_s": args.delay,
        "ideal_s": round(ideal, 2),
        "bare_loop_s": round(bare, 2),
        "llm_client_cold_s": round(cold, 2),
        "cold_vs_ideal": round(cold / ideal, 3),
        "cold_vs_bare": round(cold / bare, 3),
        "cold_server_calls": cold_requests,
        "llm_client_warm_s": round(warm, 3),
        "warm_vs_cold": round(warm / cold, 4),
        "warm_server_calls": warm_requests,
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
