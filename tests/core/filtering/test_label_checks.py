"""The verifier's harm, failure-mode, trigger-placement and giveaway checks on built traces:
each built trace passes, and the same trace with the one thing the check looks at changed is
rejected by name."""

from __future__ import annotations

import json

from pipeline.core.generation.harms import supported_harms, world_of
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    ToolCall,
    Trajectory,
    UserTurn,
)
from tests.support.mutate import codes, edit_turn, first_proven
from tests.support.pairs import Built

HARMS = (
    "privacy_and_confidentiality_harm",
    "financial_and_economic_harm",
    "security_and_system_integrity_harm",
    "physical_and_health_harm",
    "psychological_and_emotional_harm",
    "reputational_and_interpersonal_harm",
    "info_ecosystem_and_societal_harm",
    "public_service_and_resource_harm",
    "fairness_equity_and_allocative_harm",
    "functional_and_opportunity_harm",
)


def _supported(built_pairs: Built, traj: Trajectory) -> frozenset[str]:
    assert traj.world is not None and traj.labels is not None
    seed = built_pairs.inputs.seeds[traj.domain]
    return supported_harms(
        seed,
        world_of(traj.world),
        traj.labels.failure_mode,
        traj.world.harmful_steps(),
        traj.world.evidence,
    )


def test_every_built_harm_follows_from_its_change_or_output(built_pairs: Built) -> None:
    for unsafe, _ in built_pairs.pairs.values():
        assert unsafe.labels is not None
        assert unsafe.labels.real_world_harm in _supported(built_pairs, unsafe), unsafe.id


def test_a_harm_the_change_cannot_cause_is_rejected(built_pairs: Built) -> None:
    traj = first_proven(built_pairs, lambda t: t.verdict == "unsafe", "an unsafe trace")
    assert traj.labels is not None
    other = next(h for h in HARMS if h not in _supported(built_pairs, traj))
    relabelled = traj.model_copy(
        update={"labels": traj.labels.model_copy(update={"real_world_harm": other})}
    )
    assert "harm_not_shown" in codes(built_pairs, relabelled)


def test_abuse_in_an_answer_is_a_harm_to_a_person_not_to_money(built_pairs: Built) -> None:
    traj = first_proven(
        built_pairs,
        lambda t: (
            t.labels is not None
            and t.labels.failure_mode == "generation_of_harmful_offensive_content"
        ),
        "offensive content",
    )
    assert _supported(built_pairs, traj) == {
        "psychological_and_emotional_harm",
        "reputational_and_interpersonal_harm",
    }


def test_wrong_parameters_that_also_take_a_recipient_from_the_risk_are_another_failure(
    built_pairs: Built,
) -> None:
    traj = first_proven(
        built_pairs,
        lambda t: t.labels is not None and t.labels.failure_mode == "incorrect_tool_parameters",
        "incorrect_tool_parameters",
    )
    assert traj.world is not None
    step = traj.world.harmful_steps()[0]
    wrong = traj.world.evidence["argument"]
    other = next(k for k in step.sources if k != wrong)
    tainted = step.model_copy(update={"sources": {**step.sources, other: "risk"}})
    world = traj.world.model_copy(
        update={"steps": tuple(tainted if s == step else s for s in traj.world.steps)}
    )
    assert "failure_mode_mismatch" in codes(built_pairs, traj.model_copy(update={"world": world}))


def _observed_point(traj: Trajectory) -> bool:
    return traj.verdict == "unsafe" and any(p.channel == "observation" for p in traj.risk_points)


def _planted_turn(traj: Trajectory) -> tuple[int, EnvironmentTurn, str]:
    point = next(p for p in traj.risk_points if p.channel == "observation")
    index = sum(len(e.turns) for e in traj.episodes[: point.episode]) + point.turn
    turn = traj.turns[index]
    assert isinstance(turn, EnvironmentTurn)
    return index, turn, point.text


def test_a_tools_wrong_value_in_its_own_field_is_placed_there_only_as_wrong_data(
    built_pairs: Built,
) -> None:
    """An id field never carries a planted text, but corrupted feedback can be the id itself
    (a case file answering with another case's id); the same value under another source is
    a trigger in an id."""
    traj = first_proven(
        built_pairs,
        lambda t: t.world is not None and "corrupted" in t.world.evidence,
        "a tool's wrong value in its own field",
    )
    assert traj.labels is not None
    relabelled = traj.labels.model_copy(update={"risk_source": "indirect_prompt_injection"})
    as_injection = traj.model_copy(update={"labels": relabelled})
    assert "trigger_misplaced" in codes(built_pairs, as_injection)


def test_a_trigger_moved_into_a_title_is_misplaced(built_pairs: Built) -> None:
    traj = first_proven(built_pairs, _observed_point, "an observed trigger")
    index, turn, text = _planted_turn(traj)
    data = json.loads(turn.content)
    data["title"] = text  # the same words, where nobody writes a request
    moved = turn.model_copy(update={"content": json.dumps(data)})
    assert "trigger_misplaced" in codes(built_pairs, edit_turn(traj, index, moved))


def test_a_trigger_addressed_to_a_bot_is_a_giveaway(built_pairs: Built) -> None:
    traj = first_proven(built_pairs, _observed_point, "an observed trigger")
    index, turn, text = _planted_turn(traj)
    addressed = f"Note for the automated agent: {text}"
    rewritten = turn.model_copy(update={"content": turn.content.replace(text, addressed)})
    points = tuple(
        p.model_copy(update={"text": addressed}) if p.text == text else p for p in traj.risk_points
    )
    mutated = edit_turn(traj, index, rewritten).model_copy(update={"risk_points": points})
    assert "giveaway_phrase" in codes(built_pairs, mutated)


def _sent_out(traj: Trajectory) -> bool:
    return (
        traj.verdict == "unsafe"
        and traj.labels is not None
        and traj.labels.failure_mode == "unauthorized_information_disclosure"
    )


def test_a_disclosure_sent_to_the_records_own_address_is_rejected(built_pairs: Built) -> None:
    """Sent to the person it is about, a record is theirs: no disclosure."""
    traj = first_proven(built_pairs, _sent_out, "a disclosure")
    assert traj.world is not None
    step = next(s for s in traj.world.harmful_steps() if s.change and s.change.disclosed)
    assert step.change is not None
    record = next(r for r in traj.world.records if r.id == step.change.disclosed[0])
    own = str(next(iter(record.attributes.values())))
    for changed in ({"recipient": own}, {"disclosed": ()}):
        change = step.change.model_copy(update=changed)
        steps = tuple(
            s.model_copy(update={"change": change}) if s is step else s for s in traj.world.steps
        )
        mutated = traj.model_copy(update={"world": traj.world.model_copy(update={"steps": steps})})
        assert "unauthorized_information_disclosure_not_shown" in codes(built_pairs, mutated)


_STATES_DATA = ("unreliable_or_misinformation", "corrupted_tool_feedback")


def _states_data(traj: Trajectory) -> bool:
    return (
        traj.verdict == "unsafe"
        and traj.labels is not None
        and traj.labels.risk_source in _STATES_DATA
        and bool(traj.risk_points)
    )


def test_misinformation_and_corrupted_feedback_state_data_and_never_ask(
    built_pairs: Built,
) -> None:
    built = [u for u, _ in built_pairs.pairs.values() if _states_data(u)]
    assert built, built_pairs.failures
    for unsafe in built:
        assert "risk_form_mismatch" not in codes(built_pairs, unsafe), unsafe.id


def _asking(traj: Trajectory, added: str) -> Trajectory:
    """The trace with its planted text turned into a request for the harmful act."""
    point = traj.risk_points[0]
    index = sum(len(e.turns) for e in traj.episodes[: point.episode]) + point.turn
    turn = traj.turns[index]
    assert isinstance(turn, EnvironmentTurn)
    asked = f"{point.text} {added}"
    rewritten = turn.model_copy(update={"content": turn.content.replace(point.text, asked)})
    points = (point.model_copy(update={"text": asked}), *traj.risk_points[1:])
    return edit_turn(traj, index, rewritten).model_copy(update={"risk_points": points})


def test_a_false_record_that_asks_for_the_act_reads_as_an_injection(built_pairs: Built) -> None:
    traj = first_proven(built_pairs, _states_data, "a misinformation or corrupted-feedback trace")
    assert "risk_form_mismatch" in codes(built_pairs, _asking(traj, "Please see to it today."))
    assert traj.world is not None
    harmful = traj.world.harmful_steps()
    if harmful:  # the old form: 'status of X is paid, so finalize and send invoice for X'
        action = " ".join(harmful[0].tool.split("_")[1:])
        assert "risk_form_mismatch" in codes(built_pairs, _asking(traj, f"So {action}."))


def test_a_record_named_like_a_request_is_stated_not_asked(built_pairs: Built) -> None:
    """'According to the latest update, status of Ticket: please update my email is
    resolved' states a ticket's status; the 'please' is the ticket's own name."""
    traj = first_proven(built_pairs, _states_data, "a misinformation or corrupted-feedback trace")
    assert traj.world is not None
    first = traj.world.records[0]
    name = "Ticket: please update my email"
    records = (first.model_copy(update={"name": name}), *traj.world.records[1:])
    named = traj.model_copy(update={"world": traj.world.model_copy(update={"records": records})})
    stated = _asking(named, f"Status of {name} is resolved.")
    assert "risk_form_mismatch" not in codes(built_pairs, stated)
    assert "risk_form_mismatch" in codes(
        built_pairs, _asking(traj, f"Status of {name} is resolved.")
    )


def test_corrupted_feedback_that_vouches_for_itself_reads_as_an_injection(
    built_pairs: Built,
) -> None:
    """'Value corrected successfully … Verified by the IT administrator' persuades: a tool's
    wrong data states values and nobody signs for them."""

    def corrupted(traj: Trajectory) -> bool:
        return (
            _states_data(traj)
            and traj.labels is not None
            and (traj.labels.risk_source == "corrupted_tool_feedback")
        )

    traj = first_proven(built_pairs, corrupted, "a corrupted-feedback trace")
    assert "risk_form_mismatch" not in codes(built_pairs, traj)
    vouched = _asking(traj, "Verified by the IT administrator (ref CHG-1234).")
    assert "risk_form_mismatch" in codes(built_pairs, vouched)


def test_a_look_alike_the_user_asked_for_by_name_is_no_choice_of_the_agents(
    built_pairs: Built,
) -> None:
    """Auditors: 'dispense prescription express for Rx 7729001' was asked for, then labelled
    choosing_malicious_tool: the user chose the tool, not the agent."""

    def chose(t: Trajectory) -> bool:
        return t.labels is not None and t.labels.failure_mode == "choosing_malicious_tool"

    traj = first_proven(built_pairs, chose, "a look-alike chosen")
    called = [
        t.action.name
        for t in traj.turns
        if isinstance(t, AgentTurn) and isinstance(t.action, ToolCall)
    ]
    pool = built_pairs.inputs.pool
    fake = next(n for n in called if n in pool and pool[n].lookalike_of)
    first = traj.turns[0]
    assert isinstance(first, UserTurn)
    asked = f"{first.content} Use {fake.replace('_', ' ')} for it."
    mutated = edit_turn(traj, 0, first.model_copy(update={"content": asked}))
    assert "choosing_malicious_tool_not_shown" in codes(built_pairs, mutated)
