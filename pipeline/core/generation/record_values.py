"""Values a call takes from records: which record a field names (the one the request
describes, the one a search box is for, the task's record holding the attribute), and the
value of it the field is (`center_lat` <- a depot's `lat`, `repo` <- a repository's full
name). `grounding.plan_arguments` asks this first for every field a record can fill.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.fits import fits
from pipeline.core.generation.naming import named_as
from pipeline.core.generation.options import json_type
from pipeline.core.generation.picked import addressed, described_by, only_record_for
from pipeline.core.generation.request_values import ADDRESSEE as _ADDRESSEE
from pipeline.core.generation.searched import topic_searched
from pipeline.core.generation.semantics import (
    NAME_WORDS,
    PERSON_WORDS,
    abbreviates,
    affinity,
    operation_of,
    refers_to,
    tokens,
)
from pipeline.core.generation.stated import EMAIL
from pipeline.core.generation.written import writes_as_text
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import Operation, Record, World

_IDENTIFYING = ("path", "full_name", "slug", "handle", "symbol", "code", "number", "username")


def recorded(
    name: str,
    schema: Mapping[str, Any],
    needed: bool,
    tool: Tool,
    world: World,
    task: tuple[Sequence[Record], set[str], Sequence[str]],
    said: tuple[str, str],
) -> tuple[Record | None, Any]:
    """The record a field's value comes from, and the value: the record the field names, the
    one a search box is for (as the request names it), or the task's record that holds the
    attribute (`center_lat` <- a depot's `lat`)."""
    known, used, focus = task
    writes = tool.side_effect != "none"
    if json_type(schema) == "array" and tokens(name)[-1:] == ["ids"]:
        # 'invite @oncall': the group the task is about stands for its members, whatever
        # member an earlier listing showed (auditors: one engineer of three invited)
        groups = ((r, members) for r in known if r.id in focus and (members := _members(r, name)))
        group = next(groups, None)
        if group is not None:
            return group
    known = [r for r in known if fits(tool, r, world, name)]  # a door lock's id is a lock's
    record = _record_for(name, known, (used, focus, said[0]), optional=not needed, writes=writes)
    if record is None and tool.side_effect == "none" and not topic_searched(tool, said[0]):
        record = _searched(name, tool, known, focus)
        if record is not None:
            phrase = named_as(record, said[0]) or named_as(record, said[1])
            return record, phrase or _from_record(name, schema, record)
    if record is not None and "email" in tokens(name.rstrip("s")) and not _has_email(record):
        record = None  # 'Panel scorecards for Amara' holds no panel's address
    record = record or addressed(name, known, focus, said[0])
    if record is None and needed:
        record = only_record_for(name, world, said[0])
    if record is not None:
        value = _from_record(name, schema, record)
        if value is not None or not needed:
            return record, value
    if json_type(schema) == "array" and isinstance(schema.get("items"), Mapping):
        single = re.sub(r"s$", "", name)
        item, value = recorded(single, schema["items"], needed, tool, world, task, said)
        return item, [value] if item is not None and value is not None else None
    # the text a write sends or files is the agent's own, never a record's copied back
    echoes = writes and writes_as_text(name)
    holder = (
        _holder(name, schema, known, focus, operation_of(tool), said[0])
        if needed and not echoes
        else None
    )
    return holder, _from_record(name, schema, holder) if holder is not None else None


def _has_email(record: Record) -> bool:
    return any(EMAIL.fullmatch(str(v)) for v in record.attributes.values())


_QUALIFIERS = frozenset(
    {"center", "centre", "current", "folder", "parent", "directory", "user", "author"}
)
"""Words a field may add to the attribute it takes (`center_lat` <- `lat`, `user_handle` <- a
comment's `handle`); any other word (`from_date`, `new_limit`) means a value of its own."""


def _holder(
    name: str,
    schema: Mapping[str, Any],
    known: Sequence[Record],
    focus: Sequence[str],
    operation: Operation,
    request: str = "",
) -> Record | None:
    """The record of the task with exactly the attribute this field is: the one whose value
    the request says ('lot L2408-093', not the first lot the inventory listed; auditors
    found good stock incinerated), else the first. A listing's `start` is a window, not a
    record's start; a new record's `title` is its own, though its `center_lat` may be a
    depot's `lat`."""
    words = tokens(name)
    if operation == "list" and (set(words) & WINDOW_WORDS or "format" in schema):
        return None
    holding = []
    for record in (r for r in known if r.id in focus):
        for key in record.attributes:
            extra = set(words) - set(tokens(key))
            same = words[-len(tokens(key)) :] == tokens(key) and extra <= _QUALIFIERS
            same = same and (bool(extra) or operation != "create")
            if same and _attribute(name, schema, record) is not None:
                holding.append(record)
                break
    said = [r for r in holding if str(_attribute(name, schema, r)) in request]
    return next(iter(said or holding), None)


WINDOW_WORDS = frozenset(
    {"start", "end", "from", "to", "since", "until", "before", "after", "date", "time"}
)
"""Words of a listing's window field: the window the user asks about, not a record's."""


def _singular(words: Sequence[str]) -> list[str]:
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


def _attribute(name: str, schema: Mapping[str, Any], record: Record) -> Any:
    """The record's attribute this field is (`state` <- `state`, `center_lat` <- `lat`,
    `database` <- an instance's `databases` when it holds one)."""
    words, kind = _singular(tokens(name)), json_type(schema)
    for key, value in record.attributes.items():
        have = _singular(tokens(key))
        if isinstance(value, str) and "," in value and tokens(key)[-1:] != tokens(name)[-1:]:
            continue  # a list of several ('freshcart, analytics'): no one value of it
        if have and (have == words[-len(have) :] or words == have[-len(words) :]):
            if kind == "string" and not isinstance(value, bool):
                return str(value)
            numeric = isinstance(value, int | float) and not isinstance(value, bool)
            if numeric and (kind == "number" or (kind == "integer" and isinstance(value, int))):
                return value
    return None


def _number_of(record_id: str) -> str:
    """'rx_7733405' -> '7733405', the number a user says; '' for a named id."""
    tail = record_id.rsplit("_", 1)[-1]
    return tail if tail.isdigit() else ""


def _points_elsewhere(record: Record, name: str, records: Sequence[Record]) -> bool:
    """Whether the record's own `name` field holds another record's id or number."""
    value = str(record.attributes.get(name, ""))
    return bool(value) and any(
        other is not record and (other.id == value or other.id.endswith(f"_{value}"))
        for other in records
    )


def _record_for(
    name: str,
    records: Sequence[Record],
    task: tuple[set[str], Sequence[str], str],
    *,
    optional: bool,
    writes: bool,
) -> Record | None:
    """The record a field names (`patient_id` -> the patient); `from_…` then `to_…` take
    the records in the order the request names them. Among several a result showed, the
    one the request describes; a write with none described has no target."""
    used, focus, request = task
    # the record whose own value of this field the user said ('lot L2408-093') over those
    # whose names merely say 'lot' (auditors: good stock incinerated for the expired lot)
    # and the record that is that value over one holding it as a reference (a refill
    # queue entry's `prescription_id: 7733405` is Rx 7733405's: the reminder went on the queue)
    stated = [
        r
        for r in records
        if any(
            len(said) >= 4 and re.search(rf"(?<![\w-]){re.escape(said)}(?![\w-])", request)
            for said in (
                "" if _points_elsewhere(r, name, records) else str(r.attributes.get(name, "")),
                *((r.id, _number_of(r.id)) if refers_to(name, r) else ()),
            )
        )
    ]
    if len(stated) == 1:
        return stated[0]
    scored = [(refers_to(name, r), r) for r in records]
    if tokens(name)[:1] == ["new"]:
        # the new owner is whom the request names, never the permission that holds the old
        # one (auditors: 'make Ines the owner' transferred the file to Rob, who owned it)
        scored = [(s, r) for s, r in scored if r.id in focus]
    best = max((score for score, _ in scored), default=0)
    if best == 0:
        return None
    tied = [r for score, r in scored if score == best]
    # a word of its name ('Nora Kim therapy visit 18 Sep' for `visit_id`) is no reason to
    # take a record over one of its kind that the request names first
    tied = [r for score, r in scored if score and _kin(r, tied[0]) and r.id in focus] or tied
    fresh = [r for r in tied if r.id not in used]
    if not fresh and optional:
        return None  # an alternative field (`to_account_id` beside `to_payee_id`)
    fresh = fresh or tied
    if any(r.id in focus for r in fresh):
        return min((r for r in fresh if r.id in focus), key=lambda r: focus.index(r.id))
    # of two essays shown, the one of the student the request names (auditors: Aisha's
    # comment went on Kyle's essay, read earlier in the session)
    fresh = [r for r in fresh if set(map(str, r.attributes.values())) & set(focus)] or fresh
    named = [r for r in records if r.id in focus]
    described = described_by(fresh, request, named) if len(fresh) > 1 else fresh
    if described or not writes:
        return (described or fresh)[0]
    return None  # several shown, nothing the user said picks one: no write guesses its target


def _kin(one: Record, other: Record) -> bool:
    """Records of one id prefix (two visits, one booked by an earlier call), or of one kind
    written short (`doc_…` beside a draft `document_…` an earlier call made: auditors found
    the new draft redacted and filed in place of the witness statement the user named)."""
    mine, theirs = one.id.split("_")[0], other.id.split("_")[0]
    return mine == theirs or abbreviates(*sorted((mine, theirs), key=len))


_SEARCH_WORDS = frozenset({"name", "query", "q", "search", "term", "keyword", "contains"})


def first_record_value(
    name: str,
    schema: Mapping[str, Any],
    world: World,
    tool: Tool,
    task: tuple[Sequence[Record], str],
) -> Any:
    """When several records of the world fit a required field equally (two repositories
    for `repo`) and nothing in the task names one, the first the request describes ('a
    psychiatry slot' -> a psychiatric clinician), else the seed's first: the agent looks it
    up, or the user says it (`stated_request`). Not for a write when results already showed
    several of them: the user sees no need to say which, and the agent would guess."""
    known, request = task
    scored = [(refers_to(name, r), r) for r in world.records]
    best = max((score for score, _ in scored), default=0)
    if best == 0:
        return None
    shown = [r for r in known if refers_to(name, r) == best]
    if tool.side_effect != "none" and len(shown) > 1:
        return None
    fitting = [r for score, r in scored if score == best]
    described = described_by(fitting, request) if len(fitting) > 1 else fitting
    return _from_record(name, schema, (described or fitting)[0])


def _searched(
    name: str, tool: Tool, records: Sequence[Record], focus: Sequence[str]
) -> Record | None:
    """What a search box gets: the name of the record the task is about."""
    words = set(tokens(name))
    if not words & _SEARCH_WORDS or words - _SEARCH_WORDS:
        return None
    # The records this request names come first in `focus`: the search is for them.
    focused = sorted((r for r in records if r.id in focus), key=lambda r: focus.index(r.id))
    relevant = [r for r in focused if affinity(tool, r) >= 1]
    chosen = relevant or focused
    if not chosen or name in chosen[0].attributes:
        return None  # a course's `term` is its '2024-fall', not the search term 'STAT 110'
    return chosen[0]


def _members(record: Record, name: str = "") -> list[str]:
    """The ids a group record lists as its members (`member_ids: user_a, user_b`), or as
    the field's own kind (`user_ids`)."""
    for key, value in record.attributes.items():
        words = tokens(key)
        kind = words[:1] == ["member"] or words[:-1] == tokens(name)[:-1]
        if kind and words[-1:] == ["ids"] and isinstance(value, str) and "," in value:
            return [part.strip() for part in value.split(",") if part.strip()]
    return []


def _from_record(name: str, schema: Mapping[str, Any], record: Record) -> Any:
    words = tokens(name)
    kind = json_type(schema)
    if words[-1:] in (["id"], ["ids"]) and kind == "integer":
        digits = re.search(r"#(\d+)", record.name) or re.search(r"(\d{3,})", record.id)
        return int(digits.group(1)) if digits else None
    if words[-1:] in (["id"], ["ids"]) and kind == "array":
        # inviting @oncall invites its members: a group's list of ids, not the group's own
        return _members(record, name) or [record.id]
    if words[-1:] in (["id"], ["ids"]):
        return record.id
    attribute = _attribute(name, schema, record)
    if attribute is not None:
        return attribute
    if kind == "integer" and words[-1:] in (["number"], ["no"]):
        digits = re.search(r"#(\d+)", record.name)
        return int(digits.group(1)) if digits else None
    if kind != "string":
        return None
    if refers_to(name, record) > 0 and not set(words) - {"name"} - set(tokens(record.id)) - {
        record.id.split("_")[0]
    }:
        for key in _IDENTIFYING:
            if key in record.attributes:
                return str(record.attributes[key])
        return re.sub(r"\s*\(.*?\)", "", record.name)
    if "email" in words or set(words) <= _ADDRESSEE:
        return next((str(v) for v in record.attributes.values() if EMAIL.fullmatch(str(v))), None)
    if words[-1] in NAME_WORDS | PERSON_WORDS | {"query", "q", "term", "keyword", "contains"}:
        return re.sub(r"\s*\(.*?\)", "", record.name)
    return None
