"""An `openai` evaluation of a release next to a bare AsyncOpenAI loop making the same calls.

The local Chat Completions server of `tests/chat_server.py` runs in its own process and answers
every request after `--delay` seconds with a fine-grained verdict. (a) a bare asyncio.gather +
semaphore loop over AsyncOpenAI sends the very prompts the evaluator renders; (b) `evaluate`
with an empty cache: render, LLM layer (cache, ledger, retries), parse, metrics and the run
directory; (c) the same run again, which must make zero server calls.

Run from the repository root (a release of about 1,000 trajectories first):
    .venv/bin/python -m benchmarks.eval_openai outputs/release [--concurrency 64] [--delay 0.5]
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

from pipeline.core.evaluation.evaluators import OpenAIEvaluator, evaluation_templates
from pipeline.core.evaluation.formats import FORMATS
from pipeline.core.evaluation.harness import evaluate
from pipeline.core.evaluation.sources import load_release
from pipeline.core.llm import LLMSettings
from pipeline.core.llm.templates import TemplateRenderer
from pipeline.core.taxonomy import default_taxonomy
from tests.chat_server import ChatServerProcess, Received

ANSWER = (
    "unsafe\nRisk Source: Indirect Prompt Injection\nFailure Mode: Unconfirmed or Over-privileged"
    " Action\nReal World Harm: Financial and Economic Harm"
)


def fine_answer(_received: Received) -> str:
    return ANSWER


async def bare_loop(url: str, prompts: list[list[Any]], concurrency: int) -> float:
    client = openai.AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0, timeout=60)
    semaphore = asyncio.Semaphore(concurrency)

    async def one(messages: list[Any]) -> str:
        async with semaphore:
            response = await client.chat.completions.create(model="guard", messages=messages)
        return response.choices[0].message.content or ""

    started = time.perf_counter()
    answers = await asyncio.gather(*(one(m) for m in prompts))
    wall = time.perf_counter() - started
    await client.close()
    assert all(a == ANSWER for a in answers)
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.5)
    args = parser.parse_args()
    taxonomy = default_taxonomy()
    source = load_release(args.release)
    with (
        tempfile.TemporaryDirectory() as tmp,
        ChatServerProcess(fine_answer, delay_s=args.delay) as server,
    ):
        work = Path(tmp)
        settings = LLMSettings(
            backend="openai", base_url=server.url, model="guard", max_concurrency=args.concurrency
        )

        def evaluator(name: str) -> OpenAIEvaluator:
            return OpenAIEvaluator(
                settings=settings,
                format=FORMATS["atbench"],
                task="fine_grained",
                taxonomy=taxonomy,
                cache_dir=work / "cache",
                ledger_dir=work / name / "ledger",
            )

        renderer = TemplateRenderer(evaluation_templates())
        prompts: list[list[Any]] = [
            renderer.render(r.template, r.variables)
            for r in map(evaluator("bare").request, source.trajectories)
        ]
        bare = asyncio.run(bare_loop(server.url, prompts, args.concurrency))
        before = server.chat_requests()
        started = time.perf_counter()
        cold, _ = evaluate(source, evaluator("cold"), work / "cold", taxonomy=taxonomy)
        cold_total = time.perf_counter() - started
        cold_calls = server.chat_requests() - before
        started = time.perf_counter()
        warm, _ = evaluate(source, evaluator("warm"), work / "warm", taxonomy=taxonomy)
        warm_total = time.perf_counter() - started
        warm_calls = server.chat_requests() - before - cold_calls
    ideal = len(prompts) / args.concurrency * args.delay
    print(
        json.dumps(
            {
                "trajectories": len(prompts),
                "concurrency": args.concurrency,
                "server_delay_s": args.delay,
                "ideal_s": round(ideal, 2),
                "bare_loop_s": round(bare, 2),
                "eval_predict_s": cold.wall_s,
                "eval_total_s": round(cold_total, 2),
                "predict_vs_bare": round(cold.wall_s / bare, 3),
                "total_vs_bare": round(cold_total / bare, 3),
                "cold_server_calls": cold_calls,
                "rerun_total_s": round(warm_total, 2),
                "rerun_server_calls": warm_calls,
                "rerun_cache_hits": warm.llm["cache_hits"],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
