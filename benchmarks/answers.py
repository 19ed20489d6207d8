"""Final answers that answer (issue 12 point 5): what an auditor found in every trace of a
read — answers that report the first records of a listing instead of the one asked about,
and that stay silent about a look-up that came back empty. Part of
`benchmarks.trace_quality` (its "answers" figures).

Each episode's closing answer is judged.

- `naming_other_records`: answers naming a world record (by id or by name; not inside a
  quotation of what the agent met) that the episode's user turns do not name and no call of
  the episode was about or changed.
- `silent_on_empty_lookup`: answers after a listing that came back empty
  (`facts.empty_listing`), and that no later look-up of the episode found items of, that say
  nothing of it (no "no …", "none", "nothing", "not", "empty").
- `silent_on_a_write`: answers after a call of theirs changed the world that name neither
  the record changed (by id or name), nor a record its arguments name, nor the id a create
  returned: the user is not told what was done.
- `how_many_unanswered` (of `how_many_asked`): 'how many <things>' questions of an
  episode's user turns that none of the episode's answers answers with a number before the
  thing ('41 minutes', '6 showings listed'); 'minutes 41, start …' does not count.
- `silent_on_a_read`: answers after a read of theirs that came back with something, fed no
  later call, and of which the answer states no value the user had not already given (a
  request and the arguments of the calls up to that read are given; a later call restating
  the read's values, such as a note of the findings, was fed by it): the question that read
  was for goes unanswered ("how did the teaser do?" answered "platform instagram").
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from typing import Any

from pipeline.core.generation.content import bare_name
from pipeline.core.generation.facts import empty_listing
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
    Turn,
    UserTurn,
)
from pipeline.core.model.world import WorldChange, WorldLog

_QUOTED = re.compile(r'"[^"]*"')
"""What an answer quotes from something it met: naming a record there is no defect."""
_SAYS_NONE = re.compile(r"\b(?:no|none|nothing|not|empty|zero)\b", re.I)


def _mentions(text: str, log: WorldLog) -> set[str]:
    """Ids of the world records a text names, by id or by a name of two words or more."""
    lowered = text.lower()
    found = set()
    for record in log.records:
        name = bare_name(record.name).lower()
        if record.id.lower() in lowered or (len(name.split()) >= 2 and name in lowered):
            found.add(record.id)
    return found


def _empty_listings(window: Sequence[Turn]) -> int:
    """Listings in the window that came back empty (the predicate construction uses) and
    that no later look-up found items of after all."""
    empty: dict[str, int] = {}
    for call, result in itertools.pairwise(window):
        if not isinstance(result, EnvironmentTurn) or not isinstance(call, AgentTurn):
            continue
        if not isinstance(call.action, ToolCall):
            continue
        try:
            data = json.loads(result.content)
        except ValueError:
            continue
        listed = empty_listing(data, call.action.arguments)
        if listed is not None:
            empty[listed] = empty.get(listed, 0) + 1
        elif isinstance(data, dict):
            for key in [k for k in empty if data.get(k)]:
                del empty[key]
    return sum(empty.values())


def _reported(change: WorldChange, response: str, log: WorldLog) -> bool:
    """Whether an answer says what a write was about: its target or a record its arguments
    name (one or a list of them), by id or by name."""
    values = [change.target, *change.arguments.values()]
    ids = {str(i) for v in values for i in (v if isinstance(v, list) else [v]) if i}
    records = {r.id: bare_name(r.name) for r in log.records if r.id in ids}
    return any(i in response or records.get(i, "\0") in response for i in ids)


def _values(data: Any) -> list[str]:
    """A result's scalar values as an answer could state them (3 characters or more)."""
    if isinstance(data, dict):
        return [v for item in data.values() for v in _values(item)]
    if isinstance(data, list):
        return [v for item in data for v in _values(item)]
    if isinstance(data, bool) or data is None:
        return []
    if len(str(data)) < 3:
        return []
    if isinstance(data, float):  # '1,450.00', or '32' for 32.0
        return [f"{data:,.2f}", str(data), *([str(int(data))] if data.is_integer() else [])]
    return [f"{data:,}", str(data)] if isinstance(data, int) else [str(data)]


def _unsaid_reads(window: Sequence[Turn], response: str, log: WorldLog, given: str) -> int:
    """Reads of the window that returned values, none of which a later call used, and none
    of which, beyond what the user or the calls already said, the answer states."""
    calls = [
        (turn.action, result)
        for turn, result in itertools.pairwise(window)
        if isinstance(turn, AgentTurn)
        and isinstance(turn.action, ToolCall)
        and isinstance(result, EnvironmentTurn)
    ]
    changed = {s.tool for s in log.steps if s.change is not None}  # `silent_on_a_write`'s
    unsaid = 0
    for i, (call, result) in enumerate(calls):
        if call.name in changed:
            continue
        # what the agent passed up to this read is given; a later call that restates the
        # read's values (a note of the findings) was fed by it
        known = given + json.dumps([c.arguments for c, _ in calls[: i + 1]], default=str)
        try:
            data = json.loads(result.content)
        except ValueError:
            continue
        if empty_listing(data, call.arguments) is not None or (
            isinstance(data, dict) and "error" in data
        ):
            continue
        values = {v for v in _values(data) if v not in known}
        later = json.dumps([c.arguments for c, _ in calls[i + 1 :]], default=str)
        if values and not any(v in later or v in response for v in values):
            unsaid += 1
    return unsaid


_HOW_MANY = re.compile(r"\bhow many (?:[a-z-]+ ){0,2}?([a-z-]*[a-rt-z]s)\b", re.I)
"""The plural a 'how many' question counts ('cumulative excursion hours' counts hours)."""


def answer_figures(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Counts over the answer that closes each episode (a confirmation asked on the way or a
    clarifying question is not one), judged on the calls made since the answer before it."""
    answers = other = silent = unreported = unsaid = counts_asked = uncounted = 0
    examples: dict[str, list[str]] = {
        "naming_other_records": [],
        "silent_on_empty_lookup": [],
        "silent_on_a_write": [],
        "silent_on_a_read": [],
        "how_many_unanswered": [],
    }
    for traj in trajectories:
        log = traj.world
        if log is None or traj.imported:
            continue
        for e, episode in enumerate(traj.episodes):
            turns = episode.turns
            ends = [
                t
                for t, turn in enumerate(turns)
                if isinstance(turn, AgentTurn) and isinstance(turn.action, FinalAnswer)
            ]
            if not ends:
                continue
            said = " ".join(
                t.action.response
                for t in turns
                if isinstance(t, AgentTurn) and isinstance(t.action, FinalAnswer)
            )
            for thing in _HOW_MANY.findall(
                " ".join(t.content for t in turns if isinstance(t, UserTurn))
            ):
                counts_asked += 1
                if not re.search(rf"\b\d[\d,.]*\s+(?:[a-z-]+\s+)?{thing[:-1]}", said, re.I):
                    uncounted += 1
                    examples["how_many_unanswered"].append(f"{traj.id}: {thing}")
            last = turns[ends[-1]]
            assert isinstance(last, AgentTurn) and isinstance(last.action, FinalAnswer)
            response = last.action.response
            window = turns[(ends[-2] + 1 if len(ends) > 1 else 0) : ends[-1]]
            about = {i for s in log.steps if s.episode == e for i in s.focus}
            about |= {
                t for s in log.steps if s.episode == e and s.change and (t := s.change.target)
            }
            for turn in turns:
                if isinstance(turn, UserTurn):
                    about |= _mentions(turn.content, log)
            answers += 1
            named = _mentions(_QUOTED.sub("", response), log) - about
            if named:
                other += 1
                examples["naming_other_records"].append(f"{traj.id}: {sorted(named)[0]}")
            start = ends[-2] + 1 if len(ends) > 1 else 0
            writes = [
                s.change
                for s in log.steps
                if s.episode == e and s.change and start <= s.turn < ends[-1]
            ]
            if any(not _reported(c, response, log) for c in writes):
                unreported += 1
                examples["silent_on_a_write"].append(f"{traj.id}: {response!r:.90}")
            given = " ".join(t.content for t in turns if isinstance(t, UserTurn))
            if _unsaid_reads(window, response, log, given):
                unsaid += 1
                examples["silent_on_a_read"].append(f"{traj.id}: {response!r:.90}")
            if _empty_listings(window) and not _SAYS_NONE.search(response):
                silent += 1
                examples["silent_on_empty_lookup"].append(f"{traj.id}: {response!r:.90}")
    return {
        "answers": answers,
        "naming_other_records": other,
        "silent_on_empty_lookup": silent,
        "silent_on_a_write": unreported,
        "silent_on_a_read": unsaid,
        "how_many_asked": counts_asked,
        "how_many_unanswered": uncounted,
        "examples": {k: v[:6] for k, v in examples.items()},
    }
