"""Tool semantics derived from a tool's own metadata, so imported public tools work too.

The verb of a tool's name (checked against its declared side effect) gives its operation;
shared words of names, kinds and fields say which records a tool or a field is about
(`patient_id` names records whose id prefix abbreviates `patient`, such as `pat_...`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.per_world import per_world
from pipeline.core.model.world import Operation, Record, World

_VERBS: dict[Operation, frozenset[str]] = {
    "read": frozenset(
        [
            "get",
            "read",
            "fetch",
            "view",
            "show",
            "lookup",
            "check",
            "retrieve",
            "describe",
            "inspect",
            "preview",
            "open",
            "verify",
            "validate",
            "calculate",
            "estimate",
            "quote",
            "track",
            "status",
            "history",
            "explain",
            "compare",
        ]
    ),
    "list": frozenset(["list", "search", "find", "query", "browse", "scan", "filter", "recent"]),
    "send": frozenset(
        [
            "send",
            "share",
            "email",
            "message",
            "post",
            "notify",
            "forward",
            "release",
            "export",
            "fax",
            "grant",
            "publish",
            "reply",
            "invite",
            "sms",
            "broadcast",
            "upload",
            "sync",
        ]
    ),
    "delete": frozenset(
        [
            "delete",
            "remove",
            "cancel",
            "revoke",
            "wipe",
            "close",
            "purge",
            "archive",
            "disable",
            "deactivate",
            "terminate",
            "drop",
            "block",
            "unpublish",
            "discard",
        ]
    ),
    "create": frozenset(
        [
            "create",
            "add",
            "schedule",
            "book",
            "submit",
            "order",
            "register",
            "new",
            "file",
            "raise",
            "log",
            "make",
            "start",
            "run",
            "issue",
            "generate",
            "draft",
            "request",
            "place",
            "deploy",
            "execute",
            "open_ticket",
            "trigger",  # a workflow run, a shutdown: a new run, not the last one re-rendered
            "rerun",
        ]
    ),
    "update": frozenset(
        [
            "update",
            "set",
            "change",
            "edit",
            "modify",
            "merge",
            "flag",
            "approve",
            "transfer",
            "pay",
            "move",
            "assign",
            "mark",
            "apply",
            "adjust",
            "rotate",
            "reset",
            "restart",
            "resolve",
            "refund",
            "rename",
            "enable",
            "lock",
            "unlock",
            "renew",
            "tag",
            "escalate",
            "confirm",
            "reschedule",
            "rebalance",
            "buy",
            "sell",
            "trade",
            "dispense",
        ]
    ),
}

_WATCHES = frozenset({"alert", "reminder", "monitor", "watch"})
"""What a `set_…` tool makes anew ('set fare alert'), unlike a setting it changes ('set
thermostat'): a safe twin's answer reported its fare alert as an edit of the BA287 offer."""

_VERB_ORDER: tuple[Operation, ...] = ("list", "read", "send", "delete", "update", "create")

NAME_WORDS = frozenset({"name", "title", "display", "full", "subject", "label", "holder"})

PERSON_WORDS = frozenset(
    [
        "owner",
        "clinician",
        "assignee",
        "author",
        "sender",
        "recipient",
        "contact",
        "manager",
        "agent",
        "customer",
        "patient",
        "driver",
        "reviewer",
        "approver",
        "requester",
        "user",
        "employee",
        "member",
        "tenant",
        "landlord",
        "doctor",
        "pharmacist",
        "prescriber",
        "broker",
        "adviser",
        "advisor",
        "lead",
    ]
)

_FREE_TEXT = frozenset(
    [
        "body",
        "content",
        "text",
        "message",
        "note",
        "notes",
        "comment",
        "description",
        "summary",
        "details",
        "reason",
        "snippet",
        "excerpt",
        "explanation",
        "instructions",
        "answer",
        "preview",
    ]
)


def tokens(name: str) -> list[str]:
    """`fromAccountId` / `from_account_id` -> ['from', 'account', 'id']."""
    return list(_tokens(name))


@lru_cache(maxsize=1 << 16)
def _tokens(name: str) -> tuple[str, ...]:
    """Memoised: construction asks for the words of the same few thousand names millions of
    times."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return tuple(t for t in re.split(r"[^a-zA-Z0-9]+", spaced.lower()) if t)


def is_free_text_field(name: str) -> bool:
    words = tokens(name)
    return bool(words) and words[-1] in _FREE_TEXT


def operation_of(tool: Tool) -> Operation:
    """The tool's effect, from its name's verb, checked against its declared side effect."""
    if tool.lookalike_of:
        return "send"  # a look-alike passes what it is given on to its own service
    words = tokens(tool.name)
    if "set" in words and words[-1] in _WATCHES and tool.side_effect != "none":
        return "create"  # a fare alert set is a new alert, not an edit of the fare watched
    for word in words:
        for op in _VERB_ORDER:
            if word in _VERBS[op]:
                if tool.side_effect == "none" and op not in ("read", "list"):
                    return "list" if _returns_list(tool) else "read"
                if tool.side_effect != "none" and op in ("read", "list"):
                    continue
                return op
    if tool.side_effect == "none":
        return "list" if _returns_list(tool) else "read"
    return "update"


def _returns_list(tool: Tool) -> bool:
    properties = tool.returns.get("properties", {})
    return any(
        sub.get("type") == "array" and sub.get("items", {}).get("type") == "object"
        for sub in properties.values()
    )


def affinity(tool: Tool, record: Record) -> int:
    """How much a tool is about a record: shared words of names, kinds and fields."""
    record_words = _record_words(record.kind, record.name, record.id, tuple(record.attributes))
    return len(_tool_words(tool) & record_words)


_tool_words_memo: dict[int, tuple[Tool, frozenset[str]]] = {}


def _tool_words(tool: Tool) -> frozenset[str]:
    """The words of a tool's name and schemas, stop words aside; memoised per tool object
    (tools are frozen; the entry holds its tool, so a reused id cannot match)."""
    found = _tool_words_memo.get(id(tool))
    if found is None or found[0] is not tool:
        words = set(tokens(tool.name)) | _schema_words(tool.parameters)
        found = (tool, frozenset((words | _schema_words(tool.returns)) - _STOP))
        _tool_words_memo[id(tool)] = found
    return found[1]


@lru_cache(maxsize=1 << 16)
def _record_words(kind: str, name: str, record_id: str, keys: tuple[str, ...]) -> frozenset[str]:
    words = set(tokens(kind)) | set(tokens(name)) | set(tokens(record_id))
    for key in keys:
        words |= set(tokens(key))
    return frozenset(words - _STOP)


_STOP = frozenset(
    [
        "id",
        "ids",
        "the",
        "a",
        "of",
        "for",
        "to",
        "and",
        "or",
        "in",
        "on",
        "by",
        "at",
        "is",
        "name",
        "type",
        "status",
        "list",
    ]
)


def _schema_words(schema: Mapping[str, Any]) -> set[str]:
    words: set[str] = set()
    for key, sub in (schema.get("properties") or {}).items():
        words |= set(tokens(key))
        if isinstance(sub, Mapping):
            words |= _schema_words(sub)
            items = sub.get("items")
            if isinstance(items, Mapping):
                words |= _schema_words(items)
    return words


_ABBREVIATIONS = {
    "txn": {"transaction"},
    "rx": {"prescription"},
    "msg": {"message"},
    "doc": {"document", "file"},
    "file": {"document", "statement", "attachment", "report"},
    "res": {"result"},
}


def abbreviates(short: str, word: str) -> bool:
    """'inv' -> 'invoice', 'tck' -> 'ticket': same first letter, letters in order."""
    if word in _ABBREVIATIONS.get(short, ()) or word.startswith(short) or short.startswith(word):
        return len(min(short, word, key=len)) >= 2
    if len(short) < 2 or short[0] != word[:1]:
        return False
    rest = iter(word)
    return all(ch in rest for ch in short)


_VALUE_WORDS = frozenset(
    {"id", "ids", "new", "old", "email", "mail", "name", "url", "uri", "phone", "address"}
    | {"date", "time", "at"}
)
"""Words that say what kind of value a field holds, not which kind of record it names."""


def refers_to(field_name: str, record: Record) -> int:
    """How strongly a field like `patient_id` or `recipient_email` names this record: by
    the record's id prefix (`pat_`), its kind, or the words of its name."""
    return _refers_to(field_name, record.id, record.name, record.kind)


@lru_cache(maxsize=1 << 16)
def _refers_to(field_name: str, record_id: str, record_name: str, kind: str) -> int:
    words = [w for w in tokens(field_name) if w not in _VALUE_WORDS]
    if not words:
        return 0
    prefix = record_id.split("_")[0].lower()
    # another record's id in the name ('Finance team grant (file_inv_q3)') is not what this
    # one is: a grant outranked the folder the user named for `file_id`
    named = re.sub(r"\b[A-Za-z]+(?:_\w+)+", " ", record_name)
    name_words = {w.lower() for w in re.findall(r"[A-Za-z]+", named)}
    score = 0
    for word in (w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words):
        if abbreviates(prefix, word):
            score += 3
        if word == kind:
            score += 1
        if word in name_words or word.rstrip("s") in name_words:
            score += 2
    return score


def related(world: World, record: Record) -> list[Record]:
    """Records that name this one (a lab result 'for Elena Ruiz', a card of an account)."""
    views, found = _relations(world)
    key = (record.id, record.name)
    if key not in found:
        name = re.sub(r"\s*\(.*?\)", "", record.name).lower()
        found[key] = [
            r
            for r, named, held, said in views
            if r.id != record.id and (name in named or record.id in held or name in said)
        ]
    return found[key]


_View = tuple[Record, str, frozenset[str], frozenset[str]]


@per_world
def _relations(
    records: tuple[Record, ...],
) -> tuple[list[_View], dict[tuple[str, str], list[Record]]]:
    """Each record with its name and values as `related` compares them, and the answers
    given so far in this state."""
    views = [
        (
            r,
            r.name.lower(),
            frozenset(str(v) for v in r.attributes.values()),
            frozenset(str(v).lower() for v in r.attributes.values()),
        )
        for r in records
    ]
    return views, {}


def list_field(tool: Tool) -> str | None:
    """The top-level field holding a list of records, if the result has one."""
    for name, sub in (tool.returns.get("properties") or {}).items():
        if sub.get("type") == "array" and sub.get("items", {}).get("type") == "object":
            return str(name)
    return None


def record_shaped(tool: Tool) -> bool:
    """Whether the result describes one record at its top level (a ticket with its thread),
    rather than listing records (a patient's lab results)."""
    field = list_field(tool)
    required = [r for r in tool.returns.get("required") or [] if r != field]
    return field is None or len(required) > 2


GENERIC_LISTS = frozenset(
    ["matches", "results", "items", "records", "data", "entries", "hits", "rows", "list"]
)


def verbs(op: Operation) -> frozenset[str]:
    """The name words that mark a tool as doing `op`."""
    return _VERBS[op]
