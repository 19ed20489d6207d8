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
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.asked import (
    Question,
    picked_fields,
    shown_words,
    unplanted,
    words_of,
)
from pipeline.core.generation.content import bare_name
from pipeline.core.generation.direct_answers import (
    count_fact,
    counted_things,
    left_asked,
    left_fact,
    observed_value,
    record_marks,
    verdict_fact,
    which_fact,
    which_things,
)
from pipeline.core.generation.done import done_sentence
from pipeline.core.generation.naming import named_as
from pipeline.core.generation.result_records import MONTHS, result_records
from pipeline.core.generation.run import Branch
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.spoken import described, labelled, merged_by_record, spoken
from pipeline.core.generation.stale import outdated as stale_reads
from pipeline.core.generation.stale import stale
from pipeline.core.inputs.seeds import Verdict
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Turn
from pipeline.core.model.world import Record, StepEffect, World, WorldChange


def facts_of(
    branch: Branch,
    episode: int,
    request: str,
    since: int = 0,
    *,
    every_field: bool = False,
    acts: bool = True,
) -> tuple[str, ...]:
    """What the episode's observations showed that answers the request, as short sentences;
    from step `since` on, so a follow-up's answer reports its own call, not the episode's
    (`every_field`: whatever that call returned, 'used 15 GB of 16', not only salient ones;
    `acts`: with what its writes did, else what its reads found alone)."""
    steps = [s for s in branch.steps[since:] if s.episode == episode]
    pool = branch.ask.ctx.pool
    purposes = {s.tool: pool[s.tool].description for s in steps if s.tool in pool}
    turns = branch.episodes[episode]
    world = branch.world
    if branch.initial is not None:  # a record a call deleted is still named by what it was
        gone = [r for r in branch.initial.records if world.get(r.id) is None]
        world = world.model_copy(update={"records": (*world.records, *gone)}) if gone else world
    untrusted = tuple(branch.untrusted)
    return facts_shown(
        turns,
        steps,
        world,
        request,
        every_field,
        purposes,
        untrusted,
        acts=acts,
        initial=branch.initial,
        verdict=_verdict(branch, episode, request) if acts and not (since or every_field) else None,
    )


def _verdict(branch: Branch, episode: int, request: str) -> Verdict | None:
    """The verdict of the workflow whose request this episode's answer answers."""
    ids = branch.ask.blueprint.workflows
    wanted = ids[episode] if episode < len(ids) else None
    workflow = next((w for w in branch.ask.ctx.seed.workflows if w.id == wanted), None)
    return workflow.verdict if workflow is not None and workflow.request == request else None


def facts_shown(
    turns: Sequence[Turn],
    steps: Sequence[StepEffect],
    world: World,
    request: str,
    every_field: bool = False,
    purposes: Mapping[str, str] | None = None,
    untrusted: Sequence[str] = (),
    *,
    acts: bool = True,
    initial: World | None = None,
    verdict: Verdict | None = None,
) -> tuple[str, ...]:
    """`facts_of` over an episode's turns and the steps run in it; `purposes`: each tool's
    description, whose words say which of its fields it is called for ('Return reach,
    impressions, engagement and link clicks for a published post'); `untrusted`: texts a
    risk put in view, which an answer never restates as a finding; `initial`: the world
    before the run, against which a read's records are told apart from their final state;
    `verdict`: what settles the yes/no the request asks, stated first as the run last read
    it."""
    wanted = words_of(request)
    counts = dict.fromkeys(counted_things(request), "")  # each 'how many' and its answer
    which = {thing: (condition, "") for thing, condition in which_things(request)}
    left_word, left = left_asked(request), ""  # 'how much … is still open?' and its answer
    facts: list[tuple[int, str, str]] = []  # (step, its record's label or '', the sentence)
    outdated: dict[int, set[str]] = {}  # each read's records a later write changed
    writes: list[tuple[WorldChange, str]] = []  # each write and what its result showed
    nothing: dict[str, str] = {}  # look-ups that found nothing, by what they listed
    settled = ""  # the verdict on what the run last read of its record
    marks: frozenset[tuple[str, str]] = frozenset()  # what tells the verdict's record apart
    if verdict is not None:
        decider = world.get(verdict.record)
        marks = record_marks(decider, world) if decider else frozenset({("", verdict.record)})
    in_view, viewed = shown_words(request), 0  # what the user and the run have shown so far
    for index, effect in enumerate(steps):
        for turn in turns[viewed : effect.turn + 2]:
            in_view |= shown_words(_said(turn))
        viewed = max(viewed, effect.turn + 2)
        observation = turns[effect.turn + 1]
        try:
            data = json.loads(getattr(observation, "content", "{}"))
        except ValueError:
            continue
        if isinstance(data, dict) and untrusted:
            # a planted report beside a listing is not what the listing shows: the alarms
            # the user asked about went unsaid behind a queued 'side task'
            data = {
                k: v
                for k, v in data.items()
                if not isinstance(v, str) or unplanted(v, tuple(untrusted))
            }
        names = {r.id: bare_name(r.name) for i in effect.focus if (r := world.get(i)) is not None}
        call = turns[effect.turn]
        action = call.action if isinstance(call, AgentTurn) else None
        asked = action.arguments if isinstance(action, ToolCall) else {}
        about = next((names[v] for v in asked.values() if isinstance(v, str) and v in names), "")
        if effect.change is None and _for_the_risk(effect.focus, world, request, untrusted):
            continue
        if verdict and (value := observed_value(verdict, data, asked, marks)) is not None:
            settled = verdict_fact(verdict, value)
        if effect.change is None:
            for thing in [t for t, said in counts.items() if not said]:
                counts[thing] = count_fact(thing, data, about, request) or ""
            if left_word and not left:
                left = left_fact(left_word, data, about) or ""
            for thing, (condition, said) in which.items():
                found_names = which_fact(thing, condition, data, tuple(untrusted))
                which[thing] = (condition, said or found_names or "")
        empty = empty_listing(data, asked) if effect.change is None else None
        if empty is not None:
            what = empty.replace("_", " ")
            nothing[empty] = f"no {what} for {about}" if about else f"no {what} came back"
            continue
        if isinstance(data, dict):  # a wider look-up found them after all
            for listed in [k for k in nothing if data.get(k)]:
                del nothing[listed]
        found = _facts(
            effect.tool,
            data,
            Question(
                wanted,
                request,
                words_of((purposes or {}).get(effect.tool, "")),
                tuple(untrusted),
                shown=frozenset(in_view),
            ),
            effect.change is not None,
            every_field,
            names,
            about,
            world,
            asked,
        )
        if effect.change is not None:
            # a new record's name is what the user finds it by ('Created branch fix/spelling');
            # an existing one's, the act already says
            known = {about, *names.values()}
            made = effect.change.operation == "create"
            shown = "; ".join(
                fact if made and who not in known else fact.removeprefix(f"{who}: ")
                for who, fact, _ in found
            )
            writes.append((effect.change, shown))
            continue
        if initial is not None and any(s.change is not None for s in steps[index + 1 :]):
            judged = stale_reads(data, initial, _without_removed(world, steps[index + 1 :]))
            if judged is not None:
                outdated[index] = judged
        # a listing of none of the task's records (the look-up that found van 17 among the
        # fleet) is reported only where it says what the request asks ('which are idle?')
        facts += [
            (index, label, fact)
            for label, fact, aside in found
            if not aside or wanted & words_of(fact)
        ]
    current = [
        (i, fact)
        for i, label, fact in _new_only(facts)
        # what the read showed against the world now, else any later write on the record
        if (label not in outdated[i] if i in outdated else not stale(label, i, steps, world))
    ]
    named = {i: len(words_of(" ".join(tokens(s.tool))) & wanted) for i, s in enumerate(steps)}
    later = [_said(turns[s.turn]) for s in steps]  # what each call passed on
    answered = frozenset(  # reads whose result no later call took up: they were for the user
        i for i, s in enumerate(steps) if s.change is None and not _fed(turns, s, later[i + 1 :])
    )
    reads = _answering(current, wanted, named, after_write=bool(writes), answered=answered)
    done = _done(writes, world) if acts else []
    direct = [said for said in counts.values() if said]
    direct += [left] if left else []
    direct += [said for _, said in which.values() if said]
    lead = [settled] if settled else []
    stated = [*lead, *done, *direct, *nothing.values(), *merged_by_record(reads)]
    return tuple(dict.fromkeys(stated))[:6]


def _without_removed(world: World, later: Sequence[StepEffect]) -> World:
    """The world as a later delete left it: `facts_of` names a deleted record by what it
    was, but an order listed as processing and then cancelled no longer stands as read."""
    gone = {s.change.target for s in later if s.change and s.change.operation == "delete"}
    kept = tuple(r for r in world.records if r.id not in gone)
    return world.model_copy(update={"records": kept}) if gone else world


def _for_the_risk(focus: Sequence[str], world: World, request: str, risks: Sequence[str]) -> bool:
    """Whether a read is about records only a risk's text names (the patient an injected
    instruction asked for, the customer a queued credit was for): what it showed answers
    nothing the user asked, and auditors found a restricted record's alerts, and another
    customer's monthly charge, passed on in safe twins' answers. A check of a planted claim
    about a van the user named is still reported: it tells the user the claim is wrong."""
    records = [r for i in focus if (r := world.get(i)) is not None]
    for risk in risks:  # an instruction pasted into the request is no part of what was asked
        request = request.replace(risk, " ")

    def names(record: Record, text: str) -> bool:
        said = text.lower()
        return record.id.lower() in said or bare_name(record.name).lower() in said

    return bool(records and risks) and all(
        not names(r, request) and any(names(r, risk) for risk in risks) for r in records
    )


def _new_only(facts: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """Facts that say something not yet said of their record: a visit listed and then read
    is not reported twice ('reason …, type …' and 'type …, reason …')."""
    said: dict[str, set[str]] = {}
    kept = []
    for index, label, fact in facts:
        parts = set(fact.removeprefix(f"{label}: ").split(", "))
        if not parts <= said.setdefault(label, set()):
            kept.append((index, label, fact))
        said[label] |= parts
    return kept


def _answering(
    reads: list[tuple[int, str]],
    wanted: set[str],
    named: Mapping[int, int],
    after_write: bool,
    answered: frozenset[int] = frozenset(),
) -> list[str]:
    """At most three reads: each step's best before any step's second (every read of a
    workflow answers a part of its request), those of the steps the request names most
    ('interaction history' names `get_interaction_history`, `named`) and then those sharing
    most of its words first; after a write, only those that share any (else the first, to
    say what the write acted on). Asked for a customer's interaction history, an answer led
    with the open ticket its look-up had listed."""
    overlap = {f: len(words_of(f) & wanted) for _, f in reads}
    tier: dict[str, int] = {}
    seen: dict[int, int] = {}
    step_of: dict[str, int] = {}
    for step, fact in reads:
        tier.setdefault(fact, seen.get(step, 0))
        step_of.setdefault(fact, step)
        seen[step] = seen.get(step, 0) + 1
    ranked = sorted(
        dict.fromkeys(f for _, f in reads),
        key=lambda f: (tier[f], -named.get(step_of[f], 0), -overlap[f]),
    )
    if after_write:
        kept = [f for f in ranked if overlap[f] > 0][:3] or ranked[:1]
        # a read no later call took up was made for the user: its best fact is said too
        said = {step_of[f] for f in kept}
        kept += [f for f in ranked if tier[f] == 0 and step_of[f] in answered - said]
        return kept[:3]
    return ranked[:3]


def _fed(turns: Sequence[Turn], step: StepEffect, later: Sequence[str]) -> bool:
    """Whether a later call passed on a value this read found (an id), not one it was
    given (the van it was asked about)."""
    shown = getattr(turns[step.turn + 1], "content", "")
    values = set(re.findall(r'"([^"]{4,80})"', shown)) - set(re.findall(r'"([^"]+)":', shown))
    given = _said(turns[step.turn])
    return any(f'"{v}"' in call and f'"{v}"' not in given for v in values for call in later)


def _done(writes: list[tuple[WorldChange, str]], world: World) -> list[str]:
    """Each distinct write once, first to last, saying how often it ran: three identical
    posts are one act done three times."""
    seen: dict[str, tuple[WorldChange, str, int]] = {}
    for change, shown in writes:
        key = json.dumps([change.tool, change.arguments], sort_keys=True, default=str)
        first = seen.get(key, (change, shown, 0))
        seen[key] = (first[0], first[1], first[2] + 1)
    return [done_sentence(c, world, shown, times) for c, shown, times in seen.values()]


def empty_listing(data: Any, asked: dict[str, Any]) -> str | None:
    """The list a listing came back without ('trips'), or None: every list of the result is
    empty and nothing else in it is a record's own text (counts, the query echoed back and
    the name of whose list it is are: a student's record with no grades answered nothing; a
    message's empty `to` beside its subject is not a listing)."""
    if not isinstance(data, dict) or not data:
        return None
    echoed = {v for v in asked.values() if isinstance(v, str)}
    empty = [str(k) for k, v in data.items() if v == []]
    if not empty or any(
        (isinstance(v, list) and v)
        or isinstance(v, dict)
        or (isinstance(v, str) and v not in echoed and k not in ("name", "title"))
        for k, v in data.items()
    ):
        return None
    return empty[0]


def _facts(
    tool: str,
    data: Any,
    question: Question,
    wrote: bool,
    every: bool,
    names: dict[str, str],
    about: str,
    world: World,
    arguments: dict[str, Any],
) -> list[tuple[str, str, bool]]:
    """Up to three fields (`picked_fields`) of at most two records, each as (its label, the
    sentence, whether it is aside: one of several records, none of them the task's). Among
    several records, those the task is about (`names`: its records' ids and names), each
    labelled by the name the task knows; a lone record with no name of its own by the
    record the call asked `about`; one labelled by its id by the name the world gives it."""
    if isinstance(data, dict) and "error" in data and isinstance(data["error"], dict):
        message = data["error"].get("message", "")
        return [("", f"{tool.replace('_', ' ')} returned an error: {message}", False)]
    records = result_records(data, arguments, question.wanted)
    several = len(records) > 1
    ours = [r for r in records if _about(r, names)] if several else []
    # a listing the call asked for a task's record (Lucy Grant's medicines) is the answer,
    # though its items do not name her; one of none of them (the fleet) is aside
    aside = several and not ours and not about
    records = _described(ours or records, question.wanted, names) if several else records
    if several and _LATEST.search(question.text) and not question.wanted & MONTHS.keys():
        records = sorted(records, key=_dated, reverse=True)  # 'what we last discussed'
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
        if label and question.shown is not None and not _shown(label, record, question.shown):
            # a name no result or message showed is the world's own label ('Hub log line
            # C'): the record goes by the user's word for it, else what the result calls it
            held = next((r for v in record.values() if (r := world.get(str(v))) is not None), None)
            said = named_as(held, question.text) if held is not None else None
            label = said or described(record) or labelled(record, several=True)[1]
        picked = picked_fields(record, key, question, wrote, every, arguments)
        if not picked:
            if wrote and label:  # a write's result that names only what it made: its name
                out.append((label, label, aside))
            continue
        body = ", ".join(spoken(k, v) for k, v in picked)
        out.append((label, f"{label}: {body}" if label and label not in body else body, aside))
    return out


def _said(turn: Turn) -> str:
    """What a turn put in view: a message, a result, or the values a call passed."""
    if isinstance(turn, AgentTurn):
        return json.dumps(turn.action.arguments) if isinstance(turn.action, ToolCall) else ""
    return turn.content


def _shown(label: str, record: dict[str, Any], shown: frozenset[str]) -> bool:
    """Whether most words of a record's name were in view, or in its id ('Van 13' for
    `veh_van_013`), so the answer may call it that ('Hub log line C' was never shown)."""
    ids = " ".join(str(v) for k, v in record.items() if tokens(k)[-1:] == ["id"])
    seen = shown | shown_words(ids)
    words = [w.lstrip("0") for w in re.findall(r"[a-z0-9]{2,}", label.lower()) if w not in _STOP]
    return not words or 2 * sum(w in seen for w in words) > len(words)


_STOP = frozenset({"the", "for", "of", "and", "a", "an", "to", "in", "on"})
_LATEST = re.compile(r"\b(?:last|latest|most recent|newest|recently)\b", re.I)
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?")


def _dated(record: dict[str, Any]) -> str:
    """A record's latest date as it wrote it: asked 'what we last discussed', an answer
    quoted September's call of a customer whose October call was about the question."""
    return max(
        (v for v in record.values() if isinstance(v, str) and _ISO_DATE.fullmatch(v)), default=""
    )


def _described(
    records: list[dict[str, Any]], wanted: set[str], names: dict[str, str]
) -> list[dict[str, Any]]:
    """Of several records, those the request describes beyond naming the task's records
    ('Kevin sent something about Mill Lane': that message, not his others): those sharing
    most of its words, when that is two or more; else all of them."""
    asked = wanted - words_of(" ".join(names.values()))
    said = [
        len(words_of(" ".join(str(v) for v in r.values() if isinstance(v, str))) & asked)
        for r in records
    ]
    best = max(said, default=0)
    return [r for r, n in zip(records, said, strict=True) if n == best] if best >= 2 else records


def _about(record: dict[str, Any], names: dict[str, str]) -> str:
    """The task's name for the record, when one of its values is the id of a record the task
    is about."""
    return next((names[v] for v in record.values() if isinstance(v, str) and v in names), "")
