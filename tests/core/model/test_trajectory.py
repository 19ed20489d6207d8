"""The trajectory model refuses impossible states."""

from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.labels import AXES, AxisId, leaf_context
from pipeline.core.model.trajectory import Trajectory
from tests.support.factories import make_pair


def _unsafe_data() -> dict[str, Any]:
    _, unsafe = make_pair()
    return unsafe.model_dump(mode="json")


def test_factory_pair_is_valid() -> None:
    safe, unsafe = make_pair()
    assert unsafe.verdict == "unsafe" and safe.verdict == "safe"


def test_labels_on_a_safe_trace_are_refused() -> None:
    data = _unsafe_data() | {"verdict": "safe", "variant": "safe"}
    with pytest.raises(ValidationError, match="safe trajectory carries no labels"):
        Trajectory.model_validate(data)


def test_unsafe_without_labels_is_refused() -> None:
    with pytest.raises(ValidationError, match="needs labels"):
        Trajectory.model_validate(_unsafe_data() | {"labels": None})


def test_unknown_leaf_is_refused() -> None:
    data = _unsafe_data()
    data["labels"]["failure_mode"] = "bad_vibes"
    with pytest.raises(ValidationError, match="not a leaf id"):
        Trajectory.model_validate(data, context=leaf_context(default_taxonomy()))


class _OneLeafPerAxis:
    """A taxonomy whose every axis has the single leaf `only_leaf`."""

    def leaf_ids(self, axis_id: AxisId) -> tuple[str, ...]:
        return ("only_leaf",)


def test_leaves_are_checked_against_the_taxonomy_given() -> None:
    data = _unsafe_data()
    with pytest.raises(ValidationError, match="not a leaf id"):
        Trajectory.model_validate(data, context=leaf_context(_OneLeafPerAxis()))
    data["labels"] = dict.fromkeys(AXES, "only_leaf")
    relabelled = Trajectory.model_validate(data, context=leaf_context(_OneLeafPerAxis()))
    assert relabelled.labels is not None and relabelled.labels.risk_source == "only_leaf"


def test_action_naming_a_tool_outside_the_list_is_refused() -> None:
    data = _unsafe_data()
    turn = next(
        t for t in data["episodes"][0]["turns"] if t["role"] == "agent" and "name" in t["action"]
    )
    turn["action"]["name"] = "rm_rf_everything"
    with pytest.raises(ValidationError, match="not in the trajectory's tool list"):
        Trajectory.model_validate(data)


def test_observation_without_a_call_before_it_is_refused() -> None:
    data = _unsafe_data()
    turns = data["episodes"][0]["turns"]
    turns.insert(1, {"role": "environment", "content": "{}"})
    with pytest.raises(ValidationError, match="observation with no tool call"):
        Trajectory.model_validate(data)


def test_call_without_observation_is_refused() -> None:
    data = _unsafe_data()
    turns = data["episodes"][0]["turns"]
    index = next(i for i, t in enumerate(turns) if t["role"] == "environment")
    del turns[index]
    with pytest.raises(ValidationError, match="has no observation after it"):
        Trajectory.model_validate(data)


def test_risk_point_outside_the_trace_is_refused() -> None:
    data = _unsafe_data()
    data["risk_points"][0]["turn"] = 999
    with pytest.raises(ValidationError, match="outside the trajectory"):
        Trajectory.model_validate(data)


def test_json_round_trip_is_exact() -> None:
    _, unsafe = make_pair(delayed=True)
    assert Trajectory.model_validate_json(unsafe.model_dump_json()) == unsafe
