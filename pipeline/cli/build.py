"""`atbench build`: materialise a whole release through Dagster, with progress."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pipeline.core.errors import AtbenchError
from pipeline.core.inputs import load_inputs
from pipeline.core.paths import outputs_dir
from pipeline.core.seeds import domain_ids

_STAGES = ("blueprints", "skeletons", "injected", "paired", "filtered")


def dagster_home() -> Path:
    """The CLI keeps its Dagster instance under outputs/ so `dagster dev` shows its runs."""
    home = Path(os.environ.get("DAGSTER_HOME") or outputs_dir() / "dagster")
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").touch()  # an empty config: Dagster's defaults, without its warning
    os.environ["DAGSTER_HOME"] = str(home.resolve())
    return home


def contiguous_ranges(selected: list[str], order: list[str]) -> list[tuple[str, str]]:
    """Group selected partition keys into runs of neighbours in partition order."""
    positions = sorted(order.index(key) for key in selected)
    ranges: list[tuple[str, str]] = []
    for pos in positions:
        if ranges and order.index(ranges[-1][1]) == pos - 1:
            ranges[-1] = (ranges[-1][0], order[pos])
        else:
            ranges.append((order[pos], order[pos]))
    return ranges


def run_build(
    settings: dict[str, Any], out: Path, *, console: Console | None = None
) -> dict[str, Any]:
    """Materialise every stage for the selected domains, then the gated release."""
    import dagster as dg
    from dagster._core.storage.tags import (
        ASSET_PARTITION_RANGE_END_TAG,
        ASSET_PARTITION_RANGE_START_TAG,
    )

    from pipeline.definitions import defs

    console = console or Console(stderr=True)
    dagster_home()
    order = domain_ids()
    selected = [d for d in settings.get("domains", "").split(",") if d] or order
    unknown = sorted(set(selected) - set(order))
    if unknown:
        raise AtbenchError(f"unknown domains {unknown}; seeds define: {', '.join(order)}")
    # Pin the domain list so every stage of this build sees the same spec (and work folder).
    run_config = {
        "resources": {"settings": {"config": {**settings, "domains": ",".join(selected)}}}
    }
    instance = dg.DagsterInstance.get()
    job = defs.resolve_job_def("construct_domains")
    ranges = contiguous_ranges(selected, order)
    with Progress(
        TextColumn("{task.description:<12}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} stages"),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task("constructing", total=len(_STAGES) * len(ranges) + 1)
        for stage in _STAGES:
            for start, end in ranges:
                progress.update(task, description=stage)
                result = job.execute_in_process(
                    instance=instance,
                    run_config=run_config,
                    asset_selection=[dg.AssetKey(stage)],
                    tags={
                        ASSET_PARTITION_RANGE_START_TAG: start,
                        ASSET_PARTITION_RANGE_END_TAG: end,
                    },
                    raise_on_error=False,
                )
                _raise_on_failure(result, f"stage {stage} for domains {start}..{end}")
                progress.advance(task)
        progress.update(task, description="release")
        publish = defs.resolve_job_def("publish")
        result = publish.execute_in_process(
            instance=instance,
            run_config={**run_config, "ops": {"release": {"config": {"out": str(out)}}}},
            raise_on_error=False,
        )
        _raise_on_failure(result, "release")
        progress.advance(task)
    for check in result.get_asset_check_evaluations():
        if not check.passed:
            raise AtbenchError(
                f"release gate {check.check_name!r} failed: {check.description}; "
                "the previous release (if any) is untouched"
            )
    materialization = next(
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.asset_key == dg.AssetKey("release")
    )
    return {key: value.value for key, value in materialization.metadata.items()}


def _raise_on_failure(result: Any, what: str) -> None:
    if result.success:
        return
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data.error is not None:
            error = event.step_failure_data.error
            cause = error.cause or error
            message = cause.message.strip().splitlines()[-1]
            raise AtbenchError(f"{what} failed: {message}")
    raise AtbenchError(f"{what} failed; see the run in the Dagster UI")


def build(
    out: Annotated[Path, typer.Option(help="Release directory to create or replace.")] = Path(
        "outputs/release"
    ),
    size: Annotated[int, typer.Option(help="Trajectories to plan (pairs x 2 plus benign).")] = 1000,
    seed: Annotated[int, typer.Option(help="Release seed; fixes every random choice.")] = 0,
    backend: Annotated[
        str, typer.Option(help="Generation backend: procedural (no network) or openai.")
    ] = "procedural",
    domains: Annotated[
        str, typer.Option(help="Comma-separated domains to build; default: every seed.")
    ] = "",
    model: Annotated[
        str, typer.Option(help="Model name (openai backend; else ATBENCH_MODEL).")
    ] = "",
    base_url: Annotated[
        str, typer.Option(help="OpenAI-compatible endpoint; else OPENAI_BASE_URL.")
    ] = "",
    structured_output: Annotated[
        str,
        typer.Option(
            help="json_schema | json_object | ollama | prompt | auto; else "
            "ATBENCH_STRUCTURED_OUTPUT."
        ),
    ] = "",
    concurrency: Annotated[int, typer.Option(help="LLM requests in flight per process.")] = 32,
) -> None:
    """Build a whole release through Dagster and print where it landed."""
    if backend not in ("procedural", "openai"):
        raise AtbenchError(f"--backend must be procedural or openai, got {backend!r}")
    load_inputs()  # fail fast, naming file, record and field, before anything is written
    settings = {
        "size": size,
        "seed": seed,
        "backend": backend,
        "domains": domains,
        "model": model,
        "base_url": base_url,
        "structured_output": structured_output,
        "max_concurrency": concurrency,
    }
    console = Console()
    summary = run_build(settings, out.resolve(), console=console)
    console.print(
        f"[bold green]release v{summary['version']}[/] at {summary['path']}: "
        f"{summary['total']} trajectories ({summary['unsafe']} unsafe, {summary['safe']} safe), "
        f"{summary['rejected']} rejected"
    )
