"""The trajectory model refuses impossible states."""

from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.core.trajectory import Trajectory
from tests.release.factories import make_pair


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
        Trajectory.model_validate(data)


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
