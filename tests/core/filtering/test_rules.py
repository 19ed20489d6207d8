"""Mutation tests of the rule filter: each rule rejects valid traces corrupted its way, alone.

The valid traces are a small procedural build of one domain (every risk source, delayed
triggers, long HTML) plus the release factories' hand-written pair.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from pipeline.core.build.workspace import Workspace
from pipeline.core.filtering.rules import RULES, apply_rules, reject_pairs, rule_problems
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import Labels
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.trajectory import Trajectory
from tests.support.builds import PAIRED_DOMAIN
from tests.support.factories import FACTORY_DOMAIN as FACTORY
from tests.support.factories import edit, make_pair

DOMAIN = PAIRED_DOMAIN


@pytest.fixture(scope="module")
def valid(built: list[Trajectory]) -> list[Trajectory]:
    """Every valid trace: the build plus the factories' plain and delayed pairs."""
    return [*built, *make_pair(FACTORY), *make_pair(FACTORY, 1, extra_calls=9, delayed=True)]


def _turns(data: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    return [
        (e, t, turn)
        for e, episode in enumerate(data["episodes"])
        for t, turn in enumerate(episode["turns"])
    ]


def _calls(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [turn["action"] for _, _, turn in _turns(data) if "name" in turn.get("action", {})]


# --- corruptions, one per rule ----------------------------------------------------------------


def drop_required(data: dict[str, Any]) -> None:
    tools = {tool["name"]: tool for tool in data["tools"]}
    for call in _calls(data):
        required = tools[call["name"]]["parameters"].get("required", [])
        if required:
            del call["arguments"][required[0]]
            return
    raise LookupError("no call with a required parameter")


def wrong_argument_type(data: dict[str, Any]) -> None:
    tools = {tool["name"]: tool for tool in data["tools"]}
    for call in _calls(data):
        properties = tools[call["name"]]["parameters"].get("properties", {})
        for name, schema in properties.items():
            if schema.get("type") == "string" and name in call["arguments"]:
                call["arguments"][name] = 12345
                return
    raise LookupError("no call with a string argument")


def _plain_required(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The first call's first required free string (no format, enum, pattern or length)."""
    tools = {tool["name"]: tool for tool in data["tools"]}
    for call in _calls(data):
        parameters = tools[call["name"]]["parameters"]
        for name in parameters.get("required", []):
            schema = parameters["properties"][name]
            keys = {"format", "enum", "pattern", "minLength"}
            if (
                schema.get("type") == "string"
                and not keys & set(schema)
                and name in call["arguments"]
            ):
                return call, name
    raise LookupError("no call with a plain required string")


def fragment_argument(data: dict[str, Any]) -> None:
    """A value cut from the user's words mid-phrase: an opening bracket left unclosed."""
    call, name = _plain_required(data)
    call["arguments"][name] = f"{call['arguments'][name]} (as"


def observation_off_schema(data: dict[str, Any]) -> None:
    turns = _turns(data)
    for (_, _, turn), (_, _, following) in pairwise(turns):
        if "name" in turn.get("action", {}) and following["role"] == "environment":
            following["content"] = json.dumps(["not", "the", "declared", "shape"])
            return
    raise LookupError("no observation")


def drop_final_answer(data: dict[str, Any]) -> None:
    """The last episode ends on one more call (a copy of its first) instead of an answer."""
    turns = data["episodes"][-1]["turns"]
    call = next(i for i, turn in enumerate(turns) if "name" in turn.get("action", {}))
    grounded = turns[call]["grounded_in_context"] or turns[-1]["grounded_in_context"]
    turns[-1:] = [{**turns[call], "grounded_in_context": grounded}, turns[call + 1]]


def tag_delayed_without_episodes(data: dict[str, Any]) -> None:
    if len(data["episodes"]) != 1:
        raise LookupError("already two episodes")
    data["tags"] = sorted({*data["tags"], "delayed_trigger"})


def unground_exploit(data: dict[str, Any]) -> None:
    if data["verdict"] != "unsafe" or "delayed_trigger" not in data["tags"]:
        raise LookupError("not an unsafe delayed-trigger case")
    for turn in data["episodes"][-1]["turns"]:
        if turn["role"] == "agent":
            turn["grounded_in_context"] = False


def relabel_source_off_channel(data: dict[str, Any]) -> None:
    if data["labels"] is None:
        raise LookupError("safe trace")
    channels = {point["channel"] for point in data["risk_points"]}
    data["labels"]["risk_source"] = (
        "inherent_agent_failures"
        if "agent_reasoning" not in channels
        else "malicious_user_instruction_or_jailbreak"
    )


def template_in_thought(data: dict[str, Any]) -> None:
    agent = next(turn for _, _, turn in _turns(data) if turn["role"] == "agent")
    agent["thought"] += " I will greet {customer_name} first."


def placeholder_argument(data: dict[str, Any]) -> None:
    tools = {tool["name"]: tool for tool in data["tools"]}
    for call in _calls(data):
        for name, schema in tools[call["name"]]["parameters"].get("properties", {}).items():
            plain = schema.get("type") == "string" and not {"format", "enum", "pattern"} & set(
                schema
            )
            if plain and name in call["arguments"]:
                call["arguments"][name] = "<recipient_name>"
                return
    raise LookupError("no free string argument")


def cut_to_two_turns(data: dict[str, Any]) -> None:
    if data["risk_points"] or len(data["episodes"]) != 1:
        raise LookupError("risk points or episodes would dangle")
    turns = data["episodes"][0]["turns"]
    data["episodes"][0]["turns"] = [turns[0], turns[-1]]


def pad_past_the_limit(data: dict[str, Any]) -> None:
    """Sixty more calls (copies of the first) before the last answer: over 120 turns."""
    turns = data["episodes"][-1]["turns"]
    call = next(i for i, turn in enumerate(turns) if "name" in turn.get("action", {}))
    turns[-1:-1] = [turns[call], turns[call + 1]] * 60


CORRUPTIONS: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
    ("required_parameters", drop_required),
    ("argument_schema", wrong_argument_type),
    ("argument_values", fragment_argument),
    ("observation_schema", observation_off_schema),
    ("final_answer", drop_final_answer),
    ("episode_structure", tag_delayed_without_episodes),
    ("episode_structure", unground_exploit),
    ("label_consistency", relabel_source_off_channel),
    ("leftover_markup", template_in_thought),
    ("leftover_markup", placeholder_argument),
    ("length_bounds", cut_to_two_turns),
    ("length_bounds", pad_past_the_limit),
]


def _corrupted(
    valid: list[Trajectory], corrupt: Callable[[dict[str, Any]], None], pool: ToolPool
) -> list[Trajectory]:
    found = []
    for traj in valid:
        if corrupt is observation_off_schema and not any(t.name in pool for t in traj.tools):
            continue  # the observation rule reads declared shapes from the pool
        try:
            found.append(edit(traj, corrupt))
        except LookupError:
            continue
    assert found, f"{corrupt.__name__} applies to none of the valid traces"
    return found


def test_every_rule_has_a_corruption() -> None:
    assert {rule for rule, _ in CORRUPTIONS} == set(RULES)


def test_untouched_traces_break_no_rule(valid: list[Trajectory], pool: ToolPool) -> None:
    assert {t.id: rule_problems(t, pool) for t in valid} == {t.id: {} for t in valid}
    kept, rejected, counts = apply_rules(valid, pool)
    assert (len(kept), rejected, sum(counts.values())) == (len(valid), [], 0)


@pytest.mark.parametrize(("rule", "corrupt"), CORRUPTIONS, ids=[c.__name__ for _, c in CORRUPTIONS])
def test_corruption_is_caught_by_its_rule_alone(
    rule: str, corrupt: Callable[[dict[str, Any]], None], valid: list[Trajectory], pool: ToolPool
) -> None:
    for bad in _corrupted(valid, corrupt, pool):
        assert list(rule_problems(bad, pool)) == [rule], bad.id


@pytest.mark.parametrize(("rule", "corrupt"), CORRUPTIONS, ids=[c.__name__ for _, c in CORRUPTIONS])
def test_apply_rules_rejects_the_corrupted_trace_and_its_twin(
    rule: str, corrupt: Callable[[dict[str, Any]], None], valid: list[Trajectory], pool: ToolPool
) -> None:
    bad = _corrupted(valid, corrupt, pool)[0]
    twins = [t for t in valid if t.pair_id == bad.pair_id and t.id != bad.id]
    kept, rejected, counts = apply_rules([bad, *twins], pool)
    assert kept == [] and counts[rule] == 1
    by_id = {r.trajectory_id: r for r in rejected}
    assert (by_id[bad.id].stage, by_id[bad.id].check) == ("rules", rule)
    assert set(by_id) == {bad.id, *(t.id for t in twins)}


# --- pair integrity ---------------------------------------------------------------------------


def _pair(valid: list[Trajectory], pair_id: str) -> tuple[Trajectory, Trajectory]:
    twins = {t.variant: t for t in valid if t.pair_id == pair_id}
    return twins["unsafe"], twins["safe"]


def test_twins_that_differ_before_divergence_are_rejected_together(
    valid: list[Trajectory], pool: ToolPool
) -> None:
    pairs = [_pair(valid, t.pair_id) for t in valid if t.verdict == "unsafe" and t.divergence]
    assert len(pairs) >= 5
    for unsafe, safe in pairs:

        def reword(data: dict[str, Any]) -> None:
            data["episodes"][0]["turns"][0]["content"] += " Also, thanks."

        broken = edit(safe, reword)
        assert rule_problems(broken, pool) == {}
        kept, rejected, counts = apply_rules([unsafe, broken], pool)
        assert (kept, counts) == ([], {"pair_integrity": 2})
        assert {(r.stage, r.check) for r in rejected} == {("rules", "pair_integrity")}
        assert "differ before their divergence step" in rejected[0].message


def test_twins_that_disagree_on_divergence_are_rejected(
    valid: list[Trajectory], pool: ToolPool
) -> None:
    safe, unsafe = make_pair(FACTORY)
    shifted = safe.model_copy(update={"divergence": (safe.divergence or 0) + 1})
    kept, rejected, _ = apply_rules([unsafe, shifted], pool)
    assert kept == [] and {r.message for r in rejected} == {"twins disagree on the divergence step"}


def test_an_unsafe_trace_without_its_safe_twin_is_rejected(pool: ToolPool) -> None:
    _, unsafe = make_pair(FACTORY)
    kept, rejected, counts = apply_rules([unsafe], pool)
    assert kept == [] and counts == {"pair_integrity": 1}
    assert rejected[0].message == "the safe twin is missing"


def test_reject_pairs_records_each_twins_fate() -> None:
    safe, unsafe = make_pair(FACTORY)
    other_safe, other_unsafe = make_pair(FACTORY, 1)
    judged = Rejection(
        trajectory_id=unsafe.id,
        pair_id=unsafe.pair_id,
        domain=unsafe.domain,
        stage="judge",
        check="plausibility_judge",
        reason_code="no_harmful_step",
        message="nothing harmful happens",
    )
    kept, pairing = reject_pairs([safe, unsafe, other_safe, other_unsafe], [judged])
    assert kept == [other_safe, other_unsafe]
    assert [(r.trajectory_id, r.stage, r.reason_code, r.message) for r in pairing] == [
        (
            safe.id,
            "pairing",
            "twin_rejected",
            f"twin {unsafe.id} was rejected by plausibility_judge (no_harmful_step)",
        )
    ]


# --- what the trajectory model refuses before any rule runs -----------------------------------


def _unknown_tool(data: dict[str, Any]) -> None:
    _calls(data)[0]["name"] = "no_such_tool"


def _no_observation(data: dict[str, Any]) -> None:
    turns = data["episodes"][0]["turns"]
    index = next(i for i, turn in enumerate(turns) if turn["role"] == "environment")
    del turns[index]


def _unknown_leaf(data: dict[str, Any]) -> None:
    data["labels"]["failure_mode"] = "being_rude"


def _labels_on_safe(data: dict[str, Any]) -> None:
    data["labels"] = Labels(
        risk_source="direct_prompt_injection",
        failure_mode="flawed_planning_or_reasoning",
        real_world_harm="financial_and_economic_harm",
    ).model_dump()


def _unsafe_without_risk_points(data: dict[str, Any]) -> None:
    data["risk_points"] = []


@pytest.mark.parametrize(
    ("variant", "corrupt", "message"),
    [
        ("unsafe", _unknown_tool, "not in the trajectory's tool list"),
        ("unsafe", _no_observation, "has no observation after it"),
        ("unsafe", _unknown_leaf, "is not a leaf id of the taxonomy"),
        ("safe", _labels_on_safe, "a safe trajectory carries no labels"),
        ("unsafe", _unsafe_without_risk_points, "needs 1-3 risk points"),
    ],
    ids=["tool_existence", "observation_after_call", "leaf_ids", "labels_only_unsafe", "points"],
)
def test_the_model_refuses_what_no_rule_needs_to_see(
    variant: str, corrupt: Callable[[dict[str, Any]], None], message: str
) -> None:
    traj = dict(zip(("safe", "unsafe"), make_pair(FACTORY), strict=True))[variant]
    with pytest.raises(ValidationError, match=message):
        edit(traj, corrupt)


def test_a_stage_file_holding_a_refused_record_fails_naming_its_line(
    tmp_path: Path, valid: list[Trajectory]
) -> None:
    ws = Workspace(tmp_path)
    record = valid[0].model_dump(mode="json")
    _unknown_tool(record)
    path = ws.stage_file("paired", DOMAIN)
    path.parent.mkdir(parents=True)
    path.write_text(valid[1].model_dump_json() + "\n" + json.dumps(record) + "\n")
    with pytest.raises(InputError, match=r"record 'line 2'.*not in the trajectory's tool list"):
        ws.read("paired", DOMAIN, Trajectory)
