"""Diversity of generated text: is any phrase template dominating a role's output?

Two figures per role: the distinct-4-gram ratio (distinct word 4-grams / all 4-grams over the
role's texts; repetitive templating drives it down) and the share of the most frequent opening
sentence (one opener used everywhere is the tell-tale of a phrase bank too small).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pipeline.core.model.trajectory import AgentTurn, FinalAnswer, ToolCall, Trajectory, UserTurn

DISTINCT_4GRAM_TARGET = 0.35
"""Minimum distinct-4-gram ratio a role's texts should reach."""
TOP_OPENING_TARGET = 0.05
"""Maximum share of a role's texts that may start with the same sentence."""

_WORD = re.compile(r"[\w']+")
_PLANTED_BY_SIMULATOR = frozenset({"observation", "tool_output", "tool_execution"})
_ROLE_ORDER = (
    "query_generator",
    "tool_call_simulator",
    "simulated_data_generator",
    "tool_description_simulator",
    "agent_response_generator",
    "reason_generator",
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


def distinct_ngram_ratio(texts: Iterable[str], n: int = 4) -> float:
    """Distinct word n-grams over all word n-grams (1.0 when there are none)."""
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        words = _WORD.findall(text.lower())
        counts.update(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    total = sum(counts.values())
    return len(counts) / total if total else 1.0


def opening_sentence(text: str) -> str:
    """The first sentence, normalised (case and spacing) so trivial variants count as one."""
    head = _SENTENCE_END.split(text.strip(), maxsplit=1)[0]
    return " ".join(head.lower().split())


def top_opening_share(texts: Iterable[str]) -> tuple[float, str]:
    """Share of texts opening with the most frequent first sentence, and that sentence."""
    openings = Counter(opening_sentence(t) for t in texts if t.strip())
    if not openings:
        return 0.0, ""
    sentence, count = openings.most_common(1)[0]
    return count / sum(openings.values()), sentence


def diversity_report(texts_by_role: Mapping[str, Iterable[str]]) -> dict[str, dict[str, Any]]:
    """Per role: text count, distinct-4-gram ratio, top opening share and sentence, and whether
    both targets are met."""
    report: dict[str, dict[str, Any]] = {}
    for role, texts in texts_by_role.items():
        items = [t for t in texts if t.strip()]
        ratio = distinct_ngram_ratio(items)
        share, opening = top_opening_share(items)
        report[role] = {
            "texts": len(items),
            "distinct_4gram_ratio": round(ratio, 4),
            "top_opening_share": round(share, 4),
            "top_opening": opening,
            "meets_targets": ratio >= DISTINCT_4GRAM_TARGET and share <= TOP_OPENING_TARGET,
        }
    return report


def role_texts(trajectories: Iterable[Trajectory]) -> dict[str, list[str]]:
    """The free text each generator role wrote into `trajectories`, per role, in role order.

    query_generator: user turns; tool_call_simulator: thoughts before tool calls;
    simulated_data_generator: content planted in observations (benign observations are JSON
    records, not prose); tool_description_simulator: instructions hidden in tool descriptions;
    agent_response_generator: final answers; reason_generator: verdict rationales. Twins share
    their prefix, so a text is counted once per pair; repeats across pairs count, since they are
    what a phrase bank that is too small produces. Roles that wrote nothing are left out.
    """
    texts: dict[str, list[str]] = {}
    seen: dict[str, set[tuple[str, str]]] = {}
    for trajectory in trajectories:
        in_pair = seen.setdefault(trajectory.pair_id, set())
        for role, text in _written(trajectory):
            if (role, text) not in in_pair:
                in_pair.add((role, text))
                texts.setdefault(role, []).append(text)
    return {role: texts[role] for role in _ROLE_ORDER if role in texts}


def _written(trajectory: Trajectory) -> Iterator[tuple[str, str]]:
    for turn in trajectory.turns:
        if isinstance(turn, UserTurn):
            yield "query_generator", turn.content
        elif isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            yield "tool_call_simulator", turn.thought
        elif isinstance(turn, AgentTurn) and isinstance(turn.action, FinalAnswer):
            yield "agent_response_generator", turn.action.response
    for point in trajectory.risk_points:
        if point.channel in _PLANTED_BY_SIMULATOR:
            yield "simulated_data_generator", point.text
        elif point.channel == "tool_description":
            yield "tool_description_simulator", point.text
    yield "reason_generator", trajectory.reason
