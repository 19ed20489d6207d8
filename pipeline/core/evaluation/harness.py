"""`evaluate`: one evaluator over one source, written as a run directory."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pipeline import __version__
from pipeline.core.evaluation.evaluators import Evaluator, predict
from pipeline.core.evaluation.metrics import compute_metrics
from pipeline.core.evaluation.records import EvalSource
from pipeline.core.evaluation.runs import RunRecord, write_run
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.llm import summarise_ledger

_LLM_TOTALS = (
    "calls",
    "cache_hits",
    "ok",
    "failed",
    "attempts",
    "prompt_tokens",
    "completion_tokens",
    "latency_s_p50",
    "cost_usd",
)


def evaluate(
    source: EvalSource, evaluator: Evaluator, out_dir: Path, *, taxonomy: Taxonomy
) -> tuple[RunRecord, dict[str, Any]]:
    """Predict every trajectory, compute the metrics and write the run; `source` is only read."""
    started = datetime.now(UTC)
    clock = time.perf_counter()
    ledger_dir = out_dir / "ledger"
    before = set(ledger_dir.glob("*.jsonl"))
    predictions = asyncio.run(predict(evaluator, source.trajectories, taxonomy))
    wall = time.perf_counter() - clock
    segments = sorted(set(ledger_dir.glob("*.jsonl")) - before)
    ledger = summarise_ledger(segments) if segments else {}
    axes = evaluator.format.axes[evaluator.task]
    record = RunRecord(
        evaluator=evaluator.name,
        evaluator_config=evaluator.config(),
        prompt_format=evaluator.format.name,
        format_maps_onto=evaluator.format.maps_onto,
        task=evaluator.task,
        axes=list(axes),
        dataset=source.name,
        dataset_kind=source.kind,
        dataset_path=str(source.path),
        dataset_details=source.details,
        n=len(predictions),
        started_at=started.isoformat(timespec="seconds"),
        wall_s=round(wall, 3),
        llm={key: ledger[key] for key in _LLM_TOTALS} if ledger else {},
        code_version=__version__,
    )
    metrics = compute_metrics(predictions, axes, taxonomy)
    write_run(out_dir, record, predictions, metrics, taxonomy)
    return record, metrics
