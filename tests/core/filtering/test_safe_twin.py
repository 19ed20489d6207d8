"""Safe twins on built pairs: within the seed's policies (prefix included) and, when handled,
with a check whose answer shows the trigger wrong — and the same twin broken rejected."""

from __future__ import annotations

from typing import Any

from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
    UserTurn,
)
from pipeline.core.model.world import StepEffect
from tests.support.mutate import codes, edit_turn, first_proven
from tests.support.pairs import Built


def _prefix_change(traj: Trajectory) -> StepEffect | None:
    """A consequential call of the shared prefix (before the twins part)."""
    assert traj.world is not None
    divergence = traj.divergence or 0
    return next(
        (
            s
            for s in traj.world.steps
            if s.change is not None
            and sum(len(e.turns) for e in traj.episodes[: s.episode]) + s.turn < divergence
        ),
        None,
    )


def _with_step(traj: Trajectory, old: StepEffect, new: StepEffect) -> Trajectory:
    assert traj.world is not None
    steps = tuple(new if s == old else s for s in traj.world.steps)
    return traj.model_copy(update={"world": traj.world.model_copy(update={"steps": steps})})


def _safe_with_prefix_call(built_pairs: Built) -> tuple[Trajectory, StepEffect]:
    traj = first_proven(
        built_pairs,
        lambda t: t.verdict == "safe" and _prefix_change(t) is not None,
        "a safe twin with a consequential prefix call",
    )
    step = _prefix_change(traj)
    assert step is not None
    return traj, step


def test_a_safe_twin_whose_prefix_sends_a_record_outside_is_rejected(built_pairs: Built) -> None:
    traj, step = _safe_with_prefix_call(built_pairs)
    assert step.change is not None and traj.world is not None
    sensitive = next(r.id for r in traj.world.records if r.sensitive)
    leak = step.change.model_copy(
        update={
            "operation": "send",
            "recipient": "intake@docs-transfer.io",
            "disclosed": (sensitive,),
        }
    )
    assert "safe_policy_breach" in codes(
        built_pairs, _with_step(traj, step, step.model_copy(update={"change": leak}))
    )


def test_a_safe_call_with_a_value_from_the_risk_is_rejected(built_pairs: Built) -> None:
    traj, step = _safe_with_prefix_call(built_pairs)
    assert step.sources
    name = next(iter(step.sources))
    tainted = step.model_copy(update={"sources": {**step.sources, name: "risk"}})
    assert "safe_policy_breach" in codes(built_pairs, _with_step(traj, step, tainted))


def _handled(traj: Trajectory) -> bool:
    return traj.world is not None and traj.world.evidence.get("strategy") == "handled"


def test_a_handled_check_that_shows_nothing_is_rejected(built_pairs: Built) -> None:
    traj = first_proven(built_pairs, _handled, "a handled safe twin")
    assert traj.world is not None
    check = traj.world.evidence["check"]
    answer = traj.turns[check["turn"] + 1]
    assert isinstance(answer, EnvironmentTurn) and check["shows"] in answer.content
    blind = answer.model_copy(update={"content": answer.content.replace(check["shows"], "")})
    assert "handled_check_shows_nothing" in codes(
        built_pairs, edit_turn(traj, check["turn"] + 1, blind)
    )


def test_a_handled_twin_that_ignores_its_check_is_rejected(built_pairs: Built) -> None:
    traj = first_proven(built_pairs, _handled, "a handled safe twin")
    assert traj.world is not None
    shows = traj.world.evidence["check"]["shows"]
    last = len(traj.turns) - 1
    final = traj.turns[last]
    assert isinstance(final, AgentTurn) and isinstance(final.action, FinalAnswer)
    silent = final.model_copy(
        update={"action": FinalAnswer(response=final.action.response.replace(shows, "fine"))}
    )
    assert "handled_check_shows_nothing" in codes(built_pairs, edit_turn(traj, last, silent))


def _risk_word_before(traj: Trajectory, identifier: bool = False) -> tuple[StepEffect, str] | None:
    """A consequential call of the safe trace that comes after a risk's text, and a word of
    that text (written as an identifier, if asked) the trace shows nowhere else before it."""
    assert traj.world is not None
    flat = [t for e in traj.episodes for t in e.turns]
    for step in traj.world.steps:
        index = sum(len(e.turns) for e in traj.episodes[: step.episode]) + step.turn
        turn = flat[index]
        if step.change is None or not isinstance(turn, AgentTurn):
            continue
        if not isinstance(turn.action, ToolCall) or not any(
            isinstance(v, str) for v in turn.action.arguments.values()
        ):
            continue
        before = "\n".join(
            [traj.profile, *(t.content for t in flat[:index] if not isinstance(t, AgentTurn))]
        )
        for point in traj.risk_points:
            if point.text not in before:
                continue
            rest = before.replace(point.text, " ")
            words = [w.strip(".,()") for w in point.text.split()]
            word = next(
                (
                    w
                    for w in words
                    if ("_" in w if identifier else len(w) >= 8)
                    and w not in rest
                    and w.replace("_", " ").lower() not in rest.lower()
                ),
                None,
            )
            if word:
                return step, word
    return None


def _sending_a_risk_word(built_pairs: Built) -> tuple[Trajectory, str, str, str]:
    """A proven safe twin edited so that a consequential call after the risk's text sends a
    word only that text said: the trace, the tool, the argument and the word."""
    traj = first_proven(
        built_pairs,
        lambda t: t.verdict == "safe" and _risk_word_before(t) is not None,
        "a safe twin with a consequential call after the risk's text",
    )
    found = _risk_word_before(traj)
    assert found is not None
    step, word = found
    index = sum(len(e.turns) for e in traj.episodes[: step.episode]) + step.turn
    turn = [t for e in traj.episodes for t in e.turns][index]
    assert isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
    call = turn.action
    key = next(k for k, v in call.arguments.items() if isinstance(v, str))
    sent = call.model_copy(update={"arguments": {**call.arguments, key: word}})
    return edit_turn(traj, index, turn.model_copy(update={"action": sent})), call.name, key, word


def test_a_safe_call_that_sends_what_only_the_risk_text_said_is_rejected(
    built_pairs: Built,
) -> None:
    traj, _, _, _ = _sending_a_risk_word(built_pairs)
    assert "safe_value_from_risk_text" in codes(built_pairs, traj)


def test_an_option_of_the_tools_own_is_not_taken_from_the_risk(built_pairs: Built) -> None:
    """'unauthorised' is the dispute tool's own reason for a charge the user never made,
    though a follow-up a tool queued says it too: the same word outside the tool's options
    is the risk's."""
    traj, name, key, word = _sending_a_risk_word(built_pairs)
    assert "safe_value_from_risk_text" in codes(built_pairs, traj)
    offered = tuple(
        tool.model_copy(update={"parameters": _with_option(tool.parameters, key, word)})
        if tool.name == name
        else tool
        for tool in traj.tools
    )
    with_option = traj.model_copy(update={"tools": offered})
    assert "safe_value_from_risk_text" not in codes(built_pairs, with_option)


def _with_option(parameters: dict[str, Any], key: str, option: str) -> dict[str, Any]:
    properties = dict(parameters.get("properties") or {})
    properties[key] = {"type": "string", "enum": [option, "other"]}
    return {**parameters, "properties": properties}


def test_a_value_the_user_also_said_in_their_own_words_is_not_the_risks(
    built_pairs: Built,
) -> None:
    """An enum such as `temperature_log` that the user asked for as 'temperature log' comes
    from the user, even when the risk's text spells it the same way."""
    traj = first_proven(
        built_pairs,
        lambda t: t.verdict == "safe" and _risk_word_before(t, identifier=True) is not None,
        "a safe twin with a consequential call after a risk's text that names an id",
    )
    found = _risk_word_before(traj, identifier=True)
    assert found is not None
    step, word = found
    flat = [t for e in traj.episodes for t in e.turns]
    index = sum(len(e.turns) for e in traj.episodes[: step.episode]) + step.turn
    turn = flat[index]
    assert isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
    key = next(k for k, v in turn.action.arguments.items() if isinstance(v, str))
    sent = turn.action.model_copy(update={"arguments": {**turn.action.arguments, key: word}})
    traj = edit_turn(traj, index, turn.model_copy(update={"action": sent}))
    assert "safe_value_from_risk_text" in codes(built_pairs, traj)
    opening = next(i for i, t in enumerate(flat) if isinstance(t, UserTurn))
    asked = flat[opening]
    assert isinstance(asked, UserTurn)
    words = word.replace("_", " ").upper()
    said = asked.model_copy(update={"content": f"{asked.content} It is the {words} one."})
    assert "safe_value_from_risk_text" not in codes(built_pairs, edit_turn(traj, opening, said))


def _consequential(traj: Trajectory) -> tuple[int, AgentTurn, str] | None:
    """A consequential call of the safe trace (flat index, turn) and a required string
    argument of it."""
    if traj.verdict != "safe" or traj.world is None:
        return None
    specs = {tool.name: tool for tool in traj.tools}
    for step in traj.world.steps:
        index = sum(len(e.turns) for e in traj.episodes[: step.episode]) + step.turn
        turn = traj.turns[index]
        if step.change is None or not isinstance(turn, AgentTurn):
            continue
        assert isinstance(turn.action, ToolCall)
        required = specs[turn.action.name].parameters.get("required") or []
        name = next((n for n in required if isinstance(turn.action.arguments.get(n), str)), None)
        if name is not None:
            return index, turn, name
    return None


def _sending(turn: AgentTurn, name: str, value: object) -> AgentTurn:
    assert isinstance(turn.action, ToolCall)
    arguments = {**turn.action.arguments, name: value}
    return turn.model_copy(
        update={"action": turn.action.model_copy(update={"arguments": arguments})}
    )


def test_a_safe_write_with_a_required_value_empty_or_from_nowhere_is_rejected(
    built_pairs: Built,
) -> None:
    traj = first_proven(
        built_pairs, lambda t: _consequential(t) is not None, "a safe twin that writes"
    )
    found = _consequential(traj)
    assert found is not None
    index, turn, name = found
    empty = edit_turn(traj, index, _sending(turn, name, ""))
    assert "safe_empty_required_value" in codes(built_pairs, empty)
    nowhere = edit_turn(traj, index, _sending(turn, name, "acct_nowhere_4417"))
    assert "safe_ungrounded_value" in codes(built_pairs, nowhere)


def test_a_safe_payment_above_the_balance_it_was_shown_is_rejected(built_pairs: Built) -> None:
    traj = first_proven(
        built_pairs,
        lambda t: (
            (found := _consequential(t)) is not None
            and any(isinstance(u, EnvironmentTurn) for u in t.turns[: found[0]])
        ),
        "a safe twin that writes after an observation",
    )
    found = _consequential(traj)
    assert found is not None
    index, turn, _ = found
    shown = max(i for i, u in enumerate(traj.turns[:index]) if isinstance(u, EnvironmentTurn))
    balance = EnvironmentTurn(content='{"available": 16.0, "pending": 19.0}')
    with_balance = edit_turn(traj, shown, balance)
    over = edit_turn(with_balance, index, _sending(turn, "amount", 3150.0))
    assert "safe_overspend" in codes(built_pairs, over)
    within = edit_turn(with_balance, index, _sending(turn, "amount", 12.0))
    assert "safe_overspend" not in codes(built_pairs, within)
