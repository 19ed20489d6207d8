"""One evaluation run on disk: what was evaluated how, every prediction, every figure.

run.json            the `RunRecord`: evaluator, format, task, dataset, LLM totals, timing
predictions.jsonl   one `Prediction` per trajectory, raw answer included
metrics.json        `compute_metrics` output
results.duckdb      tables `runs` (one row) and `predictions`, for SQL across runs
report.md           the figures as tables, with plots/metrics.png
ledger/             the LLM layer's call ledger (openai evaluator)
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from matplotlib.figure import Figure
from pydantic import BaseModel, ConfigDict

from pipeline.core.evaluation.formats import AXIS_TITLES
from pipeline.core.evaluation.metrics import COARSE, SUBSETS
from pipeline.core.evaluation.records import Prediction
from pipeline.core.evaluation.reporting import (
    NEUTRAL_COLOUR,
    UNSAFE_COLOUR,
    save_figure,
    write_markdown,
)
from pipeline.core.inputs.files import atomic_path, write_json_atomic, write_jsonl_atomic
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES

RUN_FILE = "run.json"
METRICS_FILE = "metrics.json"
PREDICTIONS_FILE = "predictions.jsonl"
RESULTS_DB = "results.duckdb"
REPORT_FILE = "report.md"
PLOT_FILE = "plots/metrics.png"

_PREDICTION_SCHEMA = pa.schema(
    [
        ("id", pa.string()),
        ("domain", pa.string()),
        ("tags", pa.list_(pa.string())),
        ("gold_verdict", pa.string()),
        *((f"gold_{axis}", pa.string()) for axis in AXES),
        ("status", pa.string()),
        ("verdict", pa.string()),
        *((axis, pa.string()) for axis in AXES),
        ("raw", pa.string()),
        ("problems", pa.list_(pa.string())),
    ]
)
_RUNS_TABLE = """
CREATE TABLE runs (
    evaluator VARCHAR, prompt_format VARCHAR, task VARCHAR, dataset VARCHAR,
    dataset_kind VARCHAR, n INTEGER, accuracy DOUBLE, precision DOUBLE, recall DOUBLE,
    f1 DOUBLE, calls INTEGER, cache_hits INTEGER, wall_s DOUBLE, record JSON, metrics JSON
)"""


class RunRecord(BaseModel):
    """What identifies a run; `eval compare` reads it back."""

    model_config = ConfigDict(extra="forbid")

    evaluator: str
    evaluator_config: dict[str, Any]
    prompt_format: str
    format_maps_onto: str
    """What the format's answer can say, e.g. verdict only."""
    task: str
    axes: list[str]
    dataset: str
    dataset_kind: str
    dataset_path: str
    dataset_details: dict[str, Any]
    n: int
    started_at: str
    wall_s: float
    llm: dict[str, Any]
    """Ledger totals of this run (calls, cache hits, tokens, failures); empty without an LLM."""
    code_version: str


def write_run(
    out_dir: Path,
    record: RunRecord,
    predictions: Sequence[Prediction],
    metrics: dict[str, Any],
    taxonomy: Taxonomy,
) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json_atomic(out_dir / RUN_FILE, record.model_dump(mode="json"))
    write_json_atomic(out_dir / METRICS_FILE, metrics)
    write_jsonl_atomic(out_dir / PREDICTIONS_FILE, predictions)
    _write_db(out_dir / RESULTS_DB, record, predictions, metrics)
    _plot(out_dir / PLOT_FILE, record, metrics)
    write_markdown(
        out_dir / REPORT_FILE,
        "eval_report.md.j2",
        run=record,
        m=metrics,
        coarse_names=COARSE,
        subsets=SUBSETS,
        titles=AXIS_TITLES,
        all_axes=AXES,
        taxonomy=taxonomy,
        plot=PLOT_FILE,
    )


def read_run(run_dir: Path) -> tuple[RunRecord, dict[str, Any]]:
    """A run's record and metrics; a folder that is not a run is named as such."""
    if not (run_dir / RUN_FILE).is_file() or not (run_dir / METRICS_FILE).is_file():
        raise InputError(
            f"not an evaluation run (made by `atbench eval`): expected {RUN_FILE} and "
            f"{METRICS_FILE}",
            file=run_dir,
        )
    record = RunRecord.model_validate_json((run_dir / RUN_FILE).read_text(encoding="utf-8"))
    return record, json.loads((run_dir / METRICS_FILE).read_text(encoding="utf-8"))


def _write_db(
    path: Path, record: RunRecord, predictions: Sequence[Prediction], metrics: dict[str, Any]
) -> None:
    coarse = metrics["coarse"]
    with atomic_path(path) as tmp:
        tmp.unlink()  # DuckDB creates its own file; it refuses an empty one
        with duckdb.connect(str(tmp)) as con:
            _fill_db(con, record, predictions, coarse, metrics)


def _fill_db(
    con: duckdb.DuckDBPyConnection,
    record: RunRecord,
    predictions: Sequence[Prediction],
    coarse: dict[str, Any],
    metrics: dict[str, Any],
) -> None:
    rows = pa.Table.from_pylist(
        [
            {
                "id": p.id,
                "domain": p.domain,
                "tags": list(p.tags),
                "gold_verdict": p.gold_verdict,
                **{f"gold_{axis}": (p.gold_labels or {}).get(axis) for axis in AXES},
                "status": p.status,
                "verdict": p.verdict,
                **{axis: p.labels.get(axis) for axis in AXES},
                "raw": p.raw,
                "problems": list(p.problems),
            }
            for p in predictions
        ],
        schema=_PREDICTION_SCHEMA,
    )
    con.register("prediction_rows", rows)
    con.execute("CREATE TABLE predictions AS SELECT * FROM prediction_rows")
    con.unregister("prediction_rows")
    con.execute(_RUNS_TABLE)
    con.execute(
        "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            record.evaluator,
            record.prompt_format,
            record.task,
            record.dataset,
            record.dataset_kind,
            record.n,
            *(coarse[name] for name in COARSE),
            record.llm.get("calls", 0),
            record.llm.get("cache_hits", 0),
            record.wall_s,
            record.model_dump_json(),
            json.dumps(metrics),
        ],
    )


def _plot(path: Path, record: RunRecord, metrics: dict[str, Any]) -> None:
    """Coarse figures with their intervals; fine-grained accuracy per axis against chance."""
    fig = Figure(figsize=(10, 4), layout="constrained")
    left, right = fig.subplots(1, 2)
    coarse = metrics["coarse"]
    values = [100 * (coarse[name] or 0) for name in COARSE]
    errors = [
        [100 * ((coarse[name] or 0) - ci[0]) if ci else 0 for name, ci in _cis(coarse)],
        [100 * (ci[1] - (coarse[name] or 0)) if ci else 0 for name, ci in _cis(coarse)],
    ]
    left.bar(COARSE, values, yerr=errors, capsize=4, color=NEUTRAL_COLOUR)
    left.set_ylim(0, 100)
    left.set_ylabel("%")
    left.set_title(f"Binary (unsafe positive), n={coarse['n']}")
    axes = metrics["fine"]["axes"]
    if axes:
        names = [AXIS_TITLES[axis] for axis in axes]
        right.bar(names, [100 * (a["accuracy"] or 0) for a in axes.values()], color=UNSAFE_COLOUR)
        right.scatter(names, [100 * a["random"] for a in axes.values()], color="black", zorder=3)
        right.set_title(f"Fine-grained exact match, n={metrics['fine']['n']} (dots: random)")
        right.set_ylim(0, 100)
    else:
        right.text(0.5, 0.5, "this run predicts no taxonomy axis", ha="center", va="center")
        right.set_axis_off()
    fig.suptitle(f"{record.evaluator} ({record.prompt_format}, {record.task}) on {record.dataset}")
    save_figure(fig, path)


def _cis(coarse: dict[str, Any]) -> list[tuple[str, list[float] | None]]:
    return [(name, coarse["ci"][name]) for name in COARSE]
