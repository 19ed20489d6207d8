"""The celery path for real: a Redis broker, PostgreSQL as the Dagster instance, two celery
workers as separate processes, and `atbench build` with `ATBENCH_EXECUTOR=celery`.

One celery build over three domains that are not neighbours in the seed order (one run, a
branch of steps per domain), during which one worker is SIGKILLed in the middle of a domain's
step: every step runs on a worker, the broker gives the killed worker's unacknowledged step to
the other worker (`task_acks_late`, a short visibility timeout), which runs it again, and the
release equals the in-process build of the same spec byte for byte. To be sure the kill lands
inside a step, the worker is first frozen (SIGSTOP) as it starts one, and killed only if that
step has not finished. `.ci/run`'s distributed tier installs Redis and PostgreSQL and runs
this module (`pytest -m distributed`).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest
import yaml

from pipeline.cli.build import POSTGRES_INSTANCE
from tests.support.builds import in_process_release
from tests.support.services import (
    CELERY_CONFIG,
    PROJECT,
    Worker,
    missing_services,
    postgres_server,
    redis_server,
    start_worker,
)

pytestmark = pytest.mark.distributed


@pytest.fixture(scope="module", autouse=True)
def services_installed() -> None:
    """Skip on a machine without Redis, PostgreSQL or the extra; in CI (`CI` set) fail, since
    `.ci/run` installs them."""
    missing = missing_services()
    if importlib.util.find_spec("dagster_celery") is None:
        missing.append("the distributed extra (pip install -e '.[distributed]')")
    if missing:
        message = f"needs {', '.join(missing)}; .ci/run installs them"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


DOMAINS = ("brokerage", "ecommerce", "personal_banking")
"""Not neighbours in the seed order: still one run, a branch of steps per domain."""
SIZE = 12
VISIBILITY_TIMEOUT_S = 10
"""Above the longest step here, so only a dead worker's step is handed out again."""
STAGES = ("skeletons", "injected", "paired", "filtered")
GATES = ("balance", "leaf_coverage", "pair_integrity", "schema")
EVERY_STEP = (
    *("blueprints", "constructed.wave"),
    *(f"constructed.branch.{stage}[{domain}]" for stage in STAGES for domain in DOMAINS),
    *("constructed.gathered", "release_candidate"),
    *(f"release_candidate_{gate}" for gate in GATES),
    "release",
)


@dataclass
class Cluster:
    env: dict[str, str]
    """What the CLI and the workers share: executor, broker, instance URL."""
    root: Path
    workers: list[Worker]

    def build(self, name: str) -> subprocess.Popen[str]:
        """`atbench build` into `name`/release, with `name`/outputs as the shared outputs root."""
        command = [str(PROJECT / ".venv" / "bin" / "atbench"), "build", "--size", str(SIZE)]
        command += ["--domains", ",".join(DOMAINS), "--out", str(self.root / name / "release")]
        env = self.env | {"ATBENCH_OUTPUTS": str(self.root / name / "outputs")}
        return subprocess.Popen(
            command, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )

    def instance(self) -> dg.DagsterInstance:
        return dg.DagsterInstance.from_config(str(self.root / "dagster" / "postgres"))


def finished(build: subprocess.Popen[str]) -> str:
    output, _ = build.communicate(timeout=240)
    assert build.returncode == 0, output
    return output


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The in-process build of the same spec: its atbench.json."""
    return in_process_release(tmp_path_factory.mktemp("in-process"), SIZE, DOMAINS)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    root = tmp_path_factory.mktemp("celery")
    config = yaml.safe_load(CELERY_CONFIG.read_text())
    transport = config["execution"]["config"]["config_source"]["broker_transport_options"]
    transport["visibility_timeout"] = VISIBILITY_TIMEOUT_S
    worker_config = root / "celery.yaml"
    worker_config.write_text(yaml.safe_dump(config))
    with (
        redis_server(root) as broker,
        postgres_server() as postgres,
        pytest.MonkeyPatch.context() as test_env,
    ):
        test_env.setenv("ATBENCH_POSTGRES_URL", postgres)  # the test reads the event log too
        env = dict(os.environ)
        env |= {
            "ATBENCH_EXECUTOR": "celery",
            "ATBENCH_CELERY_BROKER": broker,
            "ATBENCH_POSTGRES_URL": postgres,
            "DAGSTER_HOME": str(root / "dagster"),  # the CLI's; it writes postgres/ below
        }
        shared = root / "dagster" / "postgres"
        shared.mkdir(parents=True)
        (shared / "dagster.yaml").write_text(POSTGRES_INSTANCE)
        on_shared = env | {"DAGSTER_HOME": str(shared)}
        # Two LLM steps at a time on the instance (one per worker), set as docs/scaling.md says.
        pool = [str(PROJECT / ".venv" / "bin" / "dagster"), "instance", "concurrency"]
        subprocess.run([*pool, "set", "llm", "2"], env=on_shared, check=True, capture_output=True)
        workers = [start_worker(name, on_shared, root, worker_config) for name in ("w1", "w2")]
        try:
            yield Cluster(env, root, workers)
        finally:
            for worker in workers:
                worker.stop()


def _started_steps(instance: dg.DagsterInstance, run_id: str) -> list[tuple[str, str]]:
    """(step, celery worker) for every step a worker started in the run, in order."""
    found = []
    for entry in instance.all_logs(run_id, of_type=dg.DagsterEventType.ENGINE_EVENT):
        event = entry.dagster_event
        if event is None or event.step_key is None or "in celery worker" not in entry.message:
            continue
        worker = str(event.engine_event_data.metadata["Celery worker"].value)
        found.append((event.step_key, worker.split("@")[0]))
    return found


def _step_finished(instance: dg.DagsterInstance, run_id: str, step: str) -> bool:
    ends = {dg.DagsterEventType.STEP_SUCCESS, dg.DagsterEventType.STEP_FAILURE}
    return any(
        entry.dagster_event is not None and entry.dagster_event.step_key == step
        for kind in ends
        for entry in instance.all_logs(run_id, of_type=kind)
    )


@dataclass
class KilledBuild:
    """A celery build during which one worker was SIGKILLed inside a step."""

    output: str
    release: bytes
    """Its atbench.json."""
    status: dg.DagsterRunStatus
    started: list[tuple[str, str]]
    """(step, worker) as the workers started them (`_started_steps`)."""
    killed_step: str
    victim: Worker
    survivor: str
    runs: int
    """Runs on the instance: the build's only."""
    materialised: dict[str, set[str]]
    """Each stage asset's materialised partitions."""


@pytest.fixture(scope="module")
def killed_build(cluster: Cluster) -> KilledBuild:
    build = cluster.build("killed")
    with cluster.instance() as instance:
        victim, step, run_id = _kill_inside_a_step(cluster, instance, build)
        output = finished(build)
        started = _started_steps(instance, run_id)
        (run,) = [r for r in instance.get_runs() if r.run_id == run_id]
        runs = len(instance.get_runs())
        materialised = {
            stage: instance.get_materialized_partitions(dg.AssetKey(stage)) for stage in STAGES
        }
    release = (cluster.root / "killed" / "release" / "atbench.json").read_bytes()
    survivor = next(w.name for w in cluster.workers if w is not victim)
    return KilledBuild(
        output, release, run.status, started, step, victim, survivor, runs, materialised
    )


def test_the_celery_release_equals_the_in_process_one(
    killed_build: KilledBuild, reference: bytes
) -> None:
    assert killed_build.status == dg.DagsterRunStatus.SUCCESS
    assert "release v1" in killed_build.output
    assert killed_build.release == reference


def test_one_run_materialised_each_domains_partitions(killed_build: KilledBuild) -> None:
    assert killed_build.runs == 1
    assert killed_build.materialised == {stage: set(DOMAINS) for stage in STAGES}


def test_every_step_ran_on_a_celery_worker(killed_build: KilledBuild) -> None:
    assert {step for step, _ in killed_build.started} == set(EVERY_STEP)
    assert {worker for _, worker in killed_build.started} <= {"w1", "w2"}


def test_the_killed_workers_step_was_retried_on_the_other(killed_build: KilledBuild) -> None:
    step = killed_build.killed_step
    ran = [worker for started, worker in killed_build.started if started == step]
    assert ran == [killed_build.victim.name, killed_build.survivor], f"{step} ran on {ran}"
    assert killed_build.victim.process.poll() is not None  # it stayed dead


def _kill_inside_a_step(
    cluster: Cluster, instance: dg.DagsterInstance, build: subprocess.Popen[str]
) -> tuple[Worker, str, str]:
    """Freeze the worker that starts a domain's step; kill it if the step is unfinished, else
    go on."""
    seen: set[tuple[str, str]] = set()
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and build.poll() is None:
        for run in instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
            for step, name in _started_steps(instance, run.run_id):
                if (step, name) in seen or not step.startswith("constructed.branch."):
                    continue
                seen.add((step, name))
                worker = next(w for w in cluster.workers if w.name == name)
                worker.freeze()
                if _step_finished(instance, run.run_id, step):
                    worker.thaw()
                    continue
                worker.kill()
                return worker, step, run.run_id
        time.sleep(0.05)
    raise AssertionError(f"no step could be caught unfinished: {finished(build)}")
