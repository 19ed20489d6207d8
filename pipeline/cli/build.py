"""`atbench build`: materialise a whole release through Dagster, with progress."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from pipeline.core.inputs.loading import load_inputs
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.spec import ReleaseSpec

if TYPE_CHECKING:
    import dagster as dg

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


def release_domains(settings: Mapping[str, Any]) -> list[str]:
    """The release's domain list (`settings["domains"]`, default every seed), checked."""
    order = domain_ids()
    selected = [d for d in str(settings.get("domains", "")).split(",") if d] or order
    unknown = sorted(set(selected) - set(order))
    if unknown:
        raise AtbenchError(f"unknown domains {unknown}; seeds define: {', '.join(order)}")
    return selected


def settings_for_spec(spec: ReleaseSpec) -> dict[str, Any]:
    """Build settings whose spec is exactly `spec` (e.g. a published release's)."""
    return {
        "size": spec.size,
        "seed": spec.seed,
        "unsafe_share": spec.unsafe_share,
        "long_context_share": spec.long_context_share,
        "long_html_share": spec.long_html_share,
        "domains": ",".join(spec.domains),
        "backend": spec.backend,
        "model": spec.model,
    }


def run_stages(
    settings: Mapping[str, Any],
    partitions: Sequence[str] | None = None,
    *,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
) -> None:
    """Materialise every construction stage for `partitions` (default: every release domain)."""
    with _progress(console) as progress:
        _materialise_stages(settings, partitions, progress, instance or _cli_instance())


def run_build(
    settings: Mapping[str, Any],
    out: Path,
    *,
    partitions: Sequence[str] | None = None,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
) -> dict[str, Any]:
    """Materialise the stages for `partitions`, then the gated release from the work folder.

    `settings["domains"]` is the release's domain list and fixes the spec (and so the work
    folder); `partitions` only says which of them to rebuild first. The release consolidates
    every domain of the spec, so the other domains' stage files must already be there.
    """
    import dagster as dg

    from pipeline.definitions import defs

    instance = instance or _cli_instance()
    with _progress(console) as progress:
        run_config, task = _materialise_stages(
            settings, partitions, progress, instance, extra_steps=1
        )
        progress.update(task, description="release")
        publish = defs.resolve_job_def("publish")
        result = publish.execute_in_process(
            instance=instance,
            run_config={**run_config, "ops": {"release": {"config": {"out": str(out)}}}},
            raise_on_error=False,
        )
        # A failed gate fails the run too: name the gate before the generic run failure.
        for check in result.get_asset_check_evaluations():
            if not check.passed:
                raise AtbenchError(
                    f"release gate {check.check_name!r} failed: {check.description}; "
                    "the previous release (if any) is untouched"
                )
        _raise_on_failure(result, "release")
        progress.advance(task)
    materialization = next(
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.asset_key == dg.AssetKey("release")
    )
    return {key: value.value for key, value in materialization.metadata.items()}


def _cli_instance() -> dg.DagsterInstance:
    import dagster as dg

    dagster_home()
    return dg.DagsterInstance.get()


def _progress(console: Console | None) -> Progress:
    return Progress(
        TextColumn("{task.description:<12}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} stages"),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
    )


def _materialise_stages(
    settings: Mapping[str, Any],
    partitions: Sequence[str] | None,
    progress: Progress,
    instance: dg.DagsterInstance,
    *,
    extra_steps: int = 0,
) -> tuple[dict[str, Any], TaskID]:
    """Run each stage over contiguous ranges of `partitions`.

    Returns the run config (settings with the domain list pinned) and the progress task, which
    counts `extra_steps` more for the caller.
    """
    import dagster as dg
    from dagster._core.storage.tags import (
        ASSET_PARTITION_RANGE_END_TAG,
        ASSET_PARTITION_RANGE_START_TAG,
    )

    from pipeline.definitions import defs

    order = domain_ids()
    domains = release_domains(settings)
    selected = list(partitions) if partitions is not None else domains
    outside = sorted(set(selected) - set(domains))
    if outside:
        raise AtbenchError(
            f"domains {outside} are not part of this release; it has: {', '.join(domains)}"
        )
    # Pin the domain list so every stage of this build sees the same spec (and work folder).
    run_config: dict[str, Any] = {
        "resources": {"settings": {"config": {**settings, "domains": ",".join(domains)}}},
        # The progress bar speaks on the terminal; step logs stay in the run's event log (UI).
        "loggers": {"console": {"config": {"log_level": "WARNING"}}},
    }
    job = defs.resolve_job_def("construct_domains")
    ranges = contiguous_ranges(selected, order)
    task = progress.add_task("constructing", total=len(_STAGES) * len(ranges) + extra_steps)
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
    return run_config, task


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
    concurrency: Annotated[
        int, typer.Option(help="LLM requests in flight at once, shared by all domains of a step.")
    ] = 32,
    timeout: Annotated[
        float,
        typer.Option(help="Seconds per LLM request (0: ATBENCH_TIMEOUT_S, else 60)."),
    ] = 0,
    max_tokens: Annotated[
        int,
        typer.Option(help="Answer length cap (0: ATBENCH_MAX_TOKENS, else the server's)."),
    ] = 0,
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
        "timeout_s": timeout,
        "max_tokens": max_tokens,
    }
    console = Console()
    summary = run_build(settings, out.resolve(), console=console)
    console.print(
        f"[bold green]release v{summary['version']}[/] at {summary['path']}: "
        f"{summary['total']} trajectories ({summary['unsafe']} unsafe, {summary['safe']} safe), "
        f"{summary['rejected']} rejected",
        soft_wrap=True,  # one line, so scripts can read it from a pipe
    )
