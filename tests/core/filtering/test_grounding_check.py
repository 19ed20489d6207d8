"""The grounding check catches an argument that comes from nowhere."""

from __future__ import annotations

from pipeline.core.filtering.grounding import grounding_report, ungrounded_values
from pipeline.core.generation.dates import spoken_date
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory
from tests.support.pairs import Built


def test_values_said_or_shown_earlier_are_grounded() -> None:
    source = "Please pay 1,450 EUR to Harbor Lane with reference 'Flat 3B June' on 8 November."
    checked, missing = ungrounded_values(
        {"amount": 1450.0, "reference": "Flat 3B June", "date": "2024-11-08", "urgent": True},
        source,
        set(),
    )
    assert checked == 3 and missing == []


def test_a_number_written_with_its_unit_is_stated_but_a_piece_of_a_date_is_not() -> None:
    source = "Book a 60-minute interview on 2024-11-08 for ticket ws-rad-0142."
    assert ungrounded_values({"duration_minutes": 60}, source, set()) == (1, [])
    assert ungrounded_values({"count": 2024, "port": 142}, source, set()) == (
        2,
        ["count=2024", "port=142"],
    )


def test_a_search_typed_in_words_said_before_is_grounded_other_fields_are_not() -> None:
    source = "Someone is claiming our beans are moldy - see what people are saying."
    assert ungrounded_values({"query": "beans moldy"}, source, set()) == (1, [])
    assert ungrounded_values({"filter.q": "moldy beans"}, source, set()) == (1, [])
    assert ungrounded_values({"query": "beans mouldy"}, source, set())[1] == ["query=beans mouldy"]
    assert ungrounded_values({"reason": "beans moldy"}, source, set())[1] == ["reason=beans moldy"]


def test_a_value_from_nowhere_is_caught() -> None:
    checked, missing = ungrounded_values(
        {"recipient": "mallory@evil.example", "amount": 16420.0}, "pay invoice of 2,380", set()
    )
    assert checked == 2
    assert missing == ["recipient=mallory@evil.example", "amount=16420.0"]


def test_a_json_argument_is_checked_value_by_value() -> None:
    said = "Deploy the v2.4.0 tag to staging using deploy-prod.yml with environment=staging."
    assert ungrounded_values({"inputs_json": '{"environment": "staging"}'}, said, set()) == (1, [])
    checked, missing = ungrounded_values(
        {"inputs_json": '{"environment": "production"}'}, said, set()
    )
    assert (checked, missing) == (1, ["inputs_json.environment=production"])


def test_enum_options_and_small_counts_need_no_source() -> None:
    assert ungrounded_values({"priority": "urgent", "limit": 5}, "", {"urgent"}) == (0, [])


def test_built_pairs_are_mostly_grounded_and_a_forged_argument_lowers_the_share(
    built_pairs: Built,
) -> None:
    trajectories = [t for pair in built_pairs.pairs.values() for t in pair]
    report = grounding_report(trajectories)
    assert report["values"] > 100
    forged = []
    for traj in trajectories:
        turns = list(traj.episodes[0].turns)
        for i, turn in enumerate(turns):
            if turn.role == "agent" and hasattr(turn.action, "arguments"):
                action = turn.action.model_copy(
                    update={
                        "arguments": {**turn.action.arguments, "note_id": "zz_from_nowhere_991"}
                    }
                )
                turns[i] = turn.model_copy(update={"action": action})
                break
        episode = traj.episodes[0].model_copy(update={"turns": tuple(turns)})
        forged.append(traj.model_copy(update={"episodes": (episode, *traj.episodes[1:])}))
    worse = grounding_report(forged)
    assert worse["ungrounded"] > report["ungrounded"]
    # the forged field is among the fields most often ungrounded
    assert any(field.endswith(".note_id") for field in worse["by_field"])
    assert any("zz_from_nowhere_991" in e for e in worse["examples"]) or worse["ungrounded"] >= len(
        forged
    )


def test_a_day_said_in_words_is_grounded_and_a_day_nobody_said_is_not() -> None:
    source = "Session: today is 2024-09-15.\nMove my 1:1 to Thursday 15:00 and book 12-16 Nov."
    arguments = {
        "start": "2024-09-19T15:00:00Z",  # Thursday, at the time said
        "check_in": "2024-11-12",
        "check_out": "2024-11-16",
        "window_end": "2024-09-19T23:59:59Z",  # the end of a day said
    }
    assert ungrounded_values(arguments, source, set()) == (4, [])
    invented = {"start": "2024-09-20T15:00:00Z", "end": "2024-09-19T11:00:00Z"}
    assert ungrounded_values(invented, source, set()) == (
        2,
        ["start=2024-09-20T15:00:00Z", "end=2024-09-19T11:00:00Z"],
    )


def test_an_inherent_failures_value_is_grounded_by_its_own_risky_reasoning_only(
    built_pairs: Built,
) -> None:
    """The planned risk of an inherent failure is the agent's reasoning at its harmful turn:
    a value it states there is sourced from that turn on, and nowhere else."""
    unsafe, point = next(
        (u, p)
        for u, _ in built_pairs.pairs.values()
        for p in u.risk_points
        if p.channel == "agent_reasoning" and _calls(u.episodes[p.episode].turns[p.turn])
    )
    turns = list(unsafe.episodes[point.episode].turns)
    harmful = turns[point.turn]
    assert isinstance(harmful, AgentTurn) and isinstance(harmful.action, ToolCall)
    forged = {**harmful.action.arguments, "batch_ref": "zz_reasoned_4471"}
    turns[point.turn] = harmful.model_copy(
        update={"action": harmful.action.model_copy(update={"arguments": forged})}
    )

    def variant(reasoning: str) -> Trajectory:
        episode = unsafe.episodes[point.episode].model_copy(update={"turns": tuple(turns)})
        episodes = list(unsafe.episodes)
        episodes[point.episode] = episode
        stated = [
            p.model_copy(update={"text": reasoning}) if p == point else p
            for p in unsafe.risk_points
        ]
        return unsafe.model_copy(update={"episodes": tuple(episodes), "risk_points": stated})

    said = grounding_report([variant(f"{point.text} (batch zz_reasoned_4471)")])
    unsaid = grounding_report([variant(point.text)])
    assert not any("zz_reasoned_4471" in e for e in said["examples"])
    assert any("batch_ref=zz_reasoned_4471" in e for e in unsaid["examples"])


def _calls(turn: object) -> bool:
    """A harmful step that is a call (not an answer carrying harmful content)."""
    return isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)


def test_a_time_said_on_a_twelve_hour_clock_grounds_the_value() -> None:
    said = "today is 2024-11-05. Could you publish it to MLS at 8am Friday?"
    assert spoken_date("2024-11-08T08:00:00Z", said)
    assert not spoken_date("2024-11-08T09:00:00Z", said)
    assert spoken_date("2024-11-08T15:30:00Z", "today is 2024-11-05. Friday at 3:30 pm")


def test_a_short_sentence_is_free_text_checked_by_the_ids_inside_it() -> None:
    """'Your prescription is ready.' says in the reader's words what the user asked to tell
    him; it was counted as a value from nowhere."""
    source = "Text Sam Ortiz that his prescription is ready, keeping it discreet."
    assert ungrounded_values({"message": "Your prescription is ready."}, source, set()) == (1, [])
    forged = {"message": "Pay ACC-99812 now.", "account": "ACC 99812"}
    assert ungrounded_values(forged, source, set()) == (
        2,
        ["message: Pay ACC-99812 now.", "account=ACC 99812"],
    )
