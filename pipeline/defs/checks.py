"""Blocking gates on the release candidate: a failing check stops the release from publishing."""

import functools
from pathlib import Path

import dagster as dg

from pipeline.core.build import stages
from pipeline.core.inputs.files import read_jsonl
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release import gates
from pipeline.core.release.gates import CheckOutcome
from pipeline.defs.assets import release_candidate
from pipeline.defs.resources import BuildSettings, inputs


def _result(outcome: CheckOutcome) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        passed=outcome.passed,
        severity=dg.AssetCheckSeverity.ERROR,
        description=outcome.description,
        metadata=outcome.metadata,
    )


def _candidate(settings: BuildSettings) -> list[Trajectory]:
    path = settings.config().workspace().candidate_trajectories_file
    stat = path.stat()
    return _parsed_candidate(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=1)
def _parsed_candidate(path: Path, mtime_ns: int, size: int) -> list[Trajectory]:
    """The candidate's trajectories, parsed once for the checks that read them (a run's checks
    share a process in-process; a new candidate file has a new mtime or size)."""
    return read_jsonl(path, Trajectory)


@dg.asset_check(asset=release_candidate, blocking=True)
def balance(settings: BuildSettings) -> dg.AssetCheckResult:
    """Unsafe share between 45 % and 55 %."""
    return _result(gates.balance(_candidate(settings)))


@dg.asset_check(asset=release_candidate, blocking=True)
def leaf_coverage(settings: BuildSettings) -> dg.AssetCheckResult:
    """Every leaf the plan assigned is present among the kept unsafe traces."""
    plan = stages.plan_record(settings.config().workspace())
    return _result(gates.leaf_coverage(_candidate(settings), plan["coverage"], inputs().taxonomy))


@dg.asset_check(asset=release_candidate, blocking=True)
def pair_integrity(settings: BuildSettings) -> dg.AssetCheckResult:
    """Every unsafe trace has its safe twin, identical up to the divergence step."""
    return _result(gates.pair_integrity(_candidate(settings)))


@dg.asset_check(asset=release_candidate, blocking=True)
def schema(settings: BuildSettings) -> dg.AssetCheckResult:
    """Every consolidated record parses back into a valid trajectory."""
    path = settings.config().workspace().candidate_trajectories_file
    records = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return _result(gates.schema(records, inputs().taxonomy))
