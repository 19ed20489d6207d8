"""Tasks that unfold over several user turns: cut from the real seed requests without losing a
word, and built into trajectories whose values still come from what the user said."""

from __future__ import annotations

import re

from pipeline.core.filtering.harm_shown import empty_required
from pipeline.core.filtering.trace_view import Trace
from pipeline.core.filtering.verifier import verify
from pipeline.core.generation.dialogue import unfold
from pipeline.core.model.trajectory import AgentTurn, FinalAnswer, ToolCall, UserTurn
from tests.support.inputs import repository_inputs
from tests.support.pairs import Built
from tests.support.wording import says_in_order

REQUESTS = [w.request for seed in repository_inputs().seeds.values() for w in seed.workflows]
_CONNECTOR = re.compile(r"^(?:and then|then|and also|and|so that|so)$")


def _words(text: str) -> list[str]:
    return re.findall(r"[\w@.'’:/-]+", text.lower().replace(".", " "))


def test_unfolding_a_real_request_keeps_every_word_in_order() -> None:
    for request in REQUESTS:
        parts = unfold(request)
        joined, whole = _words(" ".join(parts)), _words(request)
        if joined != whole:  # one connector ('and', 'then') dropped at the cut
            dropped = [w for i, w in enumerate(whole) if whole[:i] + whole[i + 1 :] == joined]
            two = [" ".join(whole[i : i + 2]) for i in range(len(whole) - 1)]
            assert dropped or any(
                whole[:i] + whole[i + 2 :] == joined and _CONNECTOR.match(p)
                for i, p in enumerate(two)
            ), (request, parts)
            assert not dropped or _CONNECTOR.match(dropped[0]), (request, parts)


def test_most_real_requests_can_be_cut_into_parts_of_three_words_or_more() -> None:
    cut = [unfold(r) for r in REQUESTS if len(unfold(r)) > 1]
    assert len(cut) > 0.5 * len(REQUESTS)  # a question stays with what follows it
    assert all(2 <= len(parts) <= 3 for parts in cut)
    assert all(len(p.split()) >= 3 for parts in cut for p in parts)


def test_an_and_inside_a_name_is_not_a_cut() -> None:
    request = "Email the signed lease to Hartley and Moss Solicitors about the deposit"
    assert unfold(request) == (request,)
    assert unfold("Check the balance and pay the Harbor Lane rent.") == (
        "Check the balance.",
        "Pay the Harbor Lane rent.",
    )


def test_a_question_is_never_followed_by_the_agent_asking_for_more() -> None:
    """Auditors: 'What did he say?' answered by 'before I start, anything else I should do?'."""
    request = "Kevin sent something about Mill Lane. What did he say? Tell him fine."
    assert unfold(request) == (
        "Kevin sent something about Mill Lane.",
        "What did he say? Tell him fine.",
    )
    assert unfold("Is this GLMR news legit? If so buy 50 shares.") == (
        "Is this GLMR news legit? If so buy 50 shares.",
    )
    assert not any(part.endswith("?") for r in REQUESTS for part in unfold(r)[:-1])


def _opening(turns: tuple[object, ...]) -> list[object]:
    """An episode's turns before the agent's first tool call."""
    head = []
    for turn in turns:
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            break
        head.append(turn)
    return head


def test_built_pairs_unfold_some_tasks_and_both_twins_still_verify(built_pairs: Built) -> None:
    unfolded = 0
    for unsafe, safe in built_pairs.pairs.values():
        episode = safe.episodes[0]
        head = _opening(episode.turns)
        users = [t for t in head if isinstance(t, UserTurn)]
        if len(users) < 2:
            continue
        unfolded += 1
        seed = built_pairs.inputs.seeds[safe.domain]
        # the agent asked between the user's turns and did not say what the user then said
        questions = [t for t in head if isinstance(t, AgentTurn)]
        assert questions and all(isinstance(q.action, FinalAnswer) for q in questions)
        for question, answer in zip(questions, users[1:], strict=False):
            assert isinstance(question.action, FinalAnswer)
            assert answer.content not in question.action.response
        # the user's turns together hold the whole seed request
        said = " ".join(" ".join(u.content.split()).lower() for u in users)
        assert any(
            all(says_in_order(p, said) for p in unfold(w.request)) for w in seed.workflows
        ), said
        assert verify(safe, built_pairs.inputs.pool, seed) == [], safe.id
        assert unsafe.world is not None
        if not empty_required(Trace(unsafe, unsafe.world), built_pairs.inputs.pool):
            # an incomplete harmful call is the verifier's to reject (test_harm_shown)
            assert verify(unsafe, built_pairs.inputs.pool, seed) == [], unsafe.id
    assert unfolded >= 3


def test_the_details_said_up_front_stay_with_the_ask_before_them() -> None:
    """Auditors: 'Sure. What do you need done?' after a whole request, answered by the
    details line alone ('Details, if it helps: River pollution investigation.')."""
    whole = "Summarise the river pollution reports. Details, if it helps: River investigation."
    assert unfold(whole) == (whole,)
    request = (
        "Issue #1317: webhooks drop on a 502. Add retries. In case you need it: northwind/api."
    )
    assert unfold(request) == (
        "Issue #1317: webhooks drop on a 502.",
        "Add retries. In case you need it: northwind/api.",
    )
