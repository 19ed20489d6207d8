"""Guard evaluation and guard-training data: prompt formats and their parsers, evaluators,
the paper's metrics, run directories and comparisons, and SFT sets disjoint from a release."""

from pipeline.core.evaluation.compare import compare_runs
from pipeline.core.evaluation.evaluators import (
    EVALUATORS,
    Evaluator,
    KeywordEvaluator,
    OpenAIEvaluator,
    predict,
)
from pipeline.core.evaluation.formats import FORMATS, TASKS, Parsed, PromptFormat
from pipeline.core.evaluation.harness import evaluate
from pipeline.core.evaluation.metrics import compute_metrics
from pipeline.core.evaluation.records import Prediction
from pipeline.core.evaluation.runs import RunRecord, read_run
from pipeline.core.evaluation.sft import SftReport, build_sft, engine_generate
from pipeline.core.evaluation.sources import EvalSource, load_dataset, load_release

__all__ = [
    "EVALUATORS",
    "FORMATS",
    "TASKS",
    "EvalSource",
    "Evaluator",
    "KeywordEvaluator",
    "OpenAIEvaluator",
    "Parsed",
    "Prediction",
    "PromptFormat",
    "RunRecord",
    "SftReport",
    "build_sft",
    "compare_runs",
    "compute_metrics",
    "engine_generate",
    "evaluate",
    "load_dataset",
    "load_release",
    "predict",
    "read_run",
]
