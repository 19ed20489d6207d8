"""`atbench build`: materialise a whole release through Dagster, with progress."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from pipeline.core.build.config import BuildConfig
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.model.errors import AtbenchError

if TYPE_CHECKING:
    import dagster as dg

_PLAN = ("blueprints",)
_CONSTRUCTION = ("skeletons", "injected", "paired", "filtered")
_RELEASE = ("release_candidate", "release")
_RANGE_START = "dagster/asset_partition_range_start"
_RANGE_END = "dagster/asset_partition_range_end"
"""The run tags of a partition range, as Dagster's single-run backfills set them (Dagster
exports no name for them)."""


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
    config: BuildConfig,
    out: Path,
    *,
    partitions: Sequence[str] | None = None,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
) -> dict[str, Any]:
    """Plan, construct `partitions`, and publish to `out` through the gated `release` asset.

    `config.domains` is the release's domain list and fixes the spec (and so the work
    folder); `partitions` only says which of them to rebuild. The release consolidates every
    domain of the spec, so the other domains' stage files must already be there.
    """
    result = _run(config, partitions, release_ops(out), console, instance or _cli_instance())
    return _published(result)


def run_regen(
    config: BuildConfig,
    source: Path,
    domain: str,
    out: Path,
    *,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
) -> dict[str, Any]:
    """Rebuild `domain` of the release at `source` (built with `config`) and publish the new
    version to `out` through the gated `release` asset, in one Dagster run."""
    ops = release_ops(out, regenerate_from=source, domain=domain)
    return _published(_run(config, [domain], ops, console, instance or _cli_instance()))


def release_ops(
    out: Path, *, regenerate_from: Path | None = None, domain: str = ""
) -> dict[str, Any]:
    """Run config of the release assets: where to publish, and what a regeneration rebuilt."""
    ops: dict[str, Any] = {"release": {"config": {"out": str(out)}}}
    if regenerate_from is not None:
        candidate = {"regenerate_from": str(regenerate_from), "domain": domain}
        ops["release_candidate"] = {"config": candidate}
    return ops


def _published(result: dg.ExecuteInProcessResult) -> dict[str, Any]:
    import dagster as dg

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
        TextColumn("{task.description:<24}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} runs"),
        TimeElapsedColumn(),
        console=console or Console(stderr=True),
    )


def _run(
    config: BuildConfig,
    partitions: Sequence[str] | None,
    release: dict[str, Any],
    console: Console | None,
    instance: dg.DagsterInstance,
) -> dg.ExecuteInProcessResult:
    """One Dagster run of the `build` job per contiguous range of `partitions` in partition
    order, so one run for any set of neighbours (every domain, by default).

    The first run also plans the whole release (once, unpartitioned); the last also
    consolidates, runs the blocking gates and publishes, configured by the `release` ops
    config (`release_ops`). Returns the last run.
    """
    import dagster as dg

    from pipeline.definitions import defs

    domains = list(config.spec().domains)
    selected = list(partitions) if partitions is not None else domains
    outside = sorted(set(selected) - set(domains))
    if outside:
        raise AtbenchError(
            f"domains {outside} are not part of this release; it has: {', '.join(domains)}"
        )
    job = defs.resolve_job_def("build")
    ranges = contiguous_ranges(selected, domain_ids())
    with _progress(console) as progress:
        task = progress.add_task("building", total=len(ranges))
        for index, (start, end) in enumerate(ranges):
            publish = index == len(ranges) - 1
            stages = [
                *(_PLAN if index == 0 else ()),
                *_CONSTRUCTION,
                *(_RELEASE if publish else ()),
            ]
            run_config: dict[str, Any] = {
                # The domain list is pinned so every run sees the same spec (and work folder).
                "resources": {"settings": {"config": config.resource_config()}},
                # The progress bar speaks on the terminal; step logs stay in the event log (UI).
                "loggers": {"console": {"config": {"log_level": "WARNING"}}},
            }
            if publish:
                run_config["ops"] = release
            progress.update(task, description=f"domains {start}..{end}")
            result = job.execute_in_process(
                instance=instance,
                run_config=run_config,
                asset_selection=[dg.AssetKey(stage) for stage in stages],
                tags={_RANGE_START: start, _RANGE_END: end},
                raise_on_error=False,
            )
            # A failed gate fails the run too: name the gate before the generic run failure.
            for check in result.get_asset_check_evaluations():
                if not check.passed:
                    raise AtbenchError(
                        f"release gate {check.check_name!r} failed: {check.description}; "
                        "the previous release (if any) is untouched"
                    )
            _raise_on_failure(result, f"the build of domains {start}..{end}")
            progress.advance(task)
    return result


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
    options = {
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
    # An option left at its empty default ("" or 0) defers to ATBENCH_* or the default.
    config = BuildConfig.load(**{key: value for key, value in options.items() if value})
    console = Console()
    summary = run_build(config, out.resolve(), console=console)
    console.print(
        f"[bold green]release v{summary['version']}[/] at {summary['path']}: "
        f"{summary['total']} trajectories ({summary['unsafe']} unsafe, {summary['safe']} safe), "
        f"{summary['rejected']} rejected",
        soft_wrap=True,  # one line, so scripts can read it from a pipe
    )
