"""`atbench eval compare`: several runs (evaluators x datasets) in one table and one plot,
like the paper's cross-benchmark figure (F1 per evaluator, one bar per dataset)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from pipeline.core.evaluation.metrics import COARSE
from pipeline.core.evaluation.reporting import interval, percent, save_figure
from pipeline.core.evaluation.runs import RunRecord, read_run
from pipeline.core.inputs.files import write_json_atomic, write_text_atomic
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES

TABLE_FILE = "comparison.md"
JSON_FILE = "comparison.json"
PLOT_FILE = "comparison.png"


def evaluator_label(record: RunRecord) -> str:
    """Evaluator, model (if any) and format/task: what distinguishes two runs' guards."""
    model = record.evaluator_config.get("model")
    parts = [record.evaluator, *([str(model)] if model else [])]
    return f"{' '.join(parts)} ({record.prompt_format}/{record.task})"


def comparison_rows(run_dirs: Sequence[Path]) -> list[dict[str, Any]]:
    if not run_dirs:
        raise InputError("eval compare needs at least one RUN_DIR")
    rows = []
    for run_dir in run_dirs:
        record, metrics = read_run(run_dir)
        coarse = metrics["coarse"]
        fine = metrics["fine"]["axes"]
        row: dict[str, Any] = {
            "run": str(run_dir),
            "evaluator": evaluator_label(record),
            "dataset": record.dataset,
            "n": record.n,
            **{name: coarse[name] for name in COARSE},
            "f1_ci": coarse["ci"]["f1"],
        }
        for axis in AXES:
            row[axis] = fine[axis]["accuracy"] if axis in fine else None
        rows.append(row)
    return rows


def render_table(rows: Sequence[dict[str, Any]]) -> str:
    head = (
        "| evaluator | dataset | n | accuracy | precision | recall | F1 | F1 95 % | RS | FM | RH |"
    )
    lines = [head, "|" + " --- |" * 11]
    for row in rows:
        cells = [
            row["evaluator"],
            row["dataset"],
            str(row["n"]),
            *(percent(row[name]) for name in COARSE),
            interval(row["f1_ci"]),
            *(percent(row[axis]) for axis in AXES),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def compare_runs(run_dirs: Sequence[Path], out_dir: Path) -> str:
    """Write the table (Markdown and JSON) and the plot; returns the Markdown table."""
    rows = comparison_rows(run_dirs)
    table = render_table(rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_text_atomic(out_dir / TABLE_FILE, "# Evaluation runs compared\n\n" + table)
    write_json_atomic(out_dir / JSON_FILE, rows)
    _plot(rows, out_dir / PLOT_FILE)
    return table


def _plot(rows: Sequence[dict[str, Any]], path: Path) -> None:
    evaluators = list(dict.fromkeys(row["evaluator"] for row in rows))
    datasets = list(dict.fromkeys(row["dataset"] for row in rows))
    f1 = {(row["evaluator"], row["dataset"]): row["f1"] for row in rows}
    width = 0.8 / len(datasets)
    fig = Figure(figsize=(max(6.0, 1.8 * len(evaluators) + 2), 4.5), layout="constrained")
    ax = fig.add_subplot()
    for d, dataset in enumerate(datasets):
        xs = [e + (d - (len(datasets) - 1) / 2) * width for e in range(len(evaluators))]
        values = [100 * (f1.get((name, dataset)) or 0) for name in evaluators]
        ax.bar(xs, values, width=width, label=dataset)
    ax.set_xticks(range(len(evaluators)), evaluators, rotation=15, ha="right")
    ax.set_ylim(0, 100)
    ax.set_ylabel("F1 (unsafe positive), %")
    ax.set_title("Binary F1 per evaluator and dataset")
    ax.legend()
    save_figure(fig, path)
