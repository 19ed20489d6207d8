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

from pipeline.cli.console import plain_console, styled
from pipeline.cli.progress import StageProgress
from pipeline.core.build.config import BuildConfig
from pipeline.core.build.engine import Engine, check_engine
from pipeline.core.build.stages import STAGES
from pipeline.core.build.stamps import current_release, current_report, release_digest
from pipeline.core.inputs.files import read_jsonl
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.llm.preflight import preflight
from pipeline.core.model.errors import AtbenchError, naming_full_disk
from pipeline.core.model.rejection import Rejection, summarise_rejections
from pipeline.core.release.lock import release_lock

if TYPE_CHECKING:
    import dagster as dg

    RunResult = dg.ExecuteInProcessResult | dg.JobExecutionResult

POSTGRES_INSTANCE = """\
telemetry:
  enabled: false
storage:
  postgres:
    postgres_url:
      env: ATBENCH_POSTGRES_URL
"""
"""The Dagster instance of a distributed build: run, event and schedule storage on PostgreSQL."""

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
) -> dict[str, Any]:
    """Plan, construct `partitions`, and publish to `out` through the gated `release` asset.

    `config.domains` is the release's domain list and fixes the spec (and so the work
    folder); `partitions` only says which of them to rebuild (any of them, in one run). The
    release consolidates every domain of the spec, so the other domains' stage files must
    already be there. When every stage file is current (`stamps`), no stage runs: if `out`
    holds the release made from them, no run starts at all (`unchanged` in the summary), else
    one run publishes them. Inside a run, a stage whose files are current skips its work.
    The release's lock is taken from the start (`_writing`), so a second build into `out`
    fails at once.
    """
    selected = _selected(config, partitions)
    with _writing(out):
        if _stages_current(config, selected):
            spec, ws, llm = config.spec(), config.workspace(), config.llm()
            published = current_release(out, release_digest(spec, llm, ws))
            if published is not None:
                return {"version": published["version"], "path": str(out), "unchanged": True}
            selected = []
        return _published(_run(config, selected, release_ops(out), console, instance, verbose))


def run_regen(
    config: BuildConfig,
    source: Path,
    domain: str,
    out: Path,
    *,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
    verbose: bool = False,
) -> dict[str, Any]:
    """Rebuild `domain` of the release at `source` (built with `config`) and publish the new
    version to `out` through the gated `release` asset, in one Dagster run, holding `out`'s
    lock throughout."""
    ops = release_ops(out, regenerate_from=source, domain=domain)
    selected = _selected(config, [domain])
    with _writing(out):
        return _published(_run(config, selected, ops, console, instance, verbose))


def _writing(out: Path) -> AbstractContextManager[None]:
    """Hold `out`'s release lock for the whole build, so a second build into it fails at once.
    On an out-of-process executor the `release` step publishes from another process, which
    takes the lock there; here the CLI only checks that no other build holds it now."""
    if Engine.load().executor == "in_process":
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
    return all(
        current_report(stage, spec, llm if stage != "plan" else None, ws, domain)
        for stage in STAGES
        for domain in (spec.domains if stage == "plan" else selected)
    )


def _published(result: RunResult) -> dict[str, Any]:
    import dagster as dg

    materialization = next(
        e.materialization
        for e in result.get_asset_materialization_events()
        if e.asset_key == dg.AssetKey("release")
    )
    return {key: value.value for key, value in materialization.metadata.items()}


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
    console: Console | None,
    instance: dg.DagsterInstance | None,
    verbose: bool,
) -> RunResult:
    """One Dagster run of the `build` job: plan the whole release, construct `selected` (any
    domains of the release, adjacent or not: `constructed` fans out over them), consolidate,
    run the blocking gates and publish, configured by the `release` ops config
    (`release_ops`). With nothing selected, the run is the release assets alone.

    The executor (`ATBENCH_EXECUTOR`) decides where steps run: in this process, or, handed a
    reconstructable job on a persistent instance, in other processes (multiprocess) or on
    workers (celery, k8s).
    """
    import dagster as dg

    from pipeline.definitions import build_job

    console = console or plain_console(stderr=True)
    engine = Engine.load()
    check_engine(engine, config.outputs_path())
    if selected:  # a stage is due: only then the inputs and the endpoint are checked
        config = _prepare(config, console)
    job = build_job()
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
        if engine.executor == "in_process":
            result: RunResult = job.execute_in_process(
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
    _raise_on_failed_gate(result, config)
    what = f"domains {', '.join(selected)}" if selected else "release"
    _raise_on_failure(result, f"the build of the {what} ({engine.executor} executor)")
    return result


def _raise_on_failed_gate(result: RunResult, config: BuildConfig) -> None:
    """A failed gate fails the run too: name the gate, and what emptied the candidate, before
    the generic run failure."""
    for check in result.get_asset_check_evaluations():
        if not check.passed:
            ws = config.workspace()
            rejected = read_jsonl(ws.candidate_rejections_file, Rejection)
            raise AtbenchError(
                f"release gate {check.check_name!r} failed: {check.description}. "
                f"{summarise_rejections(rejected)}. The previous release (if any) is "
                f"untouched; every rejection is in {ws.candidate_rejections_file.parent}"
            )


def _raise_on_failure(result: Any, what: str) -> None:
    if result.success:
        return
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data.error is not None:
            error = _error_text(event.step_failure_data.error)
            raise AtbenchError(f"{what} failed in stage {_stage(event.step_key)}: {error}")
    raise AtbenchError(f"{what} failed; see the run in the Dagster UI")


def _stage(step_key: str) -> str:
    """The stage a step ran, as the user knows it: `release`, or `skeletons (ecommerce)` for
    the construction step `constructed.branch.skeletons[ecommerce]`."""
    op, _, branch = step_key.rpartition(".")[2].partition("[")
    return f"{op} ({branch.rstrip(']')})" if branch else op


def _error_text(error: Any) -> str:
    """A user error's message whole (it is written to be read); anything else, a bug, by its
    last line and where its traceback is."""
    cause = error.cause or error
    text = str(cause.message).strip()
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


def configure_logging(verbose: bool) -> None:
    """Warnings of the LLM layer (retries, dialect changes) go to the terminal only with
    --verbose; the progress display and the closing line say what matters."""
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
    summary = run_build(config, out.resolve(), console=console, verbose=verbose)
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
