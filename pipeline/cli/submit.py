"""`atbench build --submit`: the run goes through the Dagster instance, not the CLI's process.

`dagster job launch` (Dagster's own command) creates the run on the instance under
`DAGSTER_HOME` and hands it to the instance's run coordinator: a `QueuedRunCoordinator` puts
it in the queue, `dagster-daemon` takes it out and gives it to the run launcher, which starts
the run's process from the daemon's code location (`DefaultRunLauncher`: a process on the
daemon's machine; `K8sRunLauncher`: a Job). The CLI then follows the run in the instance's
event log, printing each finished step and each domain's figures, and returns the run's
events so the closing lines are the in-process path's. The run's steps run on the executor
that the daemon's environment names (`ATBENCH_EXECUTOR`), not the CLI's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from typing import TYPE_CHECKING, Any

from rich.console import Console

from pipeline.cli.run_events import stage_of
from pipeline.core.build.engine import Engine
from pipeline.core.model.errors import AtbenchError

if TYPE_CHECKING:
    import dagster as dg

QUEUE_DAEMON = "QUEUED_RUN_COORDINATOR"
"""The daemon that takes runs out of the queue (`dagster-daemon run` starts it)."""
HEARTBEAT_TOLERANCE_S = 120.0
"""A daemon beats every 30 s; older than this, it is gone."""
QUEUED_PATIENCE_S = 180.0
"""A run still queued after this long has no daemon taking it (or one at its run limit)."""
_POLL_S = 0.5
_STAGE_FIGURES = ("written", "rejected")


def submission_instance() -> dg.DagsterInstance:
    """The instance `dagster-daemon` runs against (`DAGSTER_HOME`), checked before anything is
    submitted: it queues runs, and its queue's daemon is alive."""
    import dagster as dg

    home = os.environ.get("DAGSTER_HOME")
    if not home:
        raise AtbenchError(
            "ATBENCH_SUBMIT (--submit) needs DAGSTER_HOME, the folder of the Dagster instance "
            "that dagster-daemon runs against (docs/scaling.md, 'Submitting to a daemon')"
        )
    instance = dg.DagsterInstance.get()
    coordinator = type(instance.run_coordinator).__name__
    if not isinstance(instance.run_coordinator, dg.QueuedRunCoordinator):
        instance.dispose()
        raise AtbenchError(
            f"the instance at DAGSTER_HOME={home} has the run coordinator {coordinator}, which "
            "launches runs from the submitting process; --submit needs the QueuedRunCoordinator "
            "(Dagster's default; deploy/daemon/dagster.yaml) so dagster-daemon launches them"
        )
    beat = instance.get_daemon_heartbeats().get(QUEUE_DAEMON)
    age = None if beat is None else time.time() - beat.timestamp
    if age is None or age > HEARTBEAT_TOLERANCE_S:
        instance.dispose()
        seen = "has never beaten" if age is None else f"last beat {age:.0f} s ago"
        raise AtbenchError(
            f"no dagster-daemon is running against DAGSTER_HOME={home}: the run queue's daemon "
            f"{seen}; start `dagster-daemon run -w workspace.yaml` with that DAGSTER_HOME"
        )
    return instance


def submitted_run(
    instance: dg.DagsterInstance, engine: Engine, run_config: dict[str, Any], console: Console
) -> tuple[bool, list[dg.DagsterEvent]]:
    """Submit one run of the `build` job with `run_config`, follow it to its end, and return
    whether it succeeded and its events."""
    run_id = str(uuid.uuid4())
    command = [sys.executable, "-m", "dagster", "job", "launch", "-j", "build"]
    command += ["-w", str(engine.workspace_file()), "--run-id", run_id]
    command += ["--config-json", json.dumps(run_config)]
    launched = subprocess.run(command, capture_output=True, text=True, check=False)
    if launched.returncode != 0:
        said = (launched.stderr.strip() or launched.stdout.strip()).splitlines()
        raise AtbenchError(
            f"submitting the build to the instance at DAGSTER_HOME={os.environ['DAGSTER_HOME']} "
            f"failed: {said[-1] if said else f'dagster job launch exited {launched.returncode}'}"
        )
    console.print(f"submitted run {run_id}; following its event log", highlight=False)
    return _followed(instance, run_id, console)


def _followed(
    instance: dg.DagsterInstance, run_id: str, console: Console
) -> tuple[bool, list[dg.DagsterEvent]]:
    """Read the run's event log until the run ends, printing its progress as it goes."""
    import dagster as dg

    events: list[dg.DagsterEvent] = []
    cursor: str | None = None
    done = 0
    submitted = time.monotonic()
    while True:
        run = instance.get_run_by_id(run_id)
        page = instance.get_records_for_run(run_id, cursor=cursor)
        cursor = page.cursor
        for record in page.records:
            event = record.event_log_entry.dagster_event
            if event is not None:
                events.append(event)
                done += event.is_step_success
                _report(console, event, done)
        if run is not None and run.is_finished and not page.has_more:
            return run.status == dg.DagsterRunStatus.SUCCESS, events
        queued = run is None or run.status == dg.DagsterRunStatus.QUEUED
        if queued and time.monotonic() - submitted > QUEUED_PATIENCE_S:
            raise AtbenchError(
                f"run {run_id} is still queued after {QUEUED_PATIENCE_S:.0f} s: no "
                "dagster-daemon takes runs from this instance's queue, or its run limit is "
                "reached (the UI's Runs page shows the queue)"
            )
        if not page.has_more:
            time.sleep(_POLL_S)


def _report(console: Console, event: dg.DagsterEvent, done: int) -> None:
    """One line per finished step (`done` so far), failed step, and domain's stage figures."""
    if event.is_step_success or event.is_step_failure:
        outcome = "done" if event.is_step_success else "FAILED"
        console.print(f"[{done} steps done] {stage_of(event.step_key or '')} {outcome}")
    elif event.is_step_materialization and event.partition is not None:
        metadata = event.materialization.metadata
        figures = ", ".join(f"{metadata[k].value} {k}" for k in _STAGE_FIGURES if k in metadata)
        console.print(
            f"  {event.asset_key.to_user_string() if event.asset_key else ''} "
            f"({event.partition}): {figures}"
        )
