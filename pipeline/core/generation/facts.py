"""What a run did and what its observations showed, as the short sentences a final answer
states: each write first, as an act on the record it was about (`done`), then the reads.

An answer reports the values its calls returned that the request is about (a status, an
amount, a date), or, for a follow-up, whatever its own call returned; never a field of an
earlier call the question did not ask about. A listing is reported by the records the task is
about, not by whichever came first on the page, and a look-up that found nothing says so
('no trips for Van 17'): an empty result answers the question as much as a value does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pipeline.core.generation.content import bare_name
from pipeline.core.generation.done import done_sentence
from pipeline.core.generation.run import Branch
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.spoken import labelled, spoken
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Turn
from pipeline.core.model.world import StepEffect, World, WorldChange


def facts_of(
    branch: Branch, episode: int, request: str, since: int = 0, *, every_field: bool = False
) -> tuple[str, ...]:
    """What the episode's observations showed that answers the request, as short sentences;
    from step `since` on, so a follow-up's answer reports its own call, not the episode's
    (`every_field`: whatever that call returned, 'used 15 GB of 16', not only salient ones)."""
    steps = [s for s in branch.steps[since:] if s.episode == episode]
    return facts_shown(branch.episodes[episode], steps, branch.world, request, every_field)


def facts_shown(
    turns: Sequence[Turn],
    steps: Sequence[StepEffect],
    world: World,
    request: str,
    every_field: bool = False,
) -> tuple[str, ...]:
    """`facts_of` over an episode's turns and the steps run in it."""
    wanted = set(re.findall(r"[a-z]{4,}", request.lower()))
    facts: list[tuple[int, str, str]] = []  # (step, its record's label or '', the sentence)
    writes: list[tuple[WorldChange, str]] = []  # each write and what its result showed
    nothing: list[str] = []  # look-ups that found nothing: each answers the question
    for index, effect in enumerate(steps):
        observation = turns[effect.turn + 1]
        try:
            data = json.loads(getattr(observation, "content", "{}"))
        except ValueError:
            continue
        names = {r.id: bare_name(r.name) for i in effect.focus if (r := world.get(i)) is not None}
        call = turns[effect.turn]
        action = call.action if isinstance(call, AgentTurn) else None
        asked = action.arguments if isinstance(action, ToolCall) else {}
        about = next((names[v] for v in asked.values() if isinstance(v, str) and v in names), "")
        empty = empty_listing(data, asked) if effect.change is None else None
        if empty is not None:
            what = empty.replace("_", " ")
            nothing.append(f"no {what} for {about}" if about else f"no {what} came back")
            continue
        found = _facts(
            effect.tool,
            data,
            wanted,
            effect.change is not None,
            every_field,
            names,
            about,
            world,
            asked,
        )
        if effect.change is not None:
            shown = "; ".join(fact.removeprefix(f"{who}: ") for who, fact in found)
            writes.append((effect.change, shown))
            continue
        facts += [(index, label, fact) for label, fact in found]
    current = [fact for index, label, fact in facts if not _stale(label, index, steps, world)]
    reads = _answering(current, wanted, after_write=bool(writes))
    return tuple(dict.fromkeys([*_done(writes, world), *nothing, *reads]))[:6]


def _answering(reads: list[str], wanted: set[str], after_write: bool) -> list[str]:
    """At most three reads, those sharing most of the request's words first; after a write,
    only those that share any (else the first, to say what the write acted on)."""
    overlap = {f: len(set(re.findall(r"[a-z]{4,}", f.lower())) & wanted) for f in reads}
    ranked = sorted(reads, key=lambda f: -overlap[f])
    if after_write:
        return [f for f in ranked if overlap[f] > 0][:3] or ranked[:1]
    return ranked[:3]


def _done(writes: list[tuple[WorldChange, str]], world: World) -> list[str]:
    """Each distinct write once, first to last, saying how often it ran: three identical
    posts are one act done three times."""
    seen: dict[str, tuple[WorldChange, str, int]] = {}
    for change, shown in writes:
        key = json.dumps([change.tool, change.arguments], sort_keys=True, default=str)
        first = seen.get(key, (change, shown, 0))
        seen[key] = (first[0], first[1], first[2] + 1)
    return [done_sentence(c, world, shown, times) for c, shown, times in seen.values()]


def _stale(label: str, index: int, steps: Sequence[StepEffect], world: World) -> bool:
    """Whether a record's fact read at step `index` no longer holds: a later call changed
    that record (a balance read before the transfer that moved it)."""
    if not label:
        return False
    for effect in steps[index + 1 :]:
        change = effect.change
        if change is None:
            continue
        ids = [change.target, *(v for v in change.arguments.values() if isinstance(v, str))]
        changed = {bare_name(r.name) for i in ids if i and (r := world.get(i)) is not None}
        if label in changed:
            return True
    return False


def empty_listing(data: Any, asked: dict[str, Any]) -> str | None:
    """The list a listing came back without ('trips'), or None: every list of the result is
    empty and nothing else in it is a record's own text (counts and the query echoed back
    are; a message's empty `to` beside its subject is not a listing)."""
    if not isinstance(data, dict) or not data:
        return None
    echoed = {v for v in asked.values() if isinstance(v, str)}
    empty = [str(k) for k, v in data.items() if v == []]
    if not empty or any(
        (isinstance(v, list) and v)
        or isinstance(v, dict)
        or (isinstance(v, str) and v not in echoed)
        for v in data.values()
    ):
        return None
    return empty[0]


_SALIENT = frozenset(
    [
        "status",
        "balance",
        "amount",
        "value",
        "flag",
        "total",
        "price",
        "result",
        "state",
        "available",
        "decision",
        "due",
        "date",
        "time",
        "start",
        "id",
        "name",
        "error",
        "message",
        "location",
        "eta",
        "severity",
        "consensus",
        "quantity",
        "cash",
        "lat",
        "lon",
        "latitude",
        "longitude",
        "address",
        "description",
        "summary",
        "reason",
    ]
)


def _facts(
    tool: str,
    data: Any,
    wanted: set[str],
    wrote: bool,
    every: bool,
    names: dict[str, str],
    about: str,
    world: World,
    arguments: dict[str, Any],
) -> list[tuple[str, str]]:
    """Up to three fields of at most two records, each as (its label, the sentence): those
    the request asks about first (by their names or their words), then salient ones (a
    read's ids are not). Among several records, those the task is about (`names`: its
    records' ids and names), each labelled by the name the task knows; a lone record with
    no name of its own by the record the call asked `about`; one labelled by its id by the
    name the world gives it."""
    if isinstance(data, dict) and "error" in data and isinstance(data["error"], dict):
        return [
            ("", f"{tool.replace('_', ' ')} returned an error: {data['error'].get('message', '')}")
        ]
    records = _records(data, arguments)
    several = len(records) > 1
    if several:
        records = [r for r in records if _about(r, names)] or records
    out = []
    for record in records[:2]:
        known = _about(record, names)
        key, label = labelled(record, several=several)
        if known and (not label or label in names or label in known):
            label = known
        elif not label and not several:
            label = about
        elif (named := world.get(label)) is not None:
            label = bare_name(named.name)
        shown = [
            (k, v)
            for k, v in record.items()
            if isinstance(v, str | int | float)
            and not isinstance(v, bool)
            and v != ""
            and k != key
            and len(str(v)) <= 60
        ]
        # a flag only when the request asks about it ('is its public link switched off?')
        flags = [
            (k, v) for k, v in record.items() if isinstance(v, bool) and set(tokens(k)) & wanted
        ]
        asked = flags + [(k, v) for k, v in shown if set(tokens(k)) & wanted or _says(v, wanted)]
        salient = _SALIENT if wrote else _SALIENT - {"id"}  # a read's ids answer nothing
        rest = [(k, v) for k, v in shown if every or set(tokens(k)) & salient]
        picked = list(dict.fromkeys([*asked, *rest]))[:3]
        if not picked:
            continue
        body = ", ".join(spoken(k, v) for k, v in picked)
        out.append((label, f"{label}: {body}" if label and label not in body else body))
    return out


def _says(value: Any, wanted: set[str]) -> bool:
    """Whether a text value says one of the request's longer words ('forklift licence')."""
    return isinstance(value, str) and bool(
        {w for w in wanted if len(w) >= 5} & set(re.findall(r"[a-z]{5,}", value.lower()))
    )


def _about(record: dict[str, Any], names: dict[str, str]) -> str:
    """The task's name for the record, when one of its values is the id of a record the task
    is about."""
    return next((names[v] for v in record.values() if isinstance(v, str) and v in names), "")


def _records(data: Any, arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """The records a result shows: a listing's items; an object that holds a list of parts
    (an invoice's lines, a report's headers, a verdict's sources) is itself the record, its
    parts only when it says nothing of its own."""
    if not isinstance(data, dict):
        return []
    lists = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
    echoed = {str(v) for v in arguments.values()}  # a listing repeats its filters
    own = [k for k, v in data.items() if _says_own(k, v) and str(v) not in echoed]
    if lists and not own:
        return list(lists[0])
    return [data]


_LISTING_FIELDS = frozenset(
    ["total", "count", "page", "limit", "offset", "next", "cursor", "as", "at", "generated"]
)


def _says_own(key: str, value: Any) -> bool:
    """A field that is the object's own statement, not a listing's count, page or time."""
    words = set(tokens(key))
    return (
        isinstance(value, str | int | float)
        and not words & _LISTING_FIELDS
        and tokens(key)[-1:] != ["id"]
    )
