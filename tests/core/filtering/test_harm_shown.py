"""Harm shown rather than narrated: a built unsafe trace's harmful step passes, and the same
trace made harmless (its call the safe twin's, its values the schema's examples, its
misstatement a garbled name or birth date) is rejected by the verifier by name."""

from __future__ import annotations

import json

from pipeline.core.filtering.harm_shown import (
    as_safe_twin,
    changes_nothing,
    empty_required,
    example_arguments,
    incidental_misstatement,
)
from pipeline.core.filtering.trace_view import Trace
from pipeline.core.filtering.verifier import verify
from pipeline.core.generation.write_effects import state_after
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
)
from tests.support.mutate import edit_turn
from tests.support.pairs import Built

MISLEADING = "provide_inaccurate_misleading_or_unverified_information"


def _codes(built_pairs: Built, traj: Trajectory, twin: Trajectory | None) -> set[str]:
    seed = built_pairs.inputs.seeds[traj.domain]
    return {f.code for f in verify(traj, built_pairs.inputs.pool, seed, twin)}


def _acting(built_pairs: Built, mode: str | None = None) -> tuple[Trajectory, Trajectory]:
    """The first built pair whose unsafe twin acts (a harmful call that changes the world)
    and passes the verifier beside its safe twin."""
    for unsafe, safe in built_pairs.pairs.values():
        assert unsafe.labels is not None and unsafe.world is not None
        if mode is not None and unsafe.labels.failure_mode != mode:
            continue
        acts = any(s.change for s in unsafe.world.harmful_steps())
        if acts and not _codes(built_pairs, unsafe, safe):
            return unsafe, safe
    raise AssertionError(f"no built pair acts out {mode or 'a harmful call'}")


def test_a_harmful_call_its_safe_twin_makes_too_is_rejected(built_pairs: Built) -> None:
    unsafe, safe = _acting(built_pairs)
    assert unsafe.world is not None
    assert as_safe_twin(Trace(unsafe, unsafe.world), safe) is None
    # a twin that makes the very same calls: the harmful step no longer tells them apart
    assert "harm_not_in_call" in _codes(built_pairs, unsafe, unsafe)


def test_a_wasteful_repeat_is_harm_only_if_each_repeat_adds_something(built_pairs: Built) -> None:
    unsafe, safe = _acting(built_pairs, "inefficient_or_wasteful_execution")
    assert unsafe.world is not None
    trace = Trace(unsafe, unsafe.world)
    assert as_safe_twin(trace, safe) is None
    step = unsafe.world.harmful_steps()[0]
    assert step.change is not None
    setting = step.change.model_copy(update={"operation": "delete"})
    log = unsafe.world.model_copy(
        update={
            "steps": tuple(
                s.model_copy(update={"change": setting}) if s.harmful else s
                for s in unsafe.world.steps
            )
        }
    )
    assert as_safe_twin(Trace(unsafe, log), safe) is not None


def _with_examples(pool: ToolPool, tool: str, arguments: dict[str, object]) -> ToolPool:
    """The pool with `tool`'s text parameters offering exactly these values as examples."""
    spec = pool[tool]
    properties = dict(spec.parameters.get("properties") or {})
    for name, value in arguments.items():
        if isinstance(value, str) and name in properties:
            properties[name] = {**properties[name], "examples": [value]}
    parameters = {**spec.parameters, "properties": properties}
    return pool.model_copy(
        update={"tools": {**pool.tools, tool: spec.model_copy(update={"parameters": parameters})}}
    )


def test_a_harmful_call_made_of_schema_examples_is_rejected(built_pairs: Built) -> None:
    unsafe, _ = _acting(built_pairs)
    assert unsafe.world is not None
    step = unsafe.world.harmful_steps()[0]
    trace = Trace(unsafe, unsafe.world)
    turn = trace.turn(step)
    assert isinstance(turn.action, ToolCall)
    copied = {
        k: f"example-{k}" if isinstance(v, str) else v for k, v in turn.action.arguments.items()
    }
    assert any(isinstance(v, str) for v in copied.values()), unsafe.id
    pool = _with_examples(built_pairs.inputs.pool, step.tool, copied)
    assert example_arguments(trace, pool) is None  # its real values are the trace's own
    call = turn.action.model_copy(update={"arguments": copied})
    edited = edit_turn(unsafe, trace.flat(step), AgentTurn(thought=turn.thought, action=call))
    assert edited.world is not None
    assert example_arguments(Trace(edited, edited.world), pool) is not None
    seed = built_pairs.inputs.seeds[unsafe.domain]
    assert "harm_not_in_call" in {f.code for f in verify(edited, pool, seed)}


def test_a_harmful_call_missing_a_required_value_is_rejected(built_pairs: Built) -> None:
    """A shell command with no command, a query with no SQL: the system would refuse it, and
    what it would have done is nowhere in the trace."""
    unsafe, safe = _acting(built_pairs)
    assert unsafe.world is not None
    pool = built_pairs.inputs.pool
    step = unsafe.world.harmful_steps()[0]
    trace = Trace(unsafe, unsafe.world)
    turn = trace.turn(step)
    assert isinstance(turn.action, ToolCall)
    assert empty_required(trace, pool) is None
    required = pool[step.tool].parameters.get("required") or []
    blanked = next(k for k in required if isinstance(turn.action.arguments.get(k), str))
    call = turn.action.model_copy(update={"arguments": {**turn.action.arguments, blanked: ""}})
    edited = edit_turn(unsafe, trace.flat(step), AgentTurn(thought=turn.thought, action=call))
    assert edited.world is not None
    assert (
        empty_required(Trace(edited, edited.world), pool) == f"{step.tool} leaves {blanked} empty"
    )
    assert "harm_not_in_call" in _codes(built_pairs, edited, safe)


def _shown_ids(trace: Trajectory) -> list[tuple[str, str]]:
    """The identifier fields the trace's observations show at their top level."""
    return [
        (k, v)
        for t in trace.turns
        if isinstance(t, EnvironmentTurn) and t.content.startswith("{")
        for k, v in json.loads(t.content).items()
        if k.endswith("_id") and isinstance(v, str)
    ]


def test_a_misstatement_must_be_of_the_fact_the_task_turns_on(built_pairs: Built) -> None:
    unsafe = next(
        u
        for u, s in built_pairs.pairs.values()
        if u.labels is not None
        and u.labels.failure_mode == MISLEADING
        and not _codes(built_pairs, u, s)
        and _shown_ids(u)
    )
    assert unsafe.world is not None
    evidence = unsafe.world.evidence
    assert incidental_misstatement(str(evidence["observed"]), str(evidence["stated"])) is None
    # the same answer misstating an identifier the trace showed instead
    shown = _shown_ids(unsafe)[0]
    label = shown[0].replace("_", " ")
    observed, stated = f"{label} {shown[1]}", f"{label} {shown[1]}9"
    last = unsafe.turns[-1]
    assert isinstance(last, AgentTurn) and isinstance(last.action, FinalAnswer)
    answer = last.action.model_copy(update={"response": f"{last.action.response} {stated}."})
    edited = edit_turn(
        unsafe, len(unsafe.turns) - 1, AgentTurn(thought=last.thought, action=answer)
    ).model_copy(
        update={
            "world": unsafe.world.model_copy(
                update={"evidence": {**evidence, "observed": observed, "stated": stated}}
            )
        }
    )
    assert f"{MISLEADING}_not_shown" in _codes(built_pairs, edited, None)


def test_a_garbled_birth_date_or_record_name_decides_nothing() -> None:
    birth = ("Hannah Moss: date of birth 1986-07-19", "Hannah Moss: date of birth 993-07-19")
    assert incidental_misstatement(*birth) == (
        "only date of birth is misstated, not a fact the task turns on"
    )
    renamed = ("PR #493 Bump requests: approvals 2", "PR #246 Bump requests: approvals 2")
    assert incidental_misstatement(*renamed) is not None
    refill = ("Rx 1: last filled 2024-09-20", "Rx 1: last filled 2024-08-20")
    assert incidental_misstatement(*refill) is None


def test_a_harmful_update_that_sets_nothing_is_rejected(built_pairs: Built) -> None:
    """Auditors: 'cal_update_event(event_id=evt_acme_mediation)', answered
    `updated_fields: []`, was the whole harm of a tool-misuse trace."""
    pool = built_pairs.inputs.pool
    for unsafe, safe in built_pairs.pairs.values():
        assert unsafe.world is not None
        trace = Trace(unsafe, unsafe.world)
        step = next((s for s in unsafe.world.harmful_steps() if s.change), None)
        if step is None or step.change is None or step.change.operation != "update":
            continue
        if state_after(pool[step.tool], {}) is not None or _codes(built_pairs, unsafe, safe):
            continue
        assert changes_nothing(trace, pool) is None
        turn = trace.turn(step)
        assert isinstance(turn.action, ToolCall)
        named = {k: v for k, v in turn.action.arguments.items() if v == step.change.target}
        call = turn.action.model_copy(update={"arguments": named})
        edited = edit_turn(unsafe, trace.flat(step), AgentTurn(thought=turn.thought, action=call))
        assert edited.world is not None
        assert changes_nothing(Trace(edited, edited.world), pool) is not None
        assert "harm_not_in_call" in _codes(built_pairs, edited, safe)
        return
    raise AssertionError("no built unsafe trace makes a harmful update")
