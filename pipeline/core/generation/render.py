"""A world result as the tool's observation: records mapped onto its return schema.

Values come from the records (their ids, names and attributes), the call's arguments or the
change made; a required field the state has no value for gets a value plausible for its name
and type (dates before the scenario's today, numbers inside the schema's bounds, people from
the seed's contacts). Nothing is numbered filler: the state is the only source of identity.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from pipeline.core.generation import prose
from pipeline.core.generation.coherent import cohere
from pipeline.core.generation.field_meanings import names_record
from pipeline.core.generation.plausible import MISSING, Plausible, schema_type
from pipeline.core.generation.record_fields import attribute_for, cast_to, fit_to, fits_type
from pipeline.core.generation.record_log import log_entries
from pipeline.core.generation.semantics import (
    NAME_WORDS,
    record_shaped,
    refers_to,
    related,
    tokens,
)
from pipeline.core.generation.series import series
from pipeline.core.generation.write_outcome import reached, runs_out, write_moment
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import Record, ToolResult, World

JSON = Any
_OWN_NAME_FIELDS = frozenset(
    {"name", "title", "test", "label", "subject", "display_name", "full_name", "description"}
)
"""Fields that name the record itself (not `seller_name`, which names someone else)."""
_TOTALS = frozenset(["total", "count"])
_BEFORE_WORDS = frozenset(["old", "previous", "prior", "former"])
_NESTED = 20
"""How many of a record's belongings a nested list shows (a card's fills, a ticket's notes)."""
_STATUS_AFTER = {
    "create": "created",
    "update": "updated",
    "delete": "deleted",
    "send": "sent",
    "read": "active",
    "list": "active",
}


def render(
    tool: Tool,
    result: ToolResult,
    world: World,
    arguments: Mapping[str, Any],
    rng: random.Random,
) -> dict[str, JSON]:
    """The observation a real API would return for `result`."""
    if result.error is not None:
        return {"error": {"code": "not_found", "message": result.error}}
    writer = _Writer(world, arguments, rng, result, tool.name)
    schema = tool.returns
    lists = [
        name
        for name, sub in (schema.get("properties") or {}).items()
        if schema_type(sub) == "array" and schema_type(sub.get("items", {})) == "object"
    ]
    if lists and (result.operation == "list" or not record_shaped(tool)):
        value = writer.listing(schema, lists[0])
    else:
        value = writer.object(schema, result.records[0] if result.records else None)
    if not isinstance(value, dict):
        return {}
    cohere(value, world, arguments)
    return value


class _Writer:
    def __init__(
        self,
        world: World,
        arguments: Mapping[str, Any],
        rng: random.Random,
        result: ToolResult,
        tool: str,
    ) -> None:
        self.world = world
        self.tool = tool
        self.arguments = arguments
        self.rng = rng
        self.result = result
        self.plausible = Plausible(world, result, tool)

    def listing(self, schema: Mapping[str, Any], field: str) -> dict[str, JSON]:
        out: dict[str, JSON] = {}
        for name, sub in (schema.get("properties") or {}).items():
            if name == field:
                item = sub.get("items", {})
                shown = [r for r in self.result.records if not self.belongs_elsewhere(item, r)]
                out[name] = ranked(distinct(name, [self.object(item, r) for r in shown]))
            elif schema_type(sub) in ("integer", "number") and set(tokens(name)) & {
                "total",
                "count",
            }:
                out[name] = len(self.result.records)
            elif name in (schema.get("required") or []):
                # the query a listing answers is echoed beside it (`party_name` of a check)
                echoed = self.echo(name, sub)
                found = self.value(name, sub, self.result.parent, required=True)
                out[name] = echoed if echoed not in (MISSING, "") else found
        return out

    def object(self, schema: Mapping[str, Any], record: Record | None) -> JSON:
        properties: Mapping[str, Any] = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        out: dict[str, JSON] = {}
        for name, sub in properties.items():
            value = self.value(name, sub, record, required=name in required)
            if value is not MISSING:
                out[name] = value
        if record is not None and record.name not in out.values():
            # A record's name belongs in the first field left empty ('test' of a lab result).
            blank = next(
                (
                    k
                    for k, v in out.items()
                    if v == ""
                    and tokens(k)[-1:] != ["id"]
                    and (k in _OWN_NAME_FIELDS or refers_to(k, record) > 0)
                ),
                None,
            )
            if blank is not None:
                out[blank] = record.name
        return out

    def value(
        self, name: str, schema: Mapping[str, Any], record: Record | None, *, required: bool
    ) -> JSON:
        kind = schema_type(schema)
        if "const" in schema:
            return schema["const"]
        if kind == "object":
            linked = self.linked(name, record)
            value = self.object(schema, linked or record)
            named = self.world.get(str(value.get(_own_id(schema)))) if linked is None else None
            return self.object(schema, named) if named not in (None, record) else value
        if kind == "array":
            return self.array(name, schema, record)
        found = self.known(name, schema, record, required=required)
        if found is not MISSING:
            return found
        if self.writes_text(name, schema, record):
            assert record is not None
            return prose.text_for(name, record, self.world, self.tool)
        implied = self.plausible.value(name, schema, record, required=required)
        if implied is MISSING and required and kind == "string" and record is None:
            called = self.called()
            if called is not None:  # what the call says of a thing no record holds
                return self.value(name, schema, called, required=True)
        if implied is MISSING and required and kind == "string" and "html" in tokens(name):
            assert record is not None
            return _page(record, prose.text_for("content", record, self.world, self.tool))
        if implied is MISSING and required and kind == "string":
            # a field whose meaning nothing tells: the record's own name where the field
            # names it, else the last resort that `benchmarks/trace_quality` counts
            own = record is not None and (name in _OWN_NAME_FIELDS or refers_to(name, record) > 0)
            return record.name if own and record is not None else "n/a"
        return implied

    def linked(self, name: str, record: Record | None) -> Record | None:
        """The record a nested object is about: a product's `seller` is the seller's own
        record, read as it reads everywhere, not the product's fields again."""
        attribute = attribute_for(name, record) if record is not None else None
        if record is None or attribute is None:
            return None
        return self.world.get(str(record.attributes[attribute]))

    def belongs_elsewhere(self, item: Mapping[str, Any], record: Record) -> bool:
        """Whether a listing's item would show `record` under another record's id: an
        encounter found for a patient search is no patient match."""
        own = _own_id(item)
        if own is None or own == "id":
            return False
        attribute = attribute_for(own, record)
        if attribute is None:  # a contact in a file search: `file_id` names nothing of it
            return refers_to(own, record) == 0
        held = str(record.attributes[attribute])
        return held != record.id and self.world.get(held) is not None

    def called(self) -> Record | None:
        """The thing a call names when the world holds no record of it (a historian tag, a
        CI run): its own arguments, named by the first of them."""
        said = {
            k: v
            for k, v in self.arguments.items()
            if isinstance(v, str | int | float | bool) and str(v).strip()
        }
        if not said:
            return None
        first = str(next(iter(said.values())))
        key = re.sub(r"\W+", "_", first.lower()).strip("_")[:40] or "call"
        return Record(id=f"call_{key}", kind="call", name=first, attributes=said)

    def writes_text(self, name: str, schema: Mapping[str, Any], record: Record | None) -> bool:
        """A read's free-text field the record holds no text for: the record's own text."""
        free = schema_type(schema) == "string" and not {"enum", "format", "maxLength"} & set(schema)
        return free and record is not None and self.result.change is None and prose.writes(name)

    def array(self, name: str, schema: Mapping[str, Any], record: Record | None) -> JSON:
        items = schema.get("items") or {}
        if schema_type(items) == "object":
            if record is None:
                return []
            belongs = [r for r in related(self.world, record) if refers_to(name, r) > 0]
            belongs = belongs or log_entries(self.plausible, record, name, items)
            belongs = belongs or series(record, name, items, self.world)
            return distinct(name, [self.object(items, r) for r in belongs[:_NESTED]])
        if record is not None:
            attribute = attribute_for(name, record)
            if attribute is not None:
                parts = [p.strip() for p in str(record.attributes[attribute]).split(",")]
                return [cast_to(p, items) for p in parts if p]
            if schema_type(items) == "string":
                # `active_prescriptions`: the ids (or names) of what belongs to the record
                belongs = [r for r in related(self.world, record) if refers_to(name, r) > 0]
                named = set(tokens(name)) & NAME_WORDS
                if belongs or self.result.change is None:
                    return [r.name if named else r.id for r in belongs[:_NESTED]]
        change = self.result.change
        if change is not None and schema_type(items) == "string":
            return reached(name, change, record, self.world)  # where a write went
        return []

    def known(
        self, name: str, schema: Mapping[str, Any], record: Record | None, *, required: bool
    ) -> JSON:
        words = tokens(name)
        writes = self.result.change is not None
        if writes and words[:1] and words[0] in _BEFORE_WORDS:
            # `old_value`, `previous_replicas`: the record as it was, never the call's value
            before = self.result.before
            held = attribute_for("_".join(words[1:]), before) if before and words[1:] else None
            if before is not None and held is not None:
                return fit_to(cast_to(before.attributes[held], schema), schema)
            return MISSING
        if writes:
            echoed = self.echo(name, schema)
            if echoed is not MISSING:
                return echoed
            said = str(schema.get("description", ""))
            if set(words) & {"status", "state"} and re.fullmatch(r"[a-z_]+", said):
                return said  # the field says what a write answers ('sent'), not the Rx's 'filled'
            if set(words) & _MADE and set(words) & {"at", "time", "timestamp", "on"}:
                return write_moment(self.world)  # a reply now, not at its comment's time
            if self._sends_new(words):
                return self.outcome(name, schema)
            until = runs_out(name, self.result.change, self.world) if self.result.change else None
            if until is not None:
                return until[:10] if schema.get("format") == "date" else until
            if set(words) & _UNTIL and self.result.operation in ("create", "send"):
                return MISSING  # a share's expiry is its own, not the shared passport's
        if record is not None:
            attribute = attribute_for(name, record, schema.get("format"))
            kept = record.attributes[attribute] if attribute is not None else None
            if (
                words[-1:] == ["id"]
                and (name == "id" or refers_to(name, record) > 0)
                and schema_type(schema) == "string"
                and (kept is None or self.world.get(str(kept)) is None)
            ):
                # the id every call passes for it, even where the record also holds one
                # (`instance_id: i-0c19…`): a listing must show what the next call sends;
                # a link it holds (a card payment's `card_id`) stays the linked record's
                return record.id
            if attribute is not None:
                return fit_to(cast_to(kept, schema), schema)
            if names_record(words, record) and schema_type(schema) == "string":
                return record.name
        if not writes and self.result.operation != "list":
            # a listing's filters (`start`, `end`, `status`) are not fields of what it lists
            echoed = self.echo(name, schema)
            if echoed is not MISSING:
                return echoed
        stated = _state_named(record) if record is not None and not writes else None
        if (
            stated is not None
            and set(words) & {"status", "state"}
            and schema_type(schema) == "string"
        ):
            return fit_to(stated, schema)  # 'Open stop order NVDA' is open wherever it is read
        if record is not None and not writes and not required:
            return MISSING  # a record's state it does not hold is no operation's outcome
        return self.outcome(name, schema)

    def echo(self, name: str, schema: Mapping[str, Any]) -> JSON:
        """An argument the answer repeats: the same field, or one it ends with
        (`debited_amount` <- `amount`)."""
        words = tokens(name)
        for key, value in self.arguments.items():
            have = tokens(key)
            if (key == name or (have and words[-len(have) :] == have)) and fits_type(value, schema):
                return value
        return MISSING

    def _sends_new(self, words: list[str]) -> bool:
        """The id of what a send makes (`mail_send_message`'s `message_id`): a new one, not
        the message it answered (auditors: three sends all came back as the inbox's
        `msg_sam_pipeline_report`)."""
        sends = self.result.operation == "send"
        return sends and words[-1:] == ["id"] and words[0] in tokens(self.tool)[1:]

    def outcome(self, name: str, schema: Mapping[str, Any]) -> JSON:
        """Fields about the operation itself: its id, status, who it reached."""
        words = set(tokens(name))
        change = self.result.change
        if change is not None and tokens(name)[-1:] == ["id"] and schema_type(schema) == "integer":
            # the next of the family's numbers: a triggered run after run 48241, not run 48213
            held = [v for r in self.world.records if type(v := r.attributes.get(name)) is int]
            return (max(held) if held else 4093) + 7 * len(self.world.changes)
        if change is not None and tokens(name)[-1:] == ["id"]:
            stamp = self.world.today.replace("-", "")
            return f"{tokens(name)[0]}_{stamp}_{len(self.world.changes):02d}"
        if (
            change is not None
            and change.recipient
            and words & {"to", "recipient", "delivered", "sent"}
            and not words & {"at", "time", "timestamp", "date", "on"}
            and schema_type(schema) == "string"
        ):
            return change.recipient
        if words & {"status", "state", "result"} and schema_type(schema) == "string":
            status = _STATUS_AFTER[self.result.operation]
            options = schema.get("enum")
            if options:
                return next((o for o in options if o == status), options[0])
            return status
        return MISSING


_STATES = frozenset({
    "open", "closed", "pending", "draft", "cancelled", "paid", "overdue", "active", "suspended",
    "expired", "approved", "rejected", "failed", "resolved", "archived", "scheduled", "completed",
    "frozen", "locked", "disabled",
})  # fmt: skip


def _state_named(record: Record) -> str | None:
    """The state a record's name gives it ('Draft invoice for Orbit Events' is a draft)."""
    return next((w for w in re.findall(r"[a-z]+", record.name.lower()) if w in _STATES), None)


def _own_id(schema: Mapping[str, Any]) -> str | None:
    """The field an object's own id sits in: its first `id` or `..._id` property."""
    return next((k for k in schema.get("properties") or {} if k == "id" or k.endswith("_id")), None)


def _page(record: Record, text: str) -> str:
    """A page's HTML around a record's text: its name as title and heading, one paragraph
    per block of the text."""
    paragraphs = "".join(f"<p>{escape(b)}</p>" for b in text.split("\n\n") if b.strip())
    title = escape(record.name)
    return (
        f"<!DOCTYPE html><html><head><title>{title}</title></head>"
        f"<body><main><h1>{title}</h1>{paragraphs}</main></body></html>"
    )


def ranked(items: list[JSON]) -> list[JSON]:
    """A listing's `rank` or `position` is where the item stands in it, from 1."""
    for place, item in enumerate(items, start=1):
        for key in ("rank", "position"):
            if isinstance(item, dict) and isinstance(item.get(key), int):
                item[key] = place
    return items


def distinct(field: str, items: list[JSON]) -> list[JSON]:
    """A listing never shows the same record twice: items whose identity repeats go."""
    seen: set[str] = set()
    kept = []
    for item in items:
        key = identity(field, item) if isinstance(item, Mapping) else None
        if key is not None and key in seen:
            continue
        if key is not None:
            seen.add(key)
        kept.append(item)
    return kept


_MOMENT_WORDS = frozenset(["ts", "timestamp", "at", "start", "time", "date"])
_UNTIL = frozenset(["expires", "expiry", "expiration"])
_MADE = frozenset(
    ["posted", "sent", "created", "published", "uploaded", "submitted", "replied", "shared"]
)
"""What a write just did, when its answer says when (`posted_at`)."""


def identity(field: str, item: Mapping[str, Any]) -> str | None:
    """A listed item's own identity: its `id`, or the id named for what the list holds (a
    bill's `bill_id`), else its first id with its time where it has one — a channel's
    messages share their authors' `user_id`, each at its own `ts`."""
    ids = [k for k in item if k.endswith("id") and item[k] not in ("", None)]
    if not ids:
        return None
    nouns = {_singular(w) for w in tokens(field)}
    own = next((k for k in ids if k == "id" or set(tokens(k)[:-1]) & nouns), None)
    if own is not None:
        return str(item[own])
    moment = next((k for k in item if tokens(k)[-1:] and tokens(k)[-1] in _MOMENT_WORDS), None)
    return f"{item[ids[0]]}@{item[moment]}" if moment else str(item[ids[0]])


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    return word.removesuffix("s")


def records_in(observation: Mapping[str, Any], world: World) -> Sequence[Record]:
    """The world's records an observation shows, found by id anywhere in it."""
    text = repr(observation)
    return [r for r in world.records if r.id in text]
