"""`atbench build`: materialise a whole release through Dagster, with progress."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from pipeline.cli import run_events
from pipeline.cli.console import plain_console, styled
from pipeline.cli.progress import StageProgress
from pipeline.cli.submit import submission_instance, submitted_run
from pipeline.core.build.config import BuildConfig
from pipeline.core.build.engine import Engine, check_engine
from pipeline.core.build.stages import STAGES
from pipeline.core.build.stamps import (
    current_release,
    current_report,
    project_held,
    release_digest,
)
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.llm.preflight import preflight
from pipeline.core.model.errors import AtbenchError, naming_full_disk
from pipeline.core.release.lock import release_lock

if TYPE_CHECKING:
    import dagster as dg

POSTGRES_INSTANCE = """\
telemetry:
  enabled: false
storage:
  postgres:
    postgres_url:
      env: ATBENCH_POSTGRES_URL
"""
"""The Dagster instance of a distributed build: run, event and schedule storage on PostgreSQL."""

SUBMIT_HELP = (
    "Submit the run to the Dagster instance under DAGSTER_HOME (queued, launched by "
    "dagster-daemon) and follow it; else ATBENCH_SUBMIT."
)

_CONSTRUCTION = ("blueprints", "constructed")
_RELEASE = ("release_candidate", "release")


def dagster_home() -> Path:
    """The CLI keeps its Dagster instance under outputs/ so `dagster dev` shows its runs.

    A fresh instance gets a config with telemetry off, so no banner reaches the terminal; an
    existing non-empty dagster.yaml is the user's and is left alone.
    """
    home = Path(os.environ.get("DAGSTER_HOME") or outputs_dir() / "dagster")
    with naming_full_disk(home):
        home.mkdir(parents=True, exist_ok=True)
        config = home / "dagster.yaml"
        if not config.exists() or not config.read_text(encoding="utf-8").strip():
            config.write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    os.environ["DAGSTER_HOME"] = str(home.resolve())
    return home


def run_build(
    config: BuildConfig,
    out: Path,
    *,
    partitions: Sequence[str] | None = None,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
    verbose: bool = False,
    submit: bool = False,
) -> dict[str, Any]:
    """Plan, construct `partitions`, and publish to `out` through the gated `release` asset.

    `config.domains` is the release's domain list and fixes the spec (and so the work
    folder); `partitions` only says which of them to rebuild (any of them, in one run). The
    release consolidates every domain of the spec, so the other domains' stage files must
    already be there. When every stage file is current (`stamps`), no stage runs: if `out`
    holds the release made from them, no run starts at all (`unchanged` in the summary), else
    one run publishes them. Inside a run, a stage whose files are current skips its work.
    The release's lock is taken from the start (`_writing`), so a second build into `out`
    fails at once. `submit` (or `ATBENCH_SUBMIT`) hands the run to the instance's daemon.
    """
    selected = _selected(config, partitions)
    engine = Engine.load(submit=submit)
    with _writing(out, engine):
        if _stages_current(config, selected):
            spec, ws, llm = config.spec(), config.workspace(), config.llm()
            published = current_release(out, release_digest(spec, llm, ws))
            if published is not None:
                return {"version": published["version"], "path": str(out), "unchanged": True}
            selected = []
        run = _run(config, selected, release_ops(out), engine, console, instance, verbose)
        return run_events.published(run)


def run_regen(
    config: BuildConfig,
    source: Path,
    domain: str,
    out: Path,
    *,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
    verbose: bool = False,
    submit: bool = False,
) -> dict[str, Any]:
    """Rebuild `domain` of the release at `source` (built with `config`) and publish the new
    version to `out` through the gated `release` asset, in one Dagster run, holding `out`'s
    lock throughout."""
    ops = release_ops(out, regenerate_from=source, domain=domain)
    selected = _selected(config, [domain])
    engine = Engine.load(submit=submit)
    with _writing(out, engine):
        return run_events.published(_run(config, selected, ops, engine, console, instance, verbose))


def _writing(out: Path, engine: Engine) -> AbstractContextManager[None]:
    """Hold `out`'s release lock for the whole build, so a second build into it fails at once.
    On an out-of-process executor or in a submitted run the `release` step publishes from
    another process, which takes the lock there; here the CLI only checks that no other build
    holds it now."""
    if engine.executor == "in_process" and not engine.submit:
        return release_lock(out)
    with release_lock(out):
        return nullcontext()


def release_ops(
    out: Path, *, regenerate_from: Path | None = None, domain: str = ""
) -> dict[str, Any]:
    """Run config of the release assets: where to publish, and what a regeneration rebuilt."""
    ops: dict[str, Any] = {"release": {"config": {"out": str(out)}}}
    if regenerate_from is not None:
        candidate = {"regenerate_from": str(regenerate_from), "domain": domain}
        ops["release_candidate"] = {"config": candidate}
    return ops


def _selected(config: BuildConfig, partitions: Sequence[str] | None) -> list[str]:
    domains = list(config.spec().domains)
    selected = list(partitions) if partitions is not None else domains
    outside = sorted(set(selected) - set(domains))
    if outside:
        raise AtbenchError(
            f"domains {outside} are not part of this release; it has: {', '.join(domains)}"
        )
    return selected


def _stages_current(config: BuildConfig, selected: list[str]) -> bool:
    """Whether every stage file of the selection is current (`stamps`): no stage is due."""
    spec, ws, llm = config.spec(), config.workspace(), config.llm()
    with project_held():
        return all(
            current_report(stage, spec, llm if stage != "plan" else None, ws, domain)
            for stage in STAGES
            for domain in (spec.domains if stage == "plan" else selected)
        )


def _cli_instance(engine: Engine) -> dg.DagsterInstance:
    """The CLI's instance: SQLite under DAGSTER_HOME, or, with `ATBENCH_POSTGRES_URL`, one on
    PostgreSQL that workers on other machines share (its config reads the URL from the
    environment of each process, so no password lands in a file)."""
    import dagster as dg

    home = dagster_home()
    if not engine.postgres_url:
        with naming_full_disk(home):
            return dg.DagsterInstance.get()
    shared = home / "postgres"
    shared.mkdir(exist_ok=True)
    (shared / "dagster.yaml").write_text(POSTGRES_INSTANCE, encoding="utf-8")
    return dg.DagsterInstance.from_config(str(shared))


def _prepare(config: BuildConfig, console: Console) -> BuildConfig:
    """Before the first run: validate the inputs, and probe an openai endpoint; the run then
    uses the dialect the probe found (no renegotiation in every step)."""
    from pipeline.defs.resources import inputs

    inputs()  # fail fast, naming file, record and field; the steps reuse them
    llm = config.llm()
    if llm.backend != "openai":
        return config
    found = asyncio.run(preflight(llm))
    console.print(f"preflight: {found.describe()}", highlight=False)
    return config.model_copy(update={"structured_output": found.dialect})


def _run(
    config: BuildConfig,
    selected: list[str],
    release: dict[str, Any],
    engine: Engine,
    console: Console | None,
    instance: dg.DagsterInstance | None,
    verbose: bool,
) -> list[dg.DagsterEvent]:
    """One Dagster run of the `build` job: plan the whole release, construct `selected` (any
    domains of the release, adjacent or not: `constructed` fans out over them), consolidate,
    run the blocking gates and publish, configured by the `release` ops config
    (`release_ops`). With nothing selected, the run is the release assets alone.

    The executor (`ATBENCH_EXECUTOR`) decides where steps run: in this process, or, handed a
    reconstructable job on a persistent instance, in other processes (multiprocess) or on
    workers (celery, k8s). A submitted run (`engine.submit`) is the whole `build` job (a
    stage whose files are current skips its work), launched by the instance's daemon and
    followed in its event log (`pipeline.cli.submit`). Returns the run's events.
    """
    import dagster as dg

    console = console or plain_console(stderr=True)
    check_engine(engine, config.outputs_path())
    if engine.submit:
        engine.workspace_file()
        instance = instance or submission_instance()
    if selected:  # a stage is due: only then the inputs and the endpoint are checked
        config = _prepare(config, console)
    instance = instance or _cli_instance(engine)
    settings = config.resource_config() | {"wave": ",".join(selected)}
    run_config: dict[str, Any] = {
        # The domain list is pinned so every step sees the same spec (and work folder).
        "resources": {"settings": {"config": settings}},
        # Dagster's console log stays off the terminal unless --verbose (every event is in
        # the run's event log, for the UI); the progress display speaks instead.
        "loggers": {"console": {"config": {"log_level": "INFO" if verbose else "CRITICAL"}}},
        "ops": release,
    }
    stages = [*_CONSTRUCTION, *_RELEASE] if selected else list(_RELEASE)
    selection = [dg.AssetKey(stage) for stage in stages]
    # Dagster's run storage failing on a full disk names its folder, no traceback.
    with StageProgress(console), naming_full_disk(dagster_home()):
        if engine.submit:
            # Its progress lines go to stderr: stdout keeps the one closing line.
            following = plain_console(stderr=True)
            success, events = submitted_run(instance, engine, run_config, following)
        else:
            success, events = _executed(engine, instance, run_config, selection)
    run_events.raise_on_failed_gate(events, config)
    what = f"domains {', '.join(selected)}" if selected else "release"
    how = "submitted run" if engine.submit else f"{engine.executor} executor"
    run_events.raise_on_failure(success, events, f"the build of the {what} ({how})")
    return events


def _executed(
    engine: Engine,
    instance: dg.DagsterInstance,
    run_config: dict[str, Any],
    selection: list[dg.AssetKey],
) -> tuple[bool, list[dg.DagsterEvent]]:
    """The run made by this process: its steps in it, or (handed a reconstructable job) in
    other processes or on workers."""
    import dagster as dg

    from pipeline.definitions import build_job

    result: dg.ExecuteInProcessResult | dg.JobExecutionResult
    if engine.executor == "in_process":
        result = build_job().execute_in_process(
            instance=instance,
            run_config=run_config,
            asset_selection=selection,
            raise_on_error=False,
        )
    else:
        result = dg.execute_job(
            dg.reconstructable(build_job),
            instance,
            run_config=run_config,
            asset_selection=selection,
        )
    return result.success, list(result.all_events)


def configure_logging(verbose: bool) -> None:
    """Warnings of the LLM layer (retries, dialect changes) go to the terminal only with
    --verbose; the progress display and the closing line say what matters."""
    logger = logging.getLogger("pipeline")
    logger.propagate = False
    # Replaced, not added to: a second build in one process (the tests, a notebook) must not
    # keep writing to the first one's stderr.
    if verbose:
        handler: logging.Handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.setLevel(logging.INFO)
    else:
        handler = logging.NullHandler()
    logger.handlers = [handler]


def build(
    out: Annotated[Path, typer.Option(help="Release directory to create or replace.")] = Path(
        "outputs/release"
    ),
    size: Annotated[
        int, typer.Option(help="Trajectories in the release (pairs x 2 plus benign).")
    ] = 1000,
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
    submit: Annotated[bool, typer.Option("--submit", help=SUBMIT_HELP)] = False,
) -> None:
    """Build a whole release through Dagster and print where it landed."""
    config = BuildConfig.from_options(
        out,
        size=size,
        seed=seed,
        backend=backend,
        domains=domains,
        model=model,
        base_url=base_url,
        structured_output=structured_output,
        concurrency=concurrency,
        timeout=timeout,
        max_tokens=max_tokens,
    )
    configure_logging(verbose)
    console = plain_console()
    summary = run_build(config, out.resolve(), console=console, verbose=verbose, submit=submit)
    released = f"release v{summary['version']}"
    if summary.get("unchanged"):
        console.print(
            styled(
                released,
                "bold green",
                f" at {summary['path']} is up to date: nothing changed since it was built",
            ),
            soft_wrap=True,
        )
        return
    console.print(
        styled(
            released,
            "bold green",
            f" at {summary['path']}: {summary['total']} trajectories "
            f"({summary['unsafe']} unsafe, {summary['safe']} safe), "
            f"{summary['rejected']} rejected",
        ),
        soft_wrap=True,  # one line, so scripts can read it from a pipe
    )
