"""The Dagster definitions load and expose every stage, check and job."""

import dagster as dg

from pipeline.core.inputs.seeds import domain_ids
from pipeline.definitions import defs


def test_every_stage_is_an_asset() -> None:
    keys = {key.to_user_string() for key in defs.resolve_asset_graph().get_all_asset_keys()}
    assert keys == {
        "blueprints", "skeletons", "injected", "paired", "filtered", "release_candidate", "release"
    }  # fmt: skip


def test_construction_assets_are_partitioned_by_domain() -> None:
    graph = defs.resolve_asset_graph()
    partitions = graph.get(dg.AssetKey("paired")).partitions_def
    assert partitions is not None
    assert partitions.get_partition_keys() == domain_ids()
    assert graph.get(dg.AssetKey("release")).partitions_def is None


def test_release_gates_are_blocking_checks() -> None:
    checks = {
        key.name
        for key in defs.resolve_asset_graph().asset_check_keys
        if key.asset_key == dg.AssetKey("release_candidate")
    }
    assert checks == {"balance", "leaf_coverage", "pair_integrity", "schema"}


def test_jobs_resolve() -> None:
    assert defs.resolve_job_def("construct_domains") is not None
    assert defs.resolve_job_def("publish") is not None
