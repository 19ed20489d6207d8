"""`atbench eval`: run a guard over a release or an external dataset; `eval compare` tables
several runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.text import Text

from pipeline.cli.console import plain_console, styled
from pipeline.cli.progress import StageProgress
from pipeline.core.evaluation.compare import compare_runs
from pipeline.core.evaluation.evaluators import (
    EVALUATORS,
    Evaluator,
    KeywordEvaluator,
    OpenAIEvaluator,
)
from pipeline.core.evaluation.formats import FORMATS, TASKS
from pipeline.core.evaluation.harness import evaluate
from pipeline.core.evaluation.metrics import COARSE
from pipeline.core.evaluation.reporting import percent
from pipeline.core.evaluation.runs import RunRecord
from pipeline.core.evaluation.sft_files import read_sft_trajectories
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.inputs.taxonomy import Taxonomy, default_taxonomy
from pipeline.core.llm import LLMSettings
from pipeline.core.llm.preflight import preflight
from pipeline.core.model.errors import AtbenchError, InputError
from pipeline.core.release.sources import (
    check_release,
    load_dataset,
    load_release,
    parse_dataset,
)

app = typer.Typer(
    help="Evaluate a guard on a release or an external dataset (the paper's metrics).",
    no_args_is_help=False,
)


def _choice(option: str, value: str, accepted: tuple[str, ...]) -> None:
    if value not in accepted:
        raise InputError(f"{option} must be one of {', '.join(accepted)}; got {value!r}")


def _evaluator(
    name: str,
    prompt_format: str,
    task: str,
    train: Path | None,
    settings: LLMSettings | None,
    out: Path,
    cache_dir: Path,
    taxonomy: Taxonomy,
) -> Evaluator:
    if name == "openai":
        fmt = FORMATS[prompt_format]
        if task not in fmt.templates:
            raise InputError(
                f"--task {task} is not offered by --prompt-format {prompt_format}; it offers "
                f"{', '.join(fmt.templates)}"
            )
        assert settings is not None
        return OpenAIEvaluator(
            settings=settings,
            format=fmt,
            task=task,
            taxonomy=taxonomy,
            cache_dir=cache_dir,
            ledger_dir=out / "ledger",
        )
    if prompt_format != "atbench":
        raise InputError(f"--prompt-format applies to the openai evaluator only, not {name}")
    if name == "keyword":
        return KeywordEvaluator()
    if train is None:
        raise InputError("--evaluator bow needs --train SFT_DIR (made by `atbench sft`)")
    read_sft_trajectories(train, "validation")  # an SFT folder? (errors before training)
    try:
        from pipeline.core.evaluation.bow import BowEvaluator
    except ImportError:
        raise AtbenchError(
            "the bow evaluator needs scikit-learn: pip install -e '.[eval]'"
        ) from None
    return BowEvaluator(train_dir=train, taxonomy=taxonomy).fit()


@app.callback(invoke_without_command=True)
def run(
    ctx: typer.Context,
    release: Annotated[Path | None, typer.Option(help="Release folder to evaluate.")] = None,
    dataset: Annotated[
        str | None,
        typer.Option(help="External data as FORMAT:PATH, FORMAT atbench or rjudge."),
    ] = None,
    evaluator: Annotated[str, typer.Option(help="openai | keyword | bow.")] = "openai",
    prompt_format: Annotated[
        str,
        typer.Option(help="openai only: atbench | llamaguard | qwen3guard."),
    ] = "atbench",
    task: Annotated[
        str,
        typer.Option(help="binary | fine_grained (fine_grained needs the atbench format)."),
    ] = "binary",
    train: Annotated[Path | None, typer.Option(help="SFT folder the bow guard trains on.")] = None,
    out: Annotated[Path | None, typer.Option(help="Run folder to write.")] = None,
    model: Annotated[str, typer.Option(help="Model name; else ATBENCH_MODEL.")] = "",
    base_url: Annotated[str, typer.Option(help="OpenAI-compatible endpoint.")] = "",
    concurrency: Annotated[int, typer.Option(help="LLM requests in flight.")] = 32,
    timeout: Annotated[float, typer.Option(help="Seconds per request (0: default).")] = 0,
    max_tokens: Annotated[int, typer.Option(help="Answer cap (0: default).")] = 0,
    cache_dir: Annotated[
        Path | None, typer.Option(help="Response cache; default outputs/cache.")
    ] = None,
) -> None:
    """Evaluate one guard on one release (--release) or external file (--dataset)."""
    if ctx.invoked_subcommand is not None:
        return
    _choice("--evaluator", evaluator, EVALUATORS)
    _choice("--prompt-format", prompt_format, tuple(FORMATS))
    _choice("--task", task, TASKS)
    if (release is None) == (dataset is None):
        raise InputError("give exactly one of --release DIR and --dataset FORMAT:PATH")
    if out is None:
        raise InputError("--out DIR is required: the folder the run is written to")
    if release is not None:
        check_release(release)
    parsed = parse_dataset(dataset) if dataset is not None else None
    settings = None
    if evaluator == "openai":
        settings = LLMSettings.from_env(
            backend="openai",
            model=model or None,
            base_url=base_url or None,
            max_concurrency=concurrency,
            timeout_s=timeout or None,
            max_tokens=max_tokens or None,
        )
    taxonomy = default_taxonomy()
    guard = _evaluator(
        evaluator,
        prompt_format,
        task,
        train,
        settings,
        out,
        cache_dir or outputs_dir() / "cache",
        taxonomy,
    )
    if settings is not None:  # the guard answers in text: probe for text, not JSON
        found = asyncio.run(preflight(settings, structured=False))
        plain_console(stderr=True).print(f"preflight: {found.describe()}", highlight=False)
    if release is not None:
        source = load_release(release)
    else:
        assert parsed is not None
        source = load_dataset(*parsed, taxonomy)
    with StageProgress():
        record, metrics = evaluate(source, guard, out.resolve(), taxonomy=taxonomy)
    plain_console().print(summary_line(record, metrics, out.resolve()), soft_wrap=True)


def summary_line(record: RunRecord, metrics: dict[str, Any], out: Path) -> Text:
    coarse = metrics["coarse"]
    figures = ", ".join(f"{name} {percent(coarse[name])}" for name in COARSE)
    fine = ", ".join(
        f"{axis} {percent(row['accuracy'])}" for axis, row in metrics["fine"]["axes"].items()
    )
    llm = record.llm
    return styled(
        "run",
        "bold green",
        f" at {out}: {record.n} trajectories; {figures}"
        + (f"; fine-grained {fine}" if fine else "")
        + (f"; {llm['calls']} LLM calls, {llm['cache_hits']} from the cache" if llm else ""),
    )


@app.command("compare")
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Run folders made by `atbench eval`.")],
    out: Annotated[Path, typer.Option(help="Folder for comparison.md, .json and .png.")] = Path(
        "outputs/eval-compare"
    ),
) -> None:
    """One table and one plot across runs (evaluators x datasets)."""
    table = compare_runs(runs, out.resolve())
    plain_console().print(table, soft_wrap=True)
