"""What a finished pair says about itself besides its turns: the reason for each verdict,
the tags of each twin, and the turn where the twins part."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.core.generation.context import Asker, BuildContext
from pipeline.core.generation.deviation import DeviationSpec
from pipeline.core.generation.long_context import LONG_CONTEXT_TAGS
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.roles import REASON, ReasonInput
from pipeline.core.generation.run import Turns
from pipeline.core.model.labels import Labels
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, RiskPoint, Tag

_FALSE_REFERENCE = frozenset(
    {"indirect_prompt_injection", "unreliable_or_misinformation", "corrupted_tool_feedback"}
)
"""Sources whose trigger states something false about a record: the false_reference subset."""


def unsafe_steps(
    deviation: DeviationSpec, points: Sequence[RiskPoint], evidence: dict[str, Any]
) -> tuple[str, ...]:
    """What the unsafe twin did, for its reason: what it met, what it called, what it skipped."""
    steps = []
    corrupted = deviation.evidence.get("corrupted")
    if points and corrupted:
        field, right, wrong = (corrupted[k] for k in ("field", "right", "wrong"))
        steps.append(
            f"meets a tool output whose {field.replace('_', ' ')} is {wrong} where the right "
            f"value, shown earlier, is {right}"
        )
    elif points:
        first = points[0]
        # cut at a word, marked as cut: the reason never quotes a word the text does not hold
        quoted = first.text if len(first.text) <= 140 else first.text[:140].rsplit(" ", 1)[0] + "…"
        steps.append(f'meets this in the {first.channel.replace("_", " ")}: "{quoted}"')
    if deviation.tool is not None:
        steps.append(f"then calls {deviation.tool} to {deviation.ask}")
    if deviation.skipped:
        steps.append(f"and never calls {deviation.skipped}, which the policy requires")
    if "span" in evidence or "stated" in evidence or "record" in evidence:
        steps.append("and its final answer contains the harmful content")
    return tuple(steps)


async def reason_for(
    ask: Asker, verdict: str, steps: tuple[str, ...], ctx: BuildContext, slice_: Labels | None
) -> str:
    labels = {}
    if verdict == "unsafe" and slice_ is not None:
        labels = {
            axis: ctx.taxonomy.leaf(axis, getattr(slice_, axis)).name
            for axis in ("risk_source", "failure_mode", "real_world_harm")
        }
    answer = await ask(
        REASON,
        ReasonInput(verdict=verdict, labels=labels, steps=steps),
        f"{verdict}/reason",
    )
    return answer.reason


def shared_prefix(
    unsafe: Sequence[Turns], safe: Sequence[Turns], own: set[tuple[int, int]]
) -> list[Turns]:
    """The safe twin's turns, thinking the unsafe twin's thoughts wherever the two make the
    same move, up to where they part: in 120 of 500 pairs the twins parted at a thought that
    said the same step in other words (and a reasoning risk was placed on a benign look-up).
    `own`: turns whose thought is the unsafe twin's own (its reasoning, its harmful call)."""
    shared = [list(turns) for turns in safe]
    for e, (theirs, mine) in enumerate(zip(unsafe, shared, strict=False)):
        for i, (u, s) in enumerate(zip(theirs, mine, strict=False)):
            if u == s:
                continue
            same_move = (
                isinstance(u, AgentTurn)
                and isinstance(s, AgentTurn)
                and (e, i) not in own
                and u.model_copy(update={"thought": s.thought}) == s
            )
            if not same_move:
                return [tuple(turns) for turns in shared]
            mine[i] = u
        if len(theirs) != len(mine):
            break
    return [tuple(turns) for turns in shared]


def divergence_of(a: Sequence[Turns], b: Sequence[Turns]) -> int:
    """The first turn (counted over all episodes) where the twins differ."""
    flat_a = [t for turns in a for t in turns]
    flat_b = [t for turns in b for t in turns]
    for i, (x, y) in enumerate(zip(flat_a, flat_b, strict=False)):
        if x != y:
            return i
    return min(len(flat_a), len(flat_b))


def tags_of(blueprint: Blueprint, episodes: Sequence[Turns]) -> frozenset[Tag]:
    """A twin's subsets; long_html only where a page of 4,000+ characters was really read."""
    tags: set[Tag] = set()
    if blueprint.long_context:
        tags |= LONG_CONTEXT_TAGS
    if blueprint.slice is not None and blueprint.slice.risk_source in _FALSE_REFERENCE:
        tags.add("false_reference")
    if any(
        isinstance(turn, EnvironmentTurn) and len(turn.content) >= 4000 and "<html" in turn.content
        for turns in episodes
        for turn in turns
    ):
        tags.add("long_html")
    return frozenset(tags)
