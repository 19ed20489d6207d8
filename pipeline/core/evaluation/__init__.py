"""Measurements over trajectories: diversity of the generated content, and guard evaluation
(prompt formats and their parsers, evaluators, the paper's metrics, run directories,
comparisons, overlap checks and the SFT folder layout)."""

__all__ = [
    "bow",
    "compare",
    "diversity",
    "evaluators",
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
