"""Measurements over trajectories: diversity of the generated content, the precision of every
filter on traces with known verdicts, and guard evaluation
(prompt formats and their parsers, evaluators, the paper's metrics, run directories,
comparisons, overlap checks and the SFT folder layout)."""

__all__ = [
    "bow",
    "compare",
    "diversity",
    "evaluators",
    "filter_precision",
    "formats",
    "harness",
    "metrics",
    "overlap",
    "records",
    "render",
    "reporting",
    "runs",
    "sft_files",
]
