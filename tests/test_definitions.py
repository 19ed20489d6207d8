"""The Dagster definitions load and expose every stage, check and job."""

import dagster as dg

from pipeline.core.inputs.seeds import domain_ids
from pipeline.definitions import defs


def test_every_stage_is_an_asset() -> None:
    keys = {key.to_user_string() for key in defs.resolve_asset_graph().get_all_asset_keys()}
    assert keys == {
        "blueprints", "constructed", "skeletons", "injected", "paired", "filtered",
        "release_candidate", "release",
    }  # fmt: skip


def test_construction_assets_are_partitioned_by_domain() -> None:
    graph = defs.resolve_asset_graph()
    for stage in ("skeletons", "injected", "paired", "filtered"):
        partitions = graph.get(dg.AssetKey(stage)).partitions_def
        assert partitions is not None
        assert partitions.get_partition_keys() == domain_ids()
    for whole in ("blueprints", "constructed", "release"):
        assert graph.get(dg.AssetKey(whole)).partitions_def is None


def test_the_llm_stages_are_the_ops_in_the_llm_pool() -> None:
    ops = defs.resolve_job_def("build").graph.iterate_op_defs()
    assert {op.name for op in ops if op.pool == "llm"} == {
        "skeletons", "injected", "paired", "filtered"
    }  # fmt: skip


def test_release_gates_are_blocking_checks_on_the_candidate() -> None:
    """Blocking is what stops the release; tests/defs/test_checks.py shows it doing so."""
    graph = defs.resolve_asset_graph()
    gates = {key.name: graph.get_check_spec(key) for key in graph.asset_check_keys}
    assert sorted(gates) == ["balance", "leaf_coverage", "pair_integrity", "schema"]
    assert all(spec.blocking for spec in gates.values())
    assert {spec.asset_key for spec in gates.values()} == {dg.AssetKey("release_candidate")}


def test_one_job_plans_constructs_gates_and_publishes() -> None:
    build = defs.resolve_job_def("build")
    assert build.asset_layer.selected_asset_keys == {
        dg.AssetKey(stage)
        for stage in (
            "blueprints",
            "constructed",
            "release_candidate",
            "release",
        )
    }
    checks = {key.name for key in build.asset_layer.asset_graph.asset_check_keys}
    assert checks == {"balance", "leaf_coverage", "pair_integrity", "schema"}


def test_planning_is_unpartitioned_and_every_asset_has_a_code_version() -> None:
    graph = defs.resolve_asset_graph()
    assert graph.get(dg.AssetKey("blueprints")).partitions_def is None
    assert all(graph.get(key).code_version for key in graph.get_all_asset_keys())
