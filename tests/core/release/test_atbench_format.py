"""Public ATBench rows: key order and types, export -> import round trip, lenient import."""

from __future__ import annotations

import json
from typing import Any

import pytest

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.actions import format_action, parse_action
from pipeline.core.model.errors import InputError
from pipeline.core.model.trajectory import FinalAnswer, Provenance, ToolCall, Trajectory
from pipeline.core.release.atbench_format import (
    EXTRA_KEYS,
    PUBLIC_KEYS,
    from_atbench_row,
    public_view,
    release_order,
    to_atbench_row,
)
from tests.support.factories import PROVENANCE, make_pair, make_release

IMPORTED = Provenance(release_seed=0, config_hash="import", backend="imported:atbench")


def _import(row: dict[str, Any]) -> Trajectory:
    return from_atbench_row(row, taxonomy=default_taxonomy(), provenance=IMPORTED)


def _bare_row(**overrides: Any) -> dict[str, Any]:
    """An unsafe row as the published data has it: public keys only."""
    row = {key: value for key, value in to_atbench_row(make_pair()[1], 41).items()}
    for key in EXTRA_KEYS:
        del row[key]
    row.update(overrides)
    return row


def test_row_has_public_keys_in_order_then_extras() -> None:
    safe, unsafe = make_pair()
    for traj in (safe, unsafe):
        assert tuple(to_atbench_row(traj, 3)) == PUBLIC_KEYS + EXTRA_KEYS


def test_row_types_match_the_public_format() -> None:
    safe, unsafe = make_pair(delayed=True)
    for traj in (safe, unsafe):
        row = json.loads(json.dumps(to_atbench_row(traj, 7)))
        assert type(row["id"]) is int and type(row["label"]) is int
        assert row["label"] == (1 if traj.verdict == "unsafe" else 0)
        assert all(set(tool) == {"name", "description", "parameters"} for tool in row["tool_used"])
        assert len(row["contents"]) == 2
        for turn in (turn for episode in row["contents"] for turn in episode):
            if turn["role"] == "agent":
                assert set(turn) == {"role", "thought", "action"}
                assert isinstance(parse_action(turn["action"]), ToolCall | FinalAnswer)
            else:
                assert set(turn) == {"role", "content"} and isinstance(turn["content"], str)
        assert row["subsets"] == sorted(traj.tags)


def test_safe_rows_carry_empty_strings_on_label_axes() -> None:
    row = to_atbench_row(make_pair()[0], 0)
    assert (row["risk_source"], row["failure_mode"], row["real_world_harm"]) == ("", "", "")


def test_action_strings_use_json_call_and_complete_prefix() -> None:
    call = ToolCall(name="transfer_funds", arguments={"amount": 1.5, "memo": "café"})
    assert json.loads(format_action(call)) == {
        "name": "transfer_funds",
        "arguments": call.arguments,
    }
    assert format_action(FinalAnswer(response="Done — ok")) == 'Complete{"response": "Done — ok"}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('  {"name": "t", "arguments": {"a": 1}} ', ToolCall(name="t", arguments={"a": 1})),
        ('{"name": "t", "arguments": "{\\"a\\": 1}"}', ToolCall(name="t", arguments={"a": 1})),
        ('{"name": "t"}', ToolCall(name="t")),
        ('Complete {"response": "bye"}', FinalAnswer(response="bye")),
        ('Complete"bye"', FinalAnswer(response="bye")),
    ],
)
def test_parse_action_accepts_spacing_and_encoded_arguments(
    text: str, expected: ToolCall | FinalAnswer
) -> None:
    assert parse_action(text) == expected


def test_round_trip_keeps_the_public_view() -> None:
    trajectories = [*make_release(8), *make_pair("solo", 1, extra_calls=0)]
    for public_id, traj in enumerate(release_order(trajectories)):
        back = _import(json.loads(json.dumps(to_atbench_row(traj, public_id))))
        assert public_view(back) == public_view(traj)
        assert back.id == traj.id and back.variant == traj.variant


def test_round_trip_restores_delayed_trigger_episode_kinds() -> None:
    unsafe = make_pair(delayed=True)[1]
    back = _import(to_atbench_row(unsafe, 0))
    assert [episode.kind for episode in back.episodes] == ["setup", "exploit"]


def test_bare_public_row_gets_derived_identity() -> None:
    traj = _import(_bare_row())
    assert (traj.domain, traj.pair_id, traj.id) == ("imported", "row-41", "row-41-unsafe")
    assert traj.profile == "" and traj.tags == frozenset()
    assert traj.construction == {"imported_row_id": "41"}


def test_imported_unsafe_row_gets_one_risk_point_placed_by_its_risk_source() -> None:
    # indirect prompt injection enters through an observation: the first environment turn
    traj = _import(_bare_row())
    (point,) = traj.risk_points
    assert point.channel == "observation"
    assert traj.episodes[point.episode].turns[point.turn].role == "environment"
    assert point.text == traj.reason
    # a jailbreak enters through the user's words
    jailbreak = _import(_bare_row(risk_source="malicious_user_instruction_or_jailbreak"))
    assert (jailbreak.risk_points[0].channel, jailbreak.risk_points[0].turn) == ("user_turn", 0)


def test_import_normalises_aliases_and_display_names() -> None:
    traj = _import(
        _bare_row(
            risk_source="Inherent Agent/LLM Failures",
            failure_mode="unconfirmed_or_overprivileged_action",
            real_world_harm="privacy_confidentiality_harm",
        )
    )
    assert traj.labels is not None
    assert traj.labels.model_dump() == {
        "risk_source": "inherent_agent_failures",
        "failure_mode": "unconfirmed_or_over_privileged_action",
        "real_world_harm": "privacy_and_confidentiality_harm",
    }


def test_import_ignores_labels_on_a_safe_row() -> None:
    # the model forbids labels on safe traces; some public rows still carry leftovers
    row = to_atbench_row(make_pair()[0], 0) | {"risk_source": "indirect_prompt_injection"}
    assert _import(row).labels is None


def test_import_drops_bookkeeping_keys_on_tools() -> None:
    row = _bare_row()
    row["tool_used"][0]["_source"] = "json_source"
    assert _import(row).tools[0].name == row["tool_used"][0]["name"]


@pytest.mark.parametrize(
    ("overrides", "field", "fragment"),
    [
        ({"label": 2}, "label", "0 (safe) or 1 (unsafe)"),
        ({"label": True}, "label", "0 (safe) or 1 (unsafe)"),
        ({"failure_mode": "not_a_leaf"}, "failure_mode", "not a failure_mode leaf"),
        ({"real_world_harm": ""}, "real_world_harm", "needs a leaf"),
        ({"subsets": ["long_video"]}, "subsets", "unknown subsets"),
    ],
)
def test_import_errors_name_row_and_field(
    overrides: dict[str, Any], field: str, fragment: str
) -> None:
    with pytest.raises(InputError) as caught:
        _import(_bare_row(**overrides))
    assert (caught.value.record, caught.value.field) == ("41", field)
    assert fragment in caught.value.message


def test_unparseable_action_is_located_by_episode_and_turn() -> None:
    row = _bare_row()
    row["contents"][0][1]["action"] = "transfer_funds{amount: 3}"
    with pytest.raises(InputError) as caught:
        _import(row)
    assert (caught.value.record, caught.value.field) == ("41", "contents.0.1.action")
    assert "not valid JSON" in caught.value.message


def test_model_violations_surface_as_located_input_errors() -> None:
    row = _bare_row()
    row["tool_used"] = row["tool_used"][:1]  # the trace calls tools no longer listed
    with pytest.raises(InputError) as caught:
        _import(row)
    assert caught.value.record == "41"
    assert "not in the trajectory's tool list" in caught.value.message


def test_release_order_sorts_by_uid_and_refuses_duplicates() -> None:
    safe, unsafe = make_pair()
    assert release_order([unsafe, safe]) == [safe, unsafe]
    with pytest.raises(ValueError, match="appears twice"):
        release_order([safe, unsafe, safe])


def test_factories_build_procedural_provenance() -> None:
    assert all(t.provenance == PROVENANCE for t in make_pair())
