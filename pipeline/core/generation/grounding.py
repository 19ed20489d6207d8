"""Grounded arguments: every value of a call comes from somewhere a reader can point at.

`plan_arguments` fills a tool's parameters from the user's request, the records the task is
about (as earlier observations showed them), the seed's policies, or — for the one planned
deviation — the risk; each value's source is recorded. A required value with no source is
marked `default`, which the grounding check counts as a defect.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from pipeline.core.generation.content import bare_name
from pipeline.core.generation.naming import focus_records as focus_records
from pipeline.core.generation.options import chosen_options, first_option, options_of
from pipeline.core.generation.picked import (
    dated_by_task,
    handed_to,
    its_branch,
    named_after_its_role,
    the_day_before,
    the_speaker,
    thread_replied_to,
)
from pipeline.core.generation.postal import address_part
from pipeline.core.generation.record_values import WINDOW_WORDS, first_record_value, recorded
from pipeline.core.generation.request_values import (
    composed_field,
    edited_text,
    said_whole,
    short_text,
    unsourced,
)
from pipeline.core.generation.semantics import (
    is_free_text_field,
    operation_of,
    tokens,
)
from pipeline.core.generation.stated import said_option, shaped_value, stated_value
from pipeline.core.generation.user_words import (
    NOTHING_STATED,
    TRAILING_WORDS,
    stated_part,
    whole_words,
)
from pipeline.core.generation.written import (
    asked_change,
    change_title,
    dictated,
    names_change,
    reply_subject,
    reports_findings,
    rewritten,
    sends_message,
    summary_note,
    writes_as_text,
    written,
)
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import ArgumentSource, World

_NEGATIVE_KEYS = frozenset(
    [
        "excludes",
        "exclude",
        "excluded",
        "restricted",
        "restriction",
        "blocked",
        "denied",
        "forbidden",
        "alert",
        "not",
    ]
)
"""Attribute names whose values say what must NOT be done: never a source of options."""


@dataclass
class Plan:
    """Planned arguments of one call, and where each came from."""

    arguments: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, ArgumentSource] = field(default_factory=dict)

    def set(self, name: str, value: Any, source: ArgumentSource) -> None:
        self.arguments[name] = value
        self.sources[name] = source


def plan_arguments(
    tool: Tool,
    world: World,
    focus: Sequence[str],
    request: str,
    seen: Sequence[str],
    shown: str = "",
) -> Plan:
    """Arguments a careful agent would pass for this task. `seen` are ids of records earlier
    observations showed; together with `focus` they are the records the agent may name.
    `shown` is what the agent has seen so far, where a search term may come from."""
    plan = Plan()
    properties: Mapping[str, Any] = tool.parameters.get("properties") or {}
    required = set(tool.parameters.get("required") or [])
    known = [r for r in (world.get(i) for i in dict.fromkeys((*focus, *seen))) if r is not None]
    context = " ".join(
        [
            request,
            *(
                str(v)
                for r in known
                if r.id in focus
                for k, v in r.attributes.items()
                if not set(tokens(k)) & _NEGATIVE_KEYS
            ),
        ]
    )
    used: set[str] = set()
    about = [r for r in known if r.id in focus]
    for name, schema in properties.items():
        needed = name in required
        asked = not needed and _asked_for(name, tool, request)
        if options_of(schema):
            chosen = chosen_options(schema, request, context if needed else "")
            if not needed and operation_of(tool) in ("list", "read") and _an_act(chosen, request):
                continue  # 'archive the Quay Dental email' lists no `archive` folder
            if chosen is not None:
                said = _mentions(request, chosen) or chosen_options(schema, request, "") == chosen
                plan.set(name, chosen, "request" if said else "observation")  # 'morning': `am`
            elif needed:
                plan.set(name, first_option(schema), "default")
            continue
        if names_change(name, tool.name) and (title := change_title(request)):
            plan.set(name, title, "composed")
            continue
        if tool.side_effect != "none" and (subject := reply_subject(name, about, request)):
            plan.set(name, subject, "composed")
            continue
        if tool.side_effect != "none" and (thread := thread_replied_to(name, world, request)):
            plan.set(name, thread, "observation")
            continue
        if tool.side_effect != "none" and (part := address_part(name, tool.name, request)):
            plan.set(name, part, "request")
            continue
        today, window = date.fromisoformat(world.today), operation_of(tool) in ("list", "read")
        if (before := the_day_before(schema, request, about, today)) is not None:
            plan.set(name, before, "composed")  # from the record's day and the user's words
            continue
        stated = stated_value(name, schema, request, today, window=window)
        if stated is not None:
            plan.set(name, stated, "request")
            continue
        new = (
            _new_branch(name, tool, request)
            or _new_name(name, tool, request, world)
            or _new_value(name, schema, tool, request, world)
        )
        if new is not None:
            plan.set(name, new, "request")
            continue
        person = named_after_its_role(name, request) or handed_to(name, request)
        if schema.get("type") == "string" and person:
            plan.set(name, person, "request")
            continue
        if schema.get("type") == "string" and (me := the_speaker(name, world, request)):
            plan.set(name, me, "observation")  # the address a listing showed
            continue
        if schema.get("type") == "string" and (branch := its_branch(name, about, request)):
            plan.set(name, branch, "observation")  # the pull request's head, as read
            continue
        names_one = needed and tokens(name)[-1:] == ["name"] and schema.get("type") == "string"
        said = said_option(schema, request) if names_one else None
        if said is not None and world.get(said) is None:
            # 'Brightwater Estates Ltd has asked us …': the party checked is that one, not a
            # conflict hit whose name says 'for this party'
            plan.set(name, said, "request")
            continue
        record, value = recorded(
            name, schema, needed, tool, world, (known, used, focus), (request, shown)
        )
        if record is not None and value is not None:
            source: ArgumentSource = "request" if _mentions(request, value) else "observation"
            named = said_option(schema, request) if value != record.id else None
            if needed and source == "observation" and named and world.get(named) is None:
                # 'lights in the living room': not the alarm panel's room, which a listing
                # showed (auditors: the safe twin lit the entrance hall)
                spoken = re.search(re.escape(named.replace("_", " ")), request, re.IGNORECASE)
                plan.set(name, spoken.group(0) if spoken else named, "request")  # as said
                continue
            if not needed and source != "request" and value not in (record.id, [record.id]):
                continue  # an optional filter the request does not ask for
            if not needed and record.id not in focus:
                continue
            used.add(record.id)
            plan.set(name, value, source)
        elif needed and (
            dated := dated_by_task(
                name,
                schema,
                (about, world, {*used, *map(str, plan.arguments.values())}, shown),
                window and bool(set(tokens(name)[:1]) & WINDOW_WORDS),
            )
        ):
            plan.set(name, dated, "request" if dated in request else "observation")
        elif needed and (said := said_whole(name, schema, world, known, (request, shown))):
            plan.set(name, *said)
        elif (
            needed
            and (guess := first_record_value(name, schema, world, tool, (known, request)))
            is not None
        ):
            plan.set(name, guess, "observation")  # looked up, or the user says which
        elif (needed or asked) and (
            edited := edited_text(name, plan.arguments, world, request)
            or rewritten(name, plan.arguments, world.records, request)
        ):
            plan.set(name, edited, "composed")
        elif (needed or asked or not plan.arguments) and (
            text := written(name, schema, tool.name, request, (about, shown))
        ):
            plan.set(name, text, "composed")
        elif needed or (is_free_text_field(name) and not plan.arguments):
            value, source = unsourced(name, schema, request, world, tool)
            said_nothing = value == NOTHING_STATED or str(value).startswith("Regarding ")
            note = None if sends_message(name, tool.name) else summary_note(about, (request, shown))
            if said_nothing and note:  # a reason or a note says how the record stands
                value, source = note, "composed"
            elif value == NOTHING_STATED and about:  # what it is about, as the trace names it
                value = f"Regarding {bare_name(about[0].name)}."
            plan.set(name, value, source)
        elif not needed and (flag := _said_flag(name, schema, tool, request)) is not None:
            plan.set(name, flag, "request")
        elif asked and (stated := stated_part(request)):
            stated = whole_words(stated, 48) if short_text(name) else stated
            plan.set(name, stated[:1].upper() + stated[1:], "composed")
        elif asked and about and reports_findings(name, tool.name, request):
            # 'note the answer on INC-2024-0412': the note was left out; what the run's reads
            # found replaces this (expand.put_findings)
            standing = summary_note(about, (request, shown))
            plan.set(name, standing or f"Regarding {bare_name(about[0].name)}.", "composed")
    return plan


def _new_value(
    name: str, schema: Mapping[str, Any], tool: Tool, request: str, world: World
) -> str | None:
    """The value a write sets, as the user gave it in the field's own shape ('reassign it to
    m.costa' for `adjuster`), over the one the record holds now: auditors found a claim
    'reassigned' to the adjuster going on leave; inputs given as `key=value` are the JSON
    object a field of such objects takes ('with environment=staging': auditors found a
    staging deploy dispatched with no inputs, so to production)."""
    if tool.side_effect == "none" or tokens(name)[-1:] == ["id"]:
        return None
    examples = [str(e) for e in schema.get("examples") or ()]
    pairs = re.findall(r"\b([a-z_]+)=([\w.:/-]+)", request)
    if pairs and examples and all(e.lstrip().startswith("{") for e in examples):
        return json.dumps({k: v.rstrip(".:/-") for k, v in pairs})
    addressee = bool(set(tokens(name)) & {"recipient", "to", "destination"})
    said = shaped_value(schema, request, addressee=addressee)
    return said if said is not None and world.get(said) is None else None


def _said_flag(name: str, schema: Mapping[str, Any], tool: Tool, request: str) -> bool | None:
    """An optional switch of a write the request speaks of ('let recurring payments keep
    going' is `allow_recurring: true`, 'stop recurring payments' false): auditors found a
    card frozen with the phone bill stopped."""
    if schema.get("type") != "boolean" or tool.side_effect == "none":
        return None
    for word in (w for w in tokens(name) if len(w) >= 5 and w not in _SWITCH_WORDS):
        said = re.search(rf"(?:\b\w+\s+){{0,2}}\b{word}", request, re.I)  # with the 2 before
        if said:
            return not re.search(_NEGATING, said.group(0), re.I)
    return None


_SWITCH_WORDS = frozenset({"allow", "enable", "enabled", "disable", "include", "notify"})
_NEGATING = r"\b(?:no|not|stop|block|cancel|without|don't|never|disable)\b"


def _asked_for(name: str, tool: Tool, request: str) -> bool:
    """Whether an optional text field of a write is one the user asks for by name ('add a
    short memo', 'note the answer on INC-2024-0412') or dictates ('tell him we'll catch up
    Thursday'): auditors found all three left out."""
    words = [w for w in tokens(name) if len(w) >= 4]
    named = any(re.search(rf"\b{w}\b", request, re.I) for w in words)
    told = writes_as_text(name) and dictated(request) is not None  # 'tell him we'll …'
    return tool.side_effect != "none" and composed_field(name) and (named or told)


def _new_branch(name: str, tool: Tool, request: str) -> str | None:
    """The branch a request asks to make without naming it ('Issue #1317: … create a branch
    off main … and open a PR'), in the create, the commit and the PR's head alike:
    'fix/issue-1317' ('fix/spelling' for 'fix the spelling'), as a developer would name it.
    The branch had been named after the file the fix goes in, then after the repository."""
    field = tokens(name)
    if tool.side_effect == "none" or not ("branch" in field or field == ["head"]):
        return None
    if not re.search(
        r"\b(?:create|make|open|cut)\s+a\s+(?:new\s+)?branch\b|\bbranch off\b", request, re.I
    ):
        return None
    if said := re.search(r"\bbranch\s+(?:called\s+|named\s+)([\w.-]*[/-][\w./-]*\w)", request):
        return said[1]
    if issue := re.search(r"#(\d+)", request):
        return f"fix/issue-{issue[1]}"
    words = re.findall(r"[a-z0-9]+", (asked_change(request) or "").lower())[1:]
    slug = "-".join([w for w in words if w not in TRAILING_WORDS][:3])
    return f"fix/{slug}" if slug else None


def _new_name(name: str, tool: Tool, request: str, world: World) -> str | None:
    """`new_instance_id` of a restore 'to new instance': the name the user gave what the call
    makes ('a scratch instance pg-restore-test'), which no record holds yet (auditors: the
    restore went to the production primary's id). A `new_owner_id` of a transfer names an
    existing owner and is not this."""
    words = tokens(name)
    if words[:1] != ["new"] or len(words) < 2 or f"new_{words[1]}" not in tool.name:
        return None
    said = re.findall(
        rf"\b{re.escape(words[1])}\s+(?:called\s+|named\s+)?([\w.-]*[-_\d][\w.-]*)", request
    )
    return next((s.rstrip(".") for s in said if world.get(s.rstrip(".")) is None), None)


def _an_act(option: Any, request: str) -> bool:
    """Whether the request says the option only as a verb ('archive the email'), the act of
    a later step rather than a filter of this read ('in the archive')."""
    if not isinstance(option, str) or not option:
        return False
    word = re.escape(option.replace("_", " "))
    acted = rf"\b{word}\s+(?:the|this|that|it|them|my|her|his|their|all)\b"
    placed = rf"\b(?:in|from|into|to|under)\s+(?:the\s+|my\s+)?{word}\b"
    return bool(re.search(acted, request, re.I)) and not re.search(placed, request, re.I)


def is_empty(value: Any) -> bool:
    """No value at all: an empty or blank string, an empty list or object, null."""
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    return isinstance(value, list | dict) and not value


def unsourced_required(tool: Tool, plan: Plan) -> str | None:
    """The first required field of the call that nothing the user said or a result showed
    gives: sent empty, or (for a consequential call) a schema default. A write acting on a
    made-up value is no safe step, nor is a look-up of nothing that still answers, so
    construction drops the step instead of emitting it."""
    writes = tool.side_effect != "none"
    return next(
        (
            name
            for name in tool.parameters.get("required") or []
            if is_empty(plan.arguments.get(name))
            or (writes and plan.sources.get(name) == "default")
        ),
        None,
    )


def _mentions(request: str, value: Any) -> bool:
    values = value if isinstance(value, list) else [value]
    return all(str(v).lower() in request.lower() for v in values)
