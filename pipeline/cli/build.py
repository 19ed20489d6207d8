"""`atbench build`: materialise a whole release through Dagster, with progress."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from pipeline.cli.progress import StageProgress
from pipeline.core.build.options import check_build_options, parse_domains
from pipeline.core.build.stages import STAGES
from pipeline.core.build.stamps import current_release, current_report, release_digest
from pipeline.core.inputs.files import read_jsonl
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.llm.preflight import preflight
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.rejection import Rejection, summarise_rejections
from pipeline.core.model.spec import ReleaseSpec

if TYPE_CHECKING:
    import dagster as dg

    from pipeline.defs.resources import BuildSettings

_STAGES = ("blueprints", "skeletons", "injected", "paired", "filtered")


def dagster_home() -> Path:
    """The CLI keeps its Dagster instance under outputs/ so `dagster dev` shows its runs.

    A fresh instance gets a config with telemetry off, so no banner reaches the terminal; an
    existing non-empty dagster.yaml is the user's and is left alone.
    """
    home = Path(os.environ.get("DAGSTER_HOME") or outputs_dir() / "dagster")
    home.mkdir(parents=True, exist_ok=True)
    config = home / "dagster.yaml"
    if not config.exists() or not config.read_text(encoding="utf-8").strip():
        config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
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
    return parse_domains(str(settings.get("domains", "")), domain_ids())


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
    console = console or Console(stderr=True)
    with StageProgress(console) as progress:
        _materialise_stages(settings, partitions, progress, console, instance)


def run_build(
    settings: Mapping[str, Any],
    out: Path,
    *,
    partitions: Sequence[str] | None = None,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
    verbose: bool = False,
) -> dict[str, Any]:
    """Materialise the stages for `partitions`, then the gated release from the work folder.

    `settings["domains"]` is the release's domain list and fixes the spec (and so the work
    folder); `partitions` only says which of them to rebuild first. The release consolidates
    every domain of the spec, so the other domains' stage files must already be there. A stage
    whose files are current is not run, and a release already published from the same work
    is not written again (`unchanged` in the summary).
    """
    import dagster as dg

    from pipeline.definitions import defs

    console = console or Console(stderr=True)
    with StageProgress(console) as progress:
        run_config, resource = _materialise_stages(
            settings, partitions, progress, console, instance, verbose=verbose
        )
        ws = resource.workspace()
        digest = release_digest(resource.spec(), resource.llm(), ws)
        published = current_release(out, digest)
        if published is not None:
            progress.start("release", up_to_date=True)
            return {"version": published["version"], "path": str(out), "unchanged": True}
        progress.start("release")
        progress.planned(1)
        result = defs.resolve_job_def("publish").execute_in_process(
            instance=instance or _cli_instance(),
            run_config={**run_config, "ops": {"release": {"config": {"out": str(out)}}}},
            raise_on_error=False,
        )
        # A failed gate fails the run too: name the gate, and what emptied the candidate.
        for check in result.get_asset_check_evaluations():
            if not check.passed:
                rejected = read_jsonl(ws.root / "candidate" / "rejections.jsonl", Rejection)
                raise AtbenchError(
                    f"release gate {check.check_name!r} failed: {check.description}. "
                    f"{summarise_rejections(rejected)}. The previous release (if any) is "
                    f"untouched; every rejection is in {ws.root / 'candidate'}"
                )
        _raise_on_failure(result, "release")
        progress.item_done(rejected=False)
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


_STAGE_FILES = dict(zip(_STAGES, STAGES, strict=True))
"""Asset name -> the stage's file folder (the plan's asset is `blueprints`)."""


def _materialise_stages(
    settings: Mapping[str, Any],
    partitions: Sequence[str] | None,
    progress: StageProgress,
    console: Console,
    instance: dg.DagsterInstance | None,
    *,
    verbose: bool = False,
) -> tuple[dict[str, Any], BuildSettings]:
    """Run each stage over contiguous ranges of `partitions`, skipping ranges whose files are
    current. Before the first stage that runs, the inputs are validated and an openai
    endpoint is probed.

    Returns the run config (settings with the domain list pinned) and its settings resource.
    """
    import dagster as dg
    from dagster._core.storage.tags import (
        ASSET_PARTITION_RANGE_END_TAG,
        ASSET_PARTITION_RANGE_START_TAG,
    )

    from pipeline.definitions import defs
    from pipeline.defs.resources import BuildSettings, inputs

    order = domain_ids()
    domains = release_domains(settings)
    selected = list(partitions) if partitions is not None else domains
    outside = sorted(set(selected) - set(domains))
    if outside:
        raise AtbenchError(
            f"domains {outside} are not part of this release; it has: {', '.join(domains)}"
        )
    # Pin the domain list so every stage of this build sees the same spec (and work folder).
    run_settings = {**settings, "domains": ",".join(domains)}
    resource = BuildSettings(**run_settings)
    spec, ws, llm = resource.spec(), resource.workspace(), resource.llm()
    job = defs.resolve_job_def("construct_domains")
    prepared = False
    for stage in _STAGES:
        progress.start(stage)
        for start, end in contiguous_ranges(selected, order):
            keys = order[order.index(start) : order.index(end) + 1]
            stage_llm = llm if stage != "blueprints" else None
            if all(current_report(_STAGE_FILES[stage], spec, stage_llm, ws, d) for d in keys):
                continue
            if not prepared:
                # Only now, when work is due: an unchanged rebuild needs neither check.
                inputs()  # fail fast, naming file, record and field; the steps reuse them
                if llm.backend == "openai":
                    found = asyncio.run(preflight(llm))
                    console.print(f"preflight: {found.describe()}", highlight=False)
                    run_settings["structured_output"] = found.dialect  # no renegotiation
                prepared = True
            instance = instance or _cli_instance()
            result = job.execute_in_process(
                instance=instance,
                run_config=_run_config(run_settings, verbose),
                asset_selection=[dg.AssetKey(stage)],
                tags={
                    ASSET_PARTITION_RANGE_START_TAG: start,
                    ASSET_PARTITION_RANGE_END_TAG: end,
                },
                raise_on_error=False,
            )
            _raise_on_failure(result, f"stage {stage} for domains {start}..{end}")
    return _run_config(run_settings, verbose), BuildSettings(**run_settings)


def _run_config(settings: Mapping[str, Any], verbose: bool) -> dict[str, Any]:
    """Settings as run config; Dagster's console log stays off the terminal unless --verbose
    (every event is in the run's event log, for the UI)."""
    return {
        "resources": {"settings": {"config": dict(settings)}},
        "loggers": {"console": {"config": {"log_level": "INFO" if verbose else "CRITICAL"}}},
    }


def _raise_on_failure(result: Any, what: str) -> None:
    if result.success:
        return
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data.error is not None:
            raise AtbenchError(f"{what} failed: {_error_text(event.step_failure_data.error)}")
    raise AtbenchError(f"{what} failed; see the run in the Dagster UI")


def _error_text(error: Any) -> str:
    """A user error's message whole (it is written to be read); anything else, a bug, by its
    last line and where its traceback is."""
    cause = error.cause or error
    text = cause.message.strip()
    head, _, rest = text.partition(": ")
    if cause.cls_name in _user_errors():
        return rest if head.endswith(cause.cls_name) else text
    return (
        f"{text.splitlines()[-1]} ({cause.cls_name}; the traceback is in the run's event log: "
        "`make ui`, or rerun with --verbose)"
    )


def _user_errors() -> set[str]:
    found, todo = set(), [AtbenchError]
    while todo:
        cls = todo.pop()
        found.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return found


def _configure_logging(verbose: bool) -> None:
    """Warnings of the LLM layer (retries, dialect changes) go to the terminal only with
    --verbose; the progress bar and the closing line say what matters."""
    logger = logging.getLogger("pipeline")
    logger.propagate = False
    if verbose:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    else:
        logger.addHandler(logging.NullHandler())


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
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Show Dagster's log and the LLM layer's warnings.")
    ] = False,
) -> None:
    """Build a whole release through Dagster and print where it landed."""
    settings = check_build_options(
        size=size,
        seed=seed,
        backend=backend,
        domains=domains,
        known_domains=domain_ids(),
        out=out,
        model=model,
        base_url=base_url,
        structured_output=structured_output,
        concurrency=concurrency,
        timeout=timeout,
        max_tokens=max_tokens,
    )
    _configure_logging(verbose)
    console = Console()
    summary = run_build(settings, out.resolve(), console=console, verbose=verbose)
    if summary.get("unchanged"):
        console.print(
            f"[bold green]release v{summary['version']}[/] at {summary['path']} is up to date: "
            "nothing changed since it was built",
            soft_wrap=True,
        )
        return
    console.print(
        f"[bold green]release v{summary['version']}[/] at {summary['path']}: "
        f"{summary['total']} trajectories ({summary['unsafe']} unsafe, {summary['safe']} safe), "
        f"{summary['rejected']} rejected",
        soft_wrap=True,  # one line, so scripts can read it from a pipe
    )
