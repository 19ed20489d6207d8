"""An `openai` evaluation of a release next to a bare AsyncOpenAI loop making the same calls.

The local Chat Completions server of `tests/support/chat_server.py` runs in its own process
and answers every request after `--delay` seconds with a fine-grained verdict. (a) a bare
asyncio.gather + semaphore loop over AsyncOpenAI sends the very prompts the evaluator renders;
(b) `evaluate` with an empty cache: render, LLM layer (cache, ledger, retries), parse, metrics
and the run directory; (a) and (b) alternate for `--rounds` rounds, since a shared machine's
load drifts; (c) the last run again, which must make zero server calls.

Run from the repository root (a release of about 1,000 trajectories first):
    .venv/bin/python -m benchmarks.eval_openai outputs/release [--concurrency 64] [--delay 0.5]
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

import openai

from pipeline.core.evaluation.evaluators import OpenAIEvaluator, evaluation_templates
from pipeline.core.evaluation.formats import FORMATS
from pipeline.core.evaluation.harness import evaluate
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.llm import LLMSettings
from pipeline.core.llm.templates import TemplateRenderer
from pipeline.core.release.sources import load_release
from tests.support.chat_server import ChatServerProcess, Received

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
    parser.add_argument("--rounds", type=int, default=3, help="bare/eval pairs, alternated")
    args = parser.parse_args()
    taxonomy = default_taxonomy()
    source = load_release(args.release)
    figures: dict[str, list[float]] = {"bare_s": [], "predict_s": [], "total_s": []}
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
                cache_dir=work / name / "cache",
                ledger_dir=work / name / "ledger",
            )

        renderer = TemplateRenderer(evaluation_templates())
        prompts: list[list[Any]] = [
            renderer.render(r.template, r.variables)
            for r in map(evaluator("bare").request, source.trajectories)
        ]
        for round_ in range(args.rounds):
            figures["bare_s"].append(asyncio.run(bare_loop(server.url, prompts, args.concurrency)))
            before = server.chat_requests()
            started = time.perf_counter()
            cold, _ = evaluate(
                source, evaluator(f"cold{round_}"), work / f"cold{round_}", taxonomy=taxonomy
            )
            figures["total_s"].append(time.perf_counter() - started)
            figures["predict_s"].append(cold.wall_s)
            assert server.chat_requests() - before == len(prompts)
        before = server.chat_requests()
        started = time.perf_counter()
        # the same cache and ledger folder as the last cold run: a rerun of it
        name = f"cold{args.rounds - 1}"
        warm, _ = evaluate(source, evaluator(name), work / name, taxonomy=taxonomy)
        warm_total = time.perf_counter() - started
        warm_calls = server.chat_requests() - before
    ratios = [p / b for p, b in zip(figures["predict_s"], figures["bare_s"], strict=True)]
    totals = [t / b for t, b in zip(figures["total_s"], figures["bare_s"], strict=True)]
    print(
        json.dumps(
            {
                "trajectories": len(prompts),
                "concurrency": args.concurrency,
                "server_delay_s": args.delay,
                "ideal_s": round(len(prompts) / args.concurrency * args.delay, 2),
                **{key: [round(v, 2) for v in values] for key, values in figures.items()},
                "predict_vs_bare": [round(r, 3) for r in ratios],
                "predict_vs_bare_median": round(statistics.median(ratios), 3),
                "total_vs_bare": [round(r, 3) for r in totals],
                "rerun_total_s": round(warm_total, 2),
                "rerun_server_calls": warm_calls,
                "rerun_cache_hits": warm.llm["cache_hits"],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
