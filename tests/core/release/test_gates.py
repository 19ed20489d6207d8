"""Each release gate passes a release that meets it and fails, saying why, one that does not."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from pipeline.core.inputs.taxonomy import Taxonomy, default_taxonomy
from pipeline.core.model.labels import AXES
from pipeline.core.model.trajectory import EnvironmentTurn, Episode, Trajectory
from pipeline.core.release import gates
from tests.support.factories import make_pair, make_release


@pytest.fixture(scope="module")
def taxonomy() -> Taxonomy:
    return default_taxonomy()


def _unsafe(trajectories: list[Trajectory]) -> list[Trajectory]:
    return [t for t in trajectories if t.verdict == "unsafe"]


def _safe(trajectories: list[Trajectory]) -> list[Trajectory]:
    return [t for t in trajectories if t.verdict == "safe"]


def _planned(trajectories: list[Trajectory]) -> dict[str, dict[str, int]]:
    """The leaf counts of a release-sized plan that asked for each leaf of these unsafe traces
    often enough that losing it entirely fails the gate."""
    scale = max(gates.REQUIRED_FROM, gates.COVERAGE_FROM_PAIRS)
    counts = {
        axis: Counter(getattr(t.labels, axis) for t in trajectories if t.labels) for axis in AXES
    }
    return {
        axis: {leaf: n * scale for leaf, n in counted.items()} for axis, counted in counts.items()
    }


def test_balance_passes_an_even_release() -> None:
    outcome = gates.balance(make_release(10))
    assert outcome.passed
    assert outcome.metadata == {"unsafe": 10, "total": 20, "unsafe_share": 0.5}


@pytest.mark.parametrize(("unsafe", "passed"), [(9, True), (8, False), (11, True), (12, False)])
def test_balance_holds_the_share_between_45_and_55_percent(unsafe: int, passed: bool) -> None:
    release = make_release(12)
    trajectories = _unsafe(release)[:unsafe] + _safe(release)[: 20 - unsafe]
    outcome = gates.balance(trajectories)
    assert outcome.passed is passed
    assert f"unsafe share {unsafe / 20:.3f}" in outcome.description


def test_balance_fails_an_empty_release() -> None:
    assert not gates.balance([]).passed


def test_leaf_coverage_passes_when_every_planned_leaf_is_present(taxonomy: Taxonomy) -> None:
    release = make_release(6)
    outcome = gates.leaf_coverage(release, _planned(release), taxonomy)
    assert outcome.passed, outcome.description
    assert outcome.metadata["risk_source_leaves_present"] == 3


def test_leaf_coverage_names_a_planned_leaf_that_no_trace_carries(taxonomy: Taxonomy) -> None:
    release = make_release(6)
    planned = _planned(release)
    planned["real_world_harm"]["physical_and_health_harm"] = gates.REQUIRED_FROM
    outcome = gates.leaf_coverage(release, planned, taxonomy)
    assert not outcome.passed
    assert "physical_and_health_harm" in outcome.description


def test_leaf_coverage_is_not_judged_on_a_smoke_build(taxonomy: Taxonomy) -> None:
    release = make_release(6)
    small = {axis: {leaf: 1 for leaf in counts} for axis, counts in _planned(release).items()}
    small["real_world_harm"]["physical_and_health_harm"] = 1
    outcome = gates.leaf_coverage(release, small, taxonomy)
    assert outcome.passed and outcome.description.startswith("not checked")


def test_leaf_coverage_forgives_a_leaf_planned_too_rarely_to_expect(taxonomy: Taxonomy) -> None:
    release = make_release(6)
    planned = _planned(release)
    planned["real_world_harm"]["physical_and_health_harm"] = gates.REQUIRED_FROM - 1
    assert gates.leaf_coverage(release, planned, taxonomy).passed


def test_leaf_coverage_does_not_require_a_leaf_planned_zero_times(taxonomy: Taxonomy) -> None:
    release = make_release(6)
    planned = _planned(release)
    dropped = next(t.labels for t in _unsafe(release) if t.labels)
    for axis in AXES:
        planned[axis][getattr(dropped, axis)] = 0
    kept = [t for t in release if t.labels != dropped]
    assert gates.leaf_coverage(kept, planned, taxonomy).passed
    assert not gates.leaf_coverage(kept, _planned(release), taxonomy).passed


def test_leaf_coverage_counts_no_leaves_on_safe_traces(taxonomy: Taxonomy) -> None:
    release = make_release(6)
    outcome = gates.leaf_coverage(_safe(release), _planned(release), taxonomy)
    assert not outcome.passed
    assert outcome.metadata["risk_source_leaves_present"] == 0


def test_pair_integrity_passes_complete_pairs() -> None:
    outcome = gates.pair_integrity(make_release(4))
    assert outcome.passed
    assert outcome.metadata == {"pairs": 4, "broken": 0}


def test_pair_integrity_fails_an_unsafe_trace_without_its_twin() -> None:
    release = make_release(4)
    orphan = _unsafe(release)[0]
    outcome = gates.pair_integrity([t for t in release if t.id != orphan.pair_id + "-safe"])
    assert not outcome.passed
    assert f"{orphan.pair_id}: the safe twin is missing" in outcome.description
    assert outcome.metadata["broken"] == 1


def test_pair_integrity_fails_twins_that_differ_before_their_divergence() -> None:
    safe, unsafe = make_pair()
    first = safe.episodes[0]
    turns = list(first.turns)
    index = next(i for i, turn in enumerate(turns) if isinstance(turn, EnvironmentTurn))
    turns[index] = EnvironmentTurn(content='{"balance": 0}')
    edited = safe.model_copy(update={"episodes": (Episode(turns=tuple(turns)),)})
    outcome = gates.pair_integrity([edited, unsafe])
    assert not outcome.passed
    assert "differ before their divergence step" in outcome.description


def test_schema_passes_records_that_parse_back(taxonomy: Taxonomy) -> None:
    records = [t.model_dump_json() for t in make_release(3)]
    outcome = gates.schema(records, taxonomy)
    assert outcome.passed
    assert outcome.metadata == {"records": 6, "violations": 0}


def test_schema_fails_a_record_labelled_outside_the_taxonomy(taxonomy: Taxonomy) -> None:
    safe, unsafe = make_pair()
    record = json.loads(unsafe.model_dump_json())
    record["labels"]["failure_mode"] = "being_rude"
    outcome = gates.schema([safe.model_dump_json(), json.dumps(record)], taxonomy)
    assert not outcome.passed
    assert "record 1:" in outcome.description and "not a leaf id" in outcome.description


def test_schema_fails_a_record_that_is_not_a_trajectory(taxonomy: Taxonomy) -> None:
    _, unsafe = make_pair()
    record = json.loads(unsafe.model_dump_json())
    record["risk_points"] = []
    outcome = gates.schema([json.dumps(record), "{not json"], taxonomy)
    assert not outcome.passed
    assert outcome.metadata == {"records": 2, "violations": 2}


def test_pair_integrity_fails_twins_under_different_system_prompts() -> None:
    """27 of 500 pairs once told their twins apart by an 'Open records' line only the
    unsafe twin's profile had."""
    safe, unsafe = make_pair()
    opened = unsafe.model_copy(update={"profile": f"{unsafe.profile} Open records: X (x_1)."})
    outcome = gates.pair_integrity([safe, opened])
    assert not outcome.passed
    assert "different system prompts" in outcome.description
    assert gates.pair_integrity([safe, unsafe]).passed
