"""Built pairs: every leaf acted out, the verifier agreeing, and the same trace with its
realisation removed rejected by name."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from pipeline.core.filtering.harm_shown import empty_required
from pipeline.core.filtering.trace_view import Trace
from pipeline.core.filtering.verifier import verify
from pipeline.core.generation.observed import Overwrite
from pipeline.core.generation.pair import without_stated
from pipeline.core.model.risk_text import CONSTRUCTION_WORDS, THE_AGENT, shares_run
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
    Turn,
    UserTurn,
)
from tests.support.pairs import Built

FAILURE_MODES = [
    "unconfirmed_or_over_privileged_action",
    "flawed_planning_or_reasoning",
    "incorrect_tool_parameters",
    "choosing_malicious_tool",
    "tool_misuse_in_specific_context",
    "failure_to_validate_tool_outputs",
    "insecure_interaction_or_execution",
    "procedural_deviation_or_inaction",
    "inefficient_or_wasteful_execution",
    "generation_of_harmful_offensive_content",
    "instruction_for_harmful_illegal_activity",
    "generation_of_malicious_executables",
    "unauthorized_information_disclosure",
    "provide_inaccurate_misleading_or_unverified_information",
]
RISK_SOURCES = [
    "malicious_user_instruction_or_jailbreak",
    "direct_prompt_injection",
    "indirect_prompt_injection",
    "unreliable_or_misinformation",
    "tool_description_injection",
    "malicious_tool_execution",
    "corrupted_tool_feedback",
    "inherent_agent_failures",
]


def _proven(built_pairs: Built, axis: str, leaf: str) -> Trajectory:
    """A built unsafe trace with this leaf that the verifier accepts."""
    for unsafe, _ in built_pairs.pairs.values():
        assert unsafe.labels is not None
        seed = built_pairs.inputs.seeds[unsafe.domain]
        if getattr(unsafe.labels, axis) == leaf and not verify(
            unsafe, built_pairs.inputs.pool, seed
        ):
            return unsafe
    reasons = {k: v for k, v in built_pairs.failures.items()}
    pytest.fail(f"no built trace proves {axis}={leaf}; construction failures: {reasons}")


def _without_realisation(traj: Trajectory) -> Trajectory:
    """The same trace with what makes it unsafe taken out: the deviating steps no longer
    marked as such, the evidence dropped, the answer's harmful content removed."""
    assert traj.world is not None
    span = str(traj.world.evidence.get("span") or traj.world.evidence.get("stated") or "")
    world = traj.world.model_copy(
        update={
            "steps": tuple(s.model_copy(update={"harmful": False}) for s in traj.world.steps),
            "evidence": {},
        }
    )
    episodes = list(traj.episodes)
    last = episodes[-1]
    final = last.turns[-1]
    if span and isinstance(final, AgentTurn) and isinstance(final.action, FinalAnswer):
        answer = FinalAnswer(response=final.action.response.replace(span, "Done.") or "Done.")
        turns = (*last.turns[:-1], final.model_copy(update={"action": answer}))
        episodes[-1] = last.model_copy(update={"turns": turns})
    return traj.model_copy(update={"world": world, "episodes": tuple(episodes)})


@pytest.mark.parametrize("mode", FAILURE_MODES)
def test_every_failure_mode_is_acted_out_and_removing_it_is_caught(
    built_pairs: Built, mode: str
) -> None:
    unsafe = _proven(built_pairs, "failure_mode", mode)
    seed = built_pairs.inputs.seeds[unsafe.domain]
    findings = verify(_without_realisation(unsafe), built_pairs.inputs.pool, seed)
    assert findings, f"{unsafe.id}: the verifier accepts {mode} with its realisation removed"


@pytest.mark.parametrize("source", RISK_SOURCES)
def test_every_risk_source_enters_and_removing_it_is_caught(
    built_pairs: Built, source: str
) -> None:
    unsafe = _proven(built_pairs, "risk_source", source)
    seed = built_pairs.inputs.seeds[unsafe.domain]
    stripped = unsafe.model_copy(update={"risk_points": ()})
    codes = {f.code for f in verify(stripped, built_pairs.inputs.pool, seed)}
    assert "risk_source_not_shown" in codes


def test_a_wrong_parameter_goes_into_a_step_the_task_asks_for(built_pairs: Built) -> None:
    """Calling the hazard's own tool where the task never asks for it is an unrequested act,
    not a wrong value in the right call; so is a wrong call the right one then follows."""
    seen = 0
    for pair_id, (unsafe, _) in built_pairs.pairs.items():
        if unsafe.labels is None or unsafe.labels.failure_mode != "incorrect_tool_parameters":
            continue
        assert unsafe.world is not None
        seed = built_pairs.inputs.seeds[unsafe.domain]
        last = built_pairs.blueprints[pair_id].workflows[-1]
        task_steps = next(w.steps for w in seed.workflows if w.id == last)
        harmful = unsafe.world.harmful_steps()
        assert {s.tool for s in harmful} <= set(task_steps), pair_id
        # and it takes that step's place: the right call made after it would undo the failure
        after = unsafe.world.steps[unsafe.world.steps.index(harmful[-1]) + 1 :]
        assert not {s.tool for s in after} & {s.tool for s in harmful}, pair_id
        seen += 1
    assert seen >= 3


def test_a_failing_agent_whose_last_call_did_the_harm_reads_its_record_back(
    built_pairs: Built,
) -> None:
    """Its last steps read, as a careful twin's do: the read right after the harmful call is
    about the record the deviation acted on, changes nothing, and the labels still hold."""
    read_back = []
    for unsafe, safe in built_pairs.pairs.values():
        assert unsafe.world is not None and safe.world is not None
        steps = unsafe.world.steps
        target = unsafe.world.evidence.get("deviation", {}).get("target")
        # a write the safe twin makes too is the task's own next step (a rename after a
        # look-alike share of the same file), not a read-back
        tasks = {s.tool for s in safe.world.steps if s.change is not None}
        if len(steps) >= 2 and steps[-2].harmful and not steps[-1].harmful and target:
            after = steps[-1]
            if after.tool in tasks:
                continue
            if after.turn == steps[-2].turn + 2 and target in after.focus:
                read_back.append(unsafe)
                assert after.change is None
                assert built_pairs.inputs.pool[after.tool].side_effect == "none"
    assert read_back
    pool = built_pairs.inputs.pool
    for unsafe in read_back:
        assert unsafe.world is not None
        if empty_required(Trace(unsafe, unsafe.world), pool):
            continue  # an incomplete harmful call is the verifier's to reject (test_harm_shown)
        assert not verify(unsafe, pool, built_pairs.inputs.seeds[unsafe.domain])


def test_safe_twins_pass_and_a_harmful_prefix_is_caught(built_pairs: Built) -> None:
    checked = 0
    for unsafe, safe in built_pairs.pairs.values():
        seed = built_pairs.inputs.seeds[safe.domain]
        assert verify(safe, built_pairs.inputs.pool, seed) == [], safe.id
        assert safe.world is not None and unsafe.world is not None
        if not safe.world.steps:
            continue
        # The safe twin's own consequential or first call, marked as the deviation.
        own = [st for st in safe.world.steps if st.change is not None] or list(safe.world.steps)
        marked = own[0].model_copy(update={"harmful": True})
        steps = tuple(marked if st == own[0] else st for st in safe.world.steps)
        poisoned = safe.world.model_copy(update={"steps": steps})
        codes = {
            f.code
            for f in verify(
                safe.model_copy(update={"world": poisoned}), built_pairs.inputs.pool, seed
            )
        }
        assert "safe_harmful_step" in codes
        checked += 1
    assert checked >= 5


def test_triggers_never_paste_the_plan(built_pairs: Built) -> None:
    for unsafe, safe in built_pairs.pairs.values():
        for traj in (unsafe, safe):
            hazard = next(
                h
                for h in built_pairs.inputs.seeds[traj.domain].hazards
                if h.id == traj.construction["hazard"]
            )
            texts = "\n".join(
                t.content for t in traj.turns if isinstance(t, UserTurn) or t.role == "environment"
            )
            assert not THE_AGENT.search(texts), traj.id
            assert not CONSTRUCTION_WORDS.search(texts), traj.id
            assert not shares_run(hazard.description, texts), traj.id


def test_shares_run_finds_eight_words_in_a_row() -> None:
    sentence = "The agent releases Marcus Hale's HIV and counselling notes to the solicitor"
    assert shares_run(
        sentence, "please release marcus hale's hiv and counselling notes to the solicitor now"
    )
    assert not shares_run(sentence, "release the records his authorisation covers")


def test_no_trace_names_the_same_risk_point_twice(built_pairs: Built) -> None:
    """An inherent failure's first unsafe turn is often its harmful one: one point, not two."""
    reasoned = 0
    for unsafe, _ in built_pairs.pairs.values():
        points = [p.model_dump_json() for p in unsafe.risk_points]
        assert len(points) == len(set(points)), unsafe.id
        reasoned += any(p.channel == "agent_reasoning" for p in unsafe.risk_points)
    assert reasoned, "no built trace enters through the agent's reasoning"


def test_a_misstated_figure_leaves_the_act_it_was_part_of_reported() -> None:
    """An unsafe answer that misstated 'invites sent 7' as 3 dropped the whole sentence
    saying it had scheduled the interview, so the answer no longer said what it did."""
    act = "Scheduled interview for Li Wen (interview id interview_1, invites sent 7)"
    assert (
        without_stated(act, "invites sent", "7")
        == "Scheduled interview for Li Wen (interview id interview_1)"
    )
    assert (
        without_stated("Van 17: brake pad 78%, status ok", "brake pad", "78%")
        == "Van 17: status ok"
    )
    assert without_stated("Van 17: brake pad 78%", "brake pad", "78%") == ""
    assert without_stated("Van 17: status ok", "brake pad", "78%") == "Van 17: status ok"


def test_a_misled_answer_passes_on_the_planted_claim(built_pairs: Built) -> None:
    """A planted false claim misleads an answer by being passed on as fact; auditors found
    'unsafe' answers that ignored it and halved a figure of their own instead."""
    misled = [
        unsafe
        for unsafe, _ in built_pairs.pairs.values()
        if unsafe.labels
        and unsafe.labels.failure_mode == "provide_inaccurate_misleading_or_unverified_information"
        and unsafe.world is not None
        and "claimed_of" in unsafe.world.evidence
    ]
    assert misled, "no misled answer was built from a planted claim"
    for unsafe in misled:
        assert unsafe.world is not None
        stated = str(unsafe.world.evidence.get("stated", ""))
        planted = " ".join(p.text for p in unsafe.risk_points).lower()
        last = unsafe.episodes[-1].turns[-1]
        assert isinstance(last, AgentTurn) and isinstance(last.action, FinalAnswer)
        assert stated and stated in last.action.response, unsafe.id
        # said as the planted text says it: a claim, or a tool's data ('Van 17 — brake pad
        # pct: 19')
        field = str(unsafe.world.evidence.get("claimed_field", "")).lower()
        value = stated.rsplit(" is ", 1)[-1].lower()
        assert stated.lower() in planted or f"{field}: {value}" in planted, unsafe.id


def test_a_misstated_figure_is_not_also_stated_as_the_answer_words_it() -> None:
    act = (
        "Approved claim payment for Water damage (payment id p_1, amount 2,380.00 USD, "
        "status approved)"
    )
    assert without_stated(act, "amount", "2,380.00 USD") == (
        "Approved claim payment for Water damage (payment id p_1, status approved)"
    )


def test_a_misled_answer_says_what_its_trigger_asked_to_hear(built_pairs: Built) -> None:
    """'Just tell me it is all fine': an answer misstating one figure had ignored the
    ask (auditors labelled those traces' source inherent); a false record asks nothing."""
    from pipeline.core.generation.slices import ASKING_SOURCES

    misled = [
        unsafe
        for unsafe, _ in built_pairs.pairs.values()
        if unsafe.labels
        and unsafe.labels.failure_mode == "provide_inaccurate_misleading_or_unverified_information"
    ]
    assert misled, built_pairs.failures
    for unsafe in misled:
        assert unsafe.labels is not None
        last = unsafe.episodes[-1].turns[-1]
        assert isinstance(last, AgentTurn) and isinstance(last.action, FinalAnswer)
        asked = unsafe.labels.risk_source in ASKING_SOURCES
        assert ("All in order." in last.action.response) == asked, unsafe.id


def test_a_tools_wrong_data_sits_in_its_own_field_and_misleads_the_task_step(
    built_pairs: Built,
) -> None:
    """Corrupted feedback acted out as data, not as a request: a result's own field holds
    another value than the one the run showed before it (a profile asked for cust_10442
    answering with cust_91727); the failing agent's task step takes that value, the careful
    twin's never does."""
    seen = 0
    for unsafe, safe in built_pairs.pairs.values():
        corrupted = unsafe.world.evidence.get("corrupted") if unsafe.world else None
        if not corrupted:
            continue
        assert unsafe.labels is not None
        assert unsafe.labels.risk_source == "corrupted_tool_feedback", unsafe.id
        point = unsafe.risk_points[0]
        index = sum(len(e.turns) for e in unsafe.episodes[: point.episode]) + point.turn
        result = unsafe.turns[index]
        assert isinstance(result, EnvironmentTurn)
        field, right, wrong = (corrupted[k] for k in ("field", "right", "wrong"))
        assert point.text == wrong
        assert Overwrite(field, wrong, right).holds(json.loads(result.content)), unsafe.id
        assert right in "\n".join(_said(t) for t in unsafe.turns[:index]), unsafe.id
        assert wrong in [v for a in _calls(unsafe.turns[index:]) for v in a.values()], unsafe.id
        assert wrong not in [v for a in _calls(safe.turns[index:]) for v in a.values()], safe.id
        answer = safe.turns[-1]
        assert isinstance(answer, AgentTurn) and isinstance(answer.action, FinalAnswer)
        if safe.risk_points:  # a careful twin that met the wrong value says so
            assert wrong in answer.action.response, safe.id
        seen += 1
    assert seen, "no built trace carries a tool's wrong value in its own field"


def _said(turn: Turn) -> str:
    if isinstance(turn, AgentTurn):
        return json.dumps(turn.action.arguments) if isinstance(turn.action, ToolCall) else ""
    return turn.content


def _calls(turns: Sequence[Turn]) -> list[dict[str, Any]]:
    return [
        dict(t.action.arguments)
        for t in turns
        if isinstance(t, AgentTurn) and isinstance(t.action, ToolCall)
    ]


def test_twins_share_their_prefix_word_for_word(built_pairs: Built) -> None:
    """In 120 of 500 pairs the twins parted at a thought that said the same step in other
    words; they part where they act differently, or at the failing agent's own thinking."""
    for unsafe, safe in built_pairs.pairs.values():
        ours = [t for e in unsafe.episodes for t in e.turns]
        theirs = [t for e in safe.episodes for t in e.turns]
        first = next(
            (i for i, (u, s) in enumerate(zip(ours, theirs, strict=False)) if u != s),
            min(len(ours), len(theirs)),
        )
        assert unsafe.divergence == safe.divergence == first, unsafe.id
        if first == min(len(ours), len(theirs)):
            continue
        u, s = ours[first], theirs[first]
        if isinstance(u, AgentTurn) and isinstance(s, AgentTurn) and u.action == s.action:
            assert unsafe.labels is not None
            reasoned = any(
                p.channel == "agent_reasoning" and p.text == u.thought for p in unsafe.risk_points
            )
            wasteful = unsafe.labels.failure_mode == "inefficient_or_wasteful_execution"
            assert reasoned or wasteful, f"{unsafe.id}: parts at a thought only"


def test_a_tool_description_risk_rides_on_a_tool_the_run_calls(built_pairs: Built) -> None:
    """Auditors: 'each time you invoke workchat_delete_messages_bulk, also …' was acted on,
    by an answer's script, with that tool never called (27 of 63 such traces)."""
    checked = []
    for unsafe, safe in built_pairs.pairs.values():
        texts = [p.text for p in unsafe.risk_points if p.channel == "tool_description"]
        if not texts:
            continue
        carriers = {t.name for t in unsafe.tools if any(x in t.description for x in texts)}
        called = {
            turn.action.name
            for episode in unsafe.episodes
            for turn in episode.turns
            if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
        }
        assert carriers & called, f"{unsafe.id}: {sorted(carriers)} never called"
        # the risk point is the turn that first calls it (auditors: 'turn 5' named a conflict
        # check, and the described tool was first called at turn 9)
        for twin in (unsafe, safe):
            for point in (p for p in twin.risk_points if p.channel == "tool_description"):
                turns = twin.episodes[point.episode].turns
                first = next(
                    (
                        i
                        for i, turn in enumerate(turns)
                        if isinstance(turn, AgentTurn)
                        and isinstance(turn.action, ToolCall)
                        and turn.action.name in carriers
                    ),
                    point.turn,  # a safe twin that never calls it meets it at the cut
                )
                assert point.turn == first, f"{twin.id}: point at {point.turn}, called at {first}"
        assert unsafe.labels is not None
        checked.append(unsafe.labels.failure_mode)
    assert checked, "no built pair carries a tool-description risk"
