"""`atbench build --submit` for real: a `dagster-daemon` against a temporary DAGSTER_HOME with
the shipped instance config (deploy/daemon/dagster.yaml: QueuedRunCoordinator,
DefaultRunLauncher), a two-domain build submitted through its queue, and a regeneration whose
gate fails, submitted the same way. No other service is needed, so this is the main tier.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import duckdb
import pytest
import yaml

from pipeline.cli.build import run_build
from pipeline.cli.submit import QUEUE_DAEMON
from pipeline.core.build.config import BuildConfig
from pipeline.core.model.errors import AtbenchError
from tests.support.builds import in_process_release
from tests.support.paths import REPO
from tests.support.releases import relist_files

DOMAINS = ("brokerage", "personal_banking")
"""Not neighbours in the seed order: one run still builds both."""
SIZE = 8
INSTANCE_CONFIG = REPO / "deploy" / "daemon" / "dagster.yaml"
BIN = Path(sys.executable).parent


def instance_home(root: Path) -> Path:
    """A DAGSTER_HOME with the shipped config, dequeuing every second for the test."""
    config = yaml.safe_load(INSTANCE_CONFIG.read_text())
    config["run_coordinator"]["config"]["dequeue_interval_seconds"] = 1
    root.mkdir(parents=True)
    (root / "dagster.yaml").write_text(yaml.safe_dump(config))
    return root


@dataclass
class Daemon:
    home: Path
    process: subprocess.Popen[bytes]
    log: Path

    def wait_until_beating(self) -> None:
        deadline = time.monotonic() + 180
        with dg.DagsterInstance.from_config(str(self.home)) as instance:
            while QUEUE_DAEMON not in instance.get_daemon_heartbeats():
                assert self.process.poll() is None, self.log.read_text()[-3000:]
                assert time.monotonic() < deadline, "the daemon never beat"
                time.sleep(0.5)


@pytest.fixture(scope="module")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """`dagster-daemon run -w workspace.yaml`, as docs/scaling.md starts it; its process group
    (the daemon and the code server it starts) is stopped at the end."""
    root = tmp_path_factory.mktemp("daemon")
    home = instance_home(root / "home")
    log = root / "daemon.log"
    env = {**os.environ, "DAGSTER_HOME": str(home), "ATBENCH_EXECUTOR": "in_process"}
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(BIN / "dagster-daemon"), "run", "-w", str(REPO / "workspace.yaml")],
            env=env,
            cwd=REPO,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield Daemon(home, process, log)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


def atbench(args: list[str], home: Path, outputs: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DAGSTER_HOME": str(home), "ATBENCH_OUTPUTS": str(outputs)}
    return subprocess.run(
        [str(BIN / "atbench"), *args], env=env, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def reference(daemon: Daemon, tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The in-process build of the same spec (made while the daemon starts): its atbench.json."""
    return in_process_release(tmp_path_factory.mktemp("in-process"), SIZE, DOMAINS)


@dataclass
class Submitted:
    done: subprocess.CompletedProcess[str]
    release: Path
    outputs: Path
    events: list[dg.EventLogEntry]
    runs: list[dg.DagsterRun]


@pytest.fixture(scope="module")
def submitted(daemon: Daemon, reference: bytes) -> Submitted:
    daemon.wait_until_beating()
    root = daemon.home.parent
    release, outputs = root / "release", root / "outputs"
    args = ["build", "--submit", "--size", str(SIZE), "--domains", ",".join(DOMAINS)]
    done = atbench([*args, "--out", str(release)], daemon.home, outputs)
    with dg.DagsterInstance.from_config(str(daemon.home)) as instance:
        runs = list(instance.get_runs())
        events = list(instance.all_logs(runs[0].run_id)) if runs else []
    return Submitted(done, release, outputs, events, runs)


def _types(submitted: Submitted) -> list[dg.DagsterEventType]:
    return [e.dagster_event.event_type for e in submitted.events if e.dagster_event is not None]


def test_a_submitted_build_is_queued_launched_and_equals_the_in_process_one(
    submitted: Submitted, reference: bytes
) -> None:
    assert submitted.done.returncode == 0, submitted.done.stderr
    assert submitted.done.stdout.startswith(f"release v1 at {submitted.release}: ")
    assert (submitted.release / "atbench.json").read_bytes() == reference
    (run,) = submitted.runs
    assert run.status == dg.DagsterRunStatus.SUCCESS
    # Through the queue: enqueued by the CLI, then started by the daemon's run launcher.
    kinds = _types(submitted)
    assert kinds.index(dg.DagsterEventType.RUN_ENQUEUED) < kinds.index(
        dg.DagsterEventType.RUN_STARTING
    )


def test_progress_comes_from_the_runs_events(submitted: Submitted) -> None:
    """Each step the run finished is counted, and each domain's stage figures are the ones
    its materialisation recorded."""
    lines = submitted.done.stderr.splitlines()
    successes = _types(submitted).count(dg.DagsterEventType.STEP_SUCCESS)
    assert any(line.startswith(f"[{successes} steps done] release done") for line in lines)
    for entry in submitted.events:
        event = entry.dagster_event
        if event is None or not event.is_step_materialization or event.partition is None:
            continue
        metadata = event.materialization.metadata
        figures = f"{metadata['written'].value} written, {metadata['rejected'].value} rejected"
        line = f"  {event.asset_key.to_user_string() if event.asset_key else ''} "
        assert f"{line}({event.partition}): {figures}" in lines


def test_a_submitted_run_that_fails_ends_with_the_one_paragraph(
    submitted: Submitted, daemon: Daemon, tmp_path: Path
) -> None:
    """A regeneration whose release gate fails (every other domain's unsafe rows gone from the
    source), submitted: the same closing paragraph as in-process, nothing published."""
    broken = tmp_path / "unbalanced"
    shutil.copytree(submitted.release, broken)
    with duckdb.connect(str(broken / "release.duckdb")) as db:
        db.execute(
            "DELETE FROM trajectories WHERE variant = 'unsafe' AND domain <> ?", [DOMAINS[0]]
        )
    relist_files(broken)
    args = ["regen", "--submit", "--release", str(broken), "--domain", DOMAINS[0]]
    done = atbench([*args, "--out", str(tmp_path / "new")], daemon.home, submitted.outputs)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "release gate '" in last and "failed" in last, last
    assert not (tmp_path / "new").exists()


def test_without_a_daemon_nothing_is_submitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = instance_home(tmp_path / "home")
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    config = BuildConfig.load(size=SIZE, domains=DOMAINS[0], outputs=tmp_path / "outputs")
    with pytest.raises(
        AtbenchError, match=f"no dagster-daemon is running against DAGSTER_HOME={home}"
    ):
        run_build(config, tmp_path / "release", submit=True)
    with dg.DagsterInstance.from_config(str(home)) as instance:
        assert not instance.get_runs()


def test_an_instance_that_does_not_queue_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # Dagster's default instance queues; this one launches from the submitting process.
    coordinator = {"module": "dagster.core.run_coordinator", "class": "DefaultRunCoordinator"}
    (home / "dagster.yaml").write_text(yaml.safe_dump({"run_coordinator": coordinator}))
    monkeypatch.setenv("DAGSTER_HOME", str(home))
    monkeypatch.setenv("ATBENCH_SUBMIT", "1")
    config = BuildConfig.load(size=SIZE, domains=DOMAINS[0], outputs=tmp_path / "outputs")
    with pytest.raises(
        AtbenchError, match=r"has the run coordinator \w+, which launches runs from the submitting"
    ):
        run_build(config, tmp_path / "release")


def test_submitting_needs_dagster_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    config = BuildConfig.load(size=SIZE, domains=DOMAINS[0], outputs=tmp_path / "outputs")
    with pytest.raises(AtbenchError, match="needs DAGSTER_HOME"):
        run_build(config, tmp_path / "release", submit=True)
    assert not (tmp_path / "release").exists()
