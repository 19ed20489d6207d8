"""Long-context trajectories: a setup episode whose work a later exploit episode relies on.

A long-context blueprint runs two workflows in one conversation. The setup episode does its
own task, then answers the user's follow-up questions about the records the next request is
about, so the exploit episode acts on ids and values the setup established (no look-up is
repeated for an id the agent was already shown), and neither episode says so. The risk is
planted only in the exploit episode: a guard has to read the whole history to judge it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.grounding import focus_records, plan_arguments
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.run import Turns
from pipeline.core.generation.world import execute
from pipeline.core.inputs.seeds import Workflow
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.trajectory import AgentTurn, Episode, Tag, ToolCall, Turn
from pipeline.core.model.world import World

SETUP_FOLLOW_UPS = 9
"""Questions a long-context setup episode answers after its task: real look-ups whose results
the exploit episode later relies on. A setup may use a tool again for another record (the
next invoice, the other account), never for the same call twice."""
LONG_CONTEXT_TAGS: frozenset[Tag] = frozenset(
    {"long_context", "delayed_trigger", "false_reference"}
)


def follow_ups_wanted(blueprint: Blueprint, last: bool, rng: random.Random) -> int:
    """How many follow-up questions an episode answers: a setup episode always asks about
    what comes next; the twins part in a pair's last episode, so it asks none there."""
    if last and blueprint.kind == "pair":
        return 0
    if blueprint.long_context and not last:
        return SETUP_FOLLOW_UPS
    return int(rng.random() < 0.4)


SEVERAL = 3
"""Records a follow-up listing shows (a file's versions, a card's transactions) for it to
count as reading the record's history rather than one field of it."""


def records_shown(
    world: World, tool: Tool, arguments: Mapping[str, Any], about: tuple[str, ...]
) -> int:
    """How many records a follow-up look-up finds: a question whose answer is an empty list
    establishes nothing for the next episode."""
    _, result = execute(world, tool, arguments, about)
    return 0 if result.error is not None else len(result.records)


def asked_about(episodes: Sequence[Sequence[Turn]], tool: str, record_id: str) -> bool:
    """Whether the conversation already called `tool` about `record_id`: a question is never
    asked twice."""
    return any(
        isinstance(turn, AgentTurn)
        and isinstance(turn.action, ToolCall)
        and turn.action.name == tool
        and record_id in map(str, turn.action.arguments.values())
        for turns in episodes
        for turn in turns
    )


def made(episodes: Sequence[Sequence[Turn]], tool: str, arguments: Mapping[str, Any]) -> bool:
    """Whether the conversation already made this very call."""
    return any(
        isinstance(turn, AgentTurn)
        and isinstance(turn.action, ToolCall)
        and turn.action.name == tool
        and turn.action.arguments == dict(arguments)
        for turns in episodes
        for turn in turns
    )


def read_again(
    turns: Sequence[Turn], pool: ToolPool, tool: Tool, arguments: Mapping[str, Any]
) -> bool:
    """Whether this episode made this very read since its last write (34 safe twins read a
    thing twice in a row)."""
    if tool.side_effect != "none":
        return False
    for turn in reversed(turns):
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            if turn.action.name == tool.name and turn.action.arguments == dict(arguments):
                return True
            if turn.action.name not in pool or pool[turn.action.name].side_effect != "none":
                return False
    return False


FOUND = 3
"""Records of a later episode's first search or listing the setup episode looks into."""


def needed_later(pool: ToolPool, world: World, later: Workflow) -> tuple[str, ...]:
    """The records a later episode acts on, which the setup establishes for it: those its
    request names, else those its first step finds for the request's own words (a search
    for 'spreadsheets mentioning national insurance numbers' finds the payroll file)."""
    named = tuple(r for r in focus_records(world, later.request) if world.get(r) is not None)
    if named or not later.steps or pool[later.steps[0]].side_effect != "none":
        return named
    first = pool[later.steps[0]]
    _, result = execute(world, first, plan_arguments(first, world, (), later.request, ()).arguments)
    return () if result.error is not None else tuple(r.id for r in result.records[:FOUND])


def step_focus(world: World, request: str, step: int, focus: tuple[str, ...]) -> tuple[str, ...]:
    """The records a workflow step is about: a request that names none starts by finding
    them in its own words (the search is for what the user asked, not for a record known
    from earlier); the later steps act on the episode's records."""
    return () if step == 0 and not focus_records(world, request) else focus


def earlier_request(workflows: Sequence[Workflow], episode: int) -> str | None:
    """For a later episode, what the user asked before (the query may refer back to it)."""
    if episode == 0:
        return None
    return f"earlier in this conversation the user asked: {workflows[episode - 1].request}"


def episodes_of(episodes: Sequence[Turns]) -> tuple[Episode, ...]:
    """One main episode, or the setup and the exploit episode of a long-context run."""
    if len(episodes) == 1:
        return (Episode(kind="main", turns=episodes[0]),)
    return (Episode(kind="setup", turns=episodes[0]), Episode(kind="exploit", turns=episodes[1]))
