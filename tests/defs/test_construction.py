"""Any set of domains is one Dagster run whose construction fans out per domain, and each
domain's partition of every stage asset is materialised with that domain's own figures."""

from __future__ import annotations

import io
import itertools

import dagster as dg
import pytest
from rich.console import Console

from pipeline.cli.build import run_build
from pipeline.core.build.config import BuildConfig
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.model.trajectory import Trajectory
from pipeline.defs.construction import EVERY_DOMAIN, STAGE_ASSETS, branch_domains, wave
from pipeline.defs.resources import BuildSettings

DOMAINS = ("brokerage", "ecommerce", "personal_banking")
"""No two of them neighbours in the seed order."""


def test_the_domains_are_not_neighbours() -> None:
    positions = [domain_ids().index(domain) for domain in DOMAINS]
    assert all(later - earlier > 1 for earlier, later in itertools.pairwise(positions))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[dg.DagsterInstance, BuildConfig]:
    root = tmp_path_factory.mktemp("non-adjacent")
    config = BuildConfig.load(size=12, domains=",".join(DOMAINS), outputs=root / "outputs")
    instance = dg.DagsterInstance.ephemeral()
    run_build(config, root / "release", instance=instance, console=Console(file=io.StringIO()))
    return instance, config


def test_three_non_adjacent_domains_are_one_run(
    built: tuple[dg.DagsterInstance, BuildConfig],
) -> None:
    instance, _ = built
    (run,) = instance.get_runs()
    assert run.is_success
    assert not run.is_partitioned  # the run's domains are its wave, not a partition range


def test_every_stage_has_each_domains_partition_materialised(
    built: tuple[dg.DagsterInstance, BuildConfig],
) -> None:
    instance, config = built
    ws = config.workspace()
    for stage in STAGE_ASSETS:
        assert instance.get_materialized_partitions(stage.key) == set(DOMAINS), stage.key
    for domain in DOMAINS:  # each partition reports its own domain's count
        only = dg.AssetRecordsFilter(asset_key=dg.AssetKey("filtered"), asset_partitions=[domain])
        (record,) = instance.fetch_materializations(only, limit=5).records
        assert record.asset_materialization is not None
        written = record.asset_materialization.metadata["written"].value
        assert written == len(ws.read("filtered", domain, Trajectory)) > 0


def _branches(settings: BuildSettings) -> dict[str, tuple[str, ...]]:
    """Each branch the `wave` op emits, and the domains its steps build."""
    keys = [out.mapping_key for out in wave(settings=settings)]
    return {key: branch_domains(settings, key) for key in keys}


def test_a_parallel_executor_gets_a_branch_per_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = BuildSettings(domains=",".join(DOMAINS), wave="personal_banking,brokerage")
    monkeypatch.setenv("ATBENCH_EXECUTOR", "multiprocess")
    assert _branches(settings) == {
        "brokerage": ("brokerage",),
        "personal_banking": ("personal_banking",),
    }
    monkeypatch.setenv("ATBENCH_EXECUTOR", "in_process")  # one step at a time: one branch
    assert _branches(settings) == {EVERY_DOMAIN: ("brokerage", "personal_banking")}


def test_a_run_without_a_wave_builds_every_domain_of_the_release() -> None:
    settings = BuildSettings(domains=",".join(DOMAINS))
    assert _branches(settings) == {EVERY_DOMAIN: DOMAINS}
