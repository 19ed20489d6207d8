"""Precision and recall of every rule and of the plausibility judge on the corpus of known
verdicts (`tests/support/filter_corpus`), and, given a release folder, the share of each
domain's planned traces each filter rejected.

    .venv/bin/python -m benchmarks.filter_precision                    # procedural judge
    .venv/bin/python -m benchmarks.filter_precision --chat-server      # + openai judge over HTTP
    .venv/bin/python -m benchmarks.filter_precision --base-url URL --model NAME
    .venv/bin/python -m benchmarks.filter_precision --release outputs/release
    .venv/bin/python -m benchmarks.filter_precision --write            # the card's figures

`--base-url` adds the openai judge, asking a model behind an OpenAI-compatible server (the
rules do not change with the backend). `--chat-server` points it at
`tests/support/chat_server.py` answering through `tests/support/chat_judge.py`: the procedural
judge on the input read back from the rendered prompt, which measures the prompt and the HTTP
path rather than a model. `--write` stores the figures in `benchmarks/filter_precision.json`,
where the dataset card reads them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import duckdb

from pipeline.core.evaluation.filter_precision import (
    KnownTrace,
    precision_table,
    rejecting_checks,
)
from pipeline.core.filtering.judge import CHECK as JUDGE
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.inputs.paths import project_root, templates_dir
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.llm import LLMSettings, make_client
from pipeline.core.procedural import HANDLERS
from pipeline.core.release.card import FILTER_PRECISION, filter_shares
from tests.support.chat_judge import judge_answer
from tests.support.chat_server import ChatServerProcess
from tests.support.filter_corpus import clean_pairs, defective_traces


def corpus(pool: ToolPool) -> list[KnownTrace]:
    cases = []
    for safe, unsafe in clean_pairs(pool).values():
        cases += [KnownTrace(safe.id, safe, unsafe), KnownTrace(unsafe.id, unsafe, safe)]
    cases += [KnownTrace(d.name, d.trace, d.twin, d.target) for d in defective_traces(pool)]
    return cases


def measure(cases: list[KnownTrace], pool: ToolPool, settings: LLMSettings) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        client = make_client(
            settings,
            cache_dir=Path(tmp) / "cache",
            namespace="filter_precision",
            ledger_path=Path(tmp) / "ledger",
            templates_dir=templates_dir(),
            handlers=HANDLERS,
        )
        return precision_table(cases, asyncio.run(rejecting_checks(cases, pool, client)))


def markdown(table: dict[str, Any]) -> str:
    lines = [
        "| check | clean rejected | FP rate | defects aimed | caught | catch rate |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in table["checks"]:
        rate = "—" if row["catch_rate"] is None else f"{100 * row['catch_rate']:.0f} %"
        lines.append(
            f"| `{row['check']}` | {row['false_positives']} / {row['clean']} | "
            f"{100 * row['false_positive_rate']:.0f} % | {row['defects']} | {row['caught']} | "
            f"{rate} |"
        )
    lines.append(
        f"\nclean kept by every check: {table['clean_kept']} / {table['clean']}; defects caught "
        f"by some check: {table['caught_by_any']} / {table['defects']}; missed: "
        f"{', '.join(table['missed']) or 'none'}"
    )
    return "\n".join(lines)


def release_shares(release: Path) -> str:
    with duckdb.connect(str(release / "release.duckdb"), read_only=True) as con:
        rows = filter_shares(con)
    lines = ["| domain | stage | filter | rejected | planned | share |", "| --- " * 6 + "|"]
    lines += [
        f"| `{r['domain']}` | {r['stage']} | `{r['check_name']}` | {r['n']} | {r['planned']} | "
        f"{100 * r['share']:.1f} % |"
        for r in rows
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chat-server", action="store_true", help="openai judge, local server")
    parser.add_argument("--base-url", help="an OpenAI-compatible server for the openai judge")
    parser.add_argument("--model", default="local", help="model name at --base-url")
    parser.add_argument("--release", type=Path, help="a release folder: per-domain shares")
    parser.add_argument("--write", action="store_true", help=f"write {FILTER_PRECISION}")
    args = parser.parse_args()
    pool = load_inputs().pool
    cases = corpus(pool)
    procedural = measure(cases, pool, LLMSettings())
    print("## procedural judge\n\n" + markdown(procedural))
    judges = []
    with ExitStack() as stack:
        base_url, model = args.base_url, args.model
        if args.chat_server:
            base_url = stack.enter_context(ChatServerProcess(judge_answer)).url
            model = "chat-server (procedural judge on the read-back prompt)"
        if base_url:
            settings = LLMSettings(backend="openai", base_url=base_url, model=model, api_key="k")
            table = measure(cases, pool, settings)
            row = next(r for r in table["checks"] if r["check"] == JUDGE)
            print(f"\n## openai judge ({model})\n\n" + markdown({**table, "checks": [row]}))
            judges.append({"backend": "openai", "model": model, **row})
    if args.release:
        print("\n## per-domain shares of planned traces\n\n" + release_shares(args.release))
    if args.write:
        figures = {
            "command": " ".join([".venv/bin/python -m benchmarks.filter_precision", *sys.argv[1:]]),
            "corpus": {
                "clean": procedural["clean"],
                "defects": procedural["defects"],
                "domains": sorted({c.trace.domain for c in cases}),
            },
            "procedural": procedural,
            "judges": judges,
        }
        path = project_root() / FILTER_PRECISION
        path.write_text(json.dumps(figures, indent=2) + "\n")
        print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
