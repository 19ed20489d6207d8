"""What a write does to the world: the record it acts on, the state its verb puts it in, the
money it moves between the records it names, whom a send reaches and which of its records
are sensitive, and the record a create makes (named for what the tool makes: a
`comment_on_issue` makes a comment)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pipeline.core.generation.done import past
from pipeline.core.generation.semantics import affinity, tokens, verbs
from pipeline.core.generation.write_outcome import goes_outside, write_moment
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import Operation, Record, Scalar, ToolResult, World, WorldChange


def write(
    world: World,
    tool: Tool,
    op: Operation,
    named: list[Record],
    focus: tuple[str, ...],
    arguments: Mapping[str, Any],
) -> tuple[World, ToolResult]:
    """The world after the write, and what the write's answer reports."""
    args = dict(arguments)
    target = _write_target(tool, named, focus, world, args)
    if op == "create" or target is None:
        number = 1 + sum(1 for c in world.changes if c.operation == "create")
        kind = _kind_word(tool)
        created = Record(
            id=f"{kind}_{world.today.replace('-', '')}_{number:02d}",
            kind=kind,
            name=_created_name(tool, args),
            attributes={k: v for k, v in args.items() if isinstance(v, str | int | float | bool)},
        )
        change = WorldChange(tool=tool.name, operation="create", target=created.id, arguments=args)
        spent = _spent(world, args)  # a buy of 6,500 at 1.85 leaves the cash less 12,025
        after = world.with_change(change, [created, *spent], [])
        return after, _result("create", [created], change)
    if op == "delete":
        change = WorldChange(tool=tool.name, operation=op, target=target.id, arguments=args)
        # a cancellation answers `cancelled`, not the state the record was in
        gone = _updated(target, [], {}, state_after(tool, args))
        return world.with_change(change, [], [target.id]), _result(op, gone, change)
    if op == "send":
        disclosed = [r.id for r in [target, *named] if r.sensitive]
        change = WorldChange(
            tool=tool.name,
            operation=op,
            target=target.id,
            arguments=args,
            recipient=_recipient(args),
            disclosed=tuple(dict.fromkeys(disclosed)),
        )
        # what a send pays out leaves its account (a look-alike's quick transfer of 684.50
        # left the balance a later listing showed untouched)
        paid = _moved({r.id: r for r in [target, *named]}, args)
        after = world.with_change(change, paid, [])
        granted = _granted(after, tool, target, change)
        if granted:
            after = after.with_records(granted)
        return after, _result(op, [target], change)
    updated = _updated(target, named, args, state_after(tool, args))
    updated += _grants_after_handover(world, tool, target, args)
    change = WorldChange(tool=tool.name, operation=op, target=target.id, arguments=args)
    result = ToolResult(operation=op, records=tuple(updated), change=change, before=target)
    return world.with_change(change, updated, []), result


def _result(op: Operation, records: list[Record], change: WorldChange) -> ToolResult:
    return ToolResult(operation=op, records=tuple(records), change=change)


_SETS_STATE = frozenset([
    "cancel", "approve", "reject", "close", "archive", "suspend", "resolve", "block", "freeze",
    "revoke", "disable", "enable", "publish", "pause", "confirm", "deny", "void", "refund",
    "terminate", "quarantine", "isolate", "wipe", "lock", "unlock", "deactivate", "stop",
    "decline", "escalate", "dismiss", "retire",
])  # fmt: skip
"""Verbs whose call puts its record in a state named by their past participle (a cancelled
booking, a terminated instance)."""
_PARTICIPLES = {"freeze": "frozen"}
"""Participles that are not the past tense `done.past` gives ('froze')."""


def state_after(tool: Tool, arguments: Mapping[str, Any]) -> str | None:
    """The state the tool's verb puts its record in, unless the call turns it off
    (`bank_freeze_card` with `frozen: false` unfreezes)."""
    verb = next((w for w in tokens(tool.name) if w in _SETS_STATE), None)
    if verb is None:
        return None
    state = _PARTICIPLES.get(verb) or past(verb)
    if any(v is False and k in (verb, state) for k, v in arguments.items()):
        return None
    return state


def _updated(
    target: Record, named: list[Record], args: Mapping[str, Any], state: str | None = None
) -> list[Record]:
    """The target with the attributes the call sets, its `status` the state its verb puts it
    in (a cancelled booking answers `cancelled`, not `confirmed`); money moved between the
    records named."""
    records = {r.id: r for r in [target, *named]}
    changed: dict[str, dict[str, Scalar]] = {rid: {} for rid in records}
    renamed = target.name
    for key, value in args.items():
        # `new_owner_email` sets the folder's `owner`, `new_status` its `status`
        words = tokens(key)
        plain = (
            "_".join(w for w in words if w not in ("new", "email")) if words[0] == "new" else key
        )
        if isinstance(value, str | int | float | bool) and plain in target.attributes:
            changed[target.id][plain] = value
        elif plain == "name" and words[0] == "new" and isinstance(value, str) and value:
            renamed = value  # a rename answers the new name (auditors: it gave the old one)
    version = target.attributes.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and "version" not in args:
        changed[target.id]["version"] = version + 1  # an edit of SPA v4 makes version 5
    held = next((k for k in ("status", "state") if k in target.attributes), None)
    if state is not None and held is not None and held not in changed[target.id]:
        changed[target.id][held] = state
    for moved in _moved(records, args):
        changed[moved.id] |= {k: v for k, v in moved.attributes.items() if "balance" in k}
    return [
        r.model_copy(
            update={
                "attributes": {**r.attributes, **changed[r.id]},
                "name": renamed if r.id == target.id else r.name,
            }
        )
        for r in records.values()
        if changed[r.id] or r.id == target.id
    ]


def _moved(records: Mapping[str, Record], args: Mapping[str, Any]) -> list[Record]:
    """The records the call's amount leaves (`from_…`, `source_…`) or reaches, their
    balances moved by it."""
    amount = next(
        (float(v) for k, v in args.items() if "amount" in tokens(k) and isinstance(v, int | float)),
        None,
    )
    if amount is None:
        return []
    moved = []
    for key, value in args.items():
        record = records.get(str(value))
        if record is None:
            continue
        sign = -1 if tokens(key)[:1] in (["from"], ["source"]) else 1
        balances = {
            attribute: round(current + sign * amount, 2)
            for attribute, current in record.attributes.items()
            if "balance" in attribute and isinstance(current, int | float)
        }
        if balances:
            moved.append(
                record.model_copy(update={"attributes": {**record.attributes, **balances}})
            )
    return moved


def _spent(world: World, args: Mapping[str, Any]) -> list[Record]:
    """The account an order to buy draws on, its cash less quantity times price (auditors:
    buying power unchanged after an accepted 12,025 USD buy)."""
    side = str(args.get("side", "buy")).lower()
    quantity = args.get("quantity")
    price = next((v for k, v in args.items() if tokens(k)[-1:] == ["price"]), None)
    numbers = [
        v for v in (quantity, price) if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    if side != "buy" or len(numbers) < 2:
        return []
    cost = float(numbers[0]) * float(numbers[1])
    spent = []
    for value in args.values():
        record = world.get(str(value)) if isinstance(value, str) else None
        held = {
            k: round(v - cost, 2)
            for k, v in (record.attributes.items() if record is not None else ())
            if k in _CASH and isinstance(v, int | float) and not isinstance(v, bool)
        }
        if record is not None and held:
            spent.append(record.model_copy(update={"attributes": {**record.attributes, **held}}))
    return spent


_CASH = frozenset({"cash", "settled_cash", "buying_power", "available_cash"})


def _grants_after_handover(
    world: World, tool: Tool, target: Record, arguments: Mapping[str, Any]
) -> list[Record]:
    """The grants on a record whose ownership a call hands over: the old owner's becomes an
    editor's, the new owner's an owner's (auditors read 'Owner grant: Rob, role owner' in
    the answer to the transfer that made Ines the owner)."""
    if "ownership" not in tokens(tool.name):
        return []
    new_owner = next(
        (str(v) for k, v in arguments.items() if "owner" in tokens(k) and isinstance(v, str)), None
    )
    if new_owner is None:
        return []
    moved = []
    for grant in world.records:
        if target.id not in grant.attributes.values() or "role" not in grant.attributes:
            continue
        held = grant.attributes["role"]
        role = "owner" if grant.attributes.get("grantee") == new_owner else None
        role = role or ("editor" if held == "owner" else None)
        if role is not None and role != held:
            attributes = {**grant.attributes, "role": role}
            moved.append(grant.model_copy(update={"attributes": attributes}))
    return moved


def _granted(world: World, tool: Tool, target: Record, change: WorldChange) -> list[Record]:
    """A share's grant, listed with the record's others, and the record now shared outside
    where it went outside (auditors: a payroll file shared with an outside address still
    read `shared: internal` and listed no new grant)."""
    words = set(tokens(tool.name))
    grants = [
        r
        for r in world.records
        if target.id in r.attributes.values() and {"grantee", "role"} <= set(r.attributes)
    ]
    if not words & {"share", "grant"} or not grants or not change.recipient:
        return []
    outside = goes_outside(change, world)
    role = next((str(v) for k, v in change.arguments.items() if tokens(k)[-1:] == ["role"]), None)
    grant = grants[0].model_copy(
        update={
            "id": f"permission_{world.today.replace('-', '')}_{len(world.changes):02d}",
            "name": f"Grant for {change.recipient}",
            "attributes": {
                **grants[0].attributes,
                "grantee": change.recipient,
                "role": role or "viewer",
                "type": "user",
                "external": outside,
                "expires_at": "never",
                "granted_at": write_moment(world),
                "inherited": False,
            },
        }
    )
    if outside and "shared" in target.attributes:
        shared = {**target.attributes, "shared": "external"}
        return [grant, target.model_copy(update={"attributes": shared})]
    return [grant]


def answered(world: World, result: ToolResult, shown: Mapping[str, Any]) -> World:
    """The world holding what a write's answer said of its record: a deploy that answered
    program version 4.11.0 reads 4.11.0 next (auditors read 3.8.2 right after), and the
    record's last-changed stamp is the write's moment."""
    change = result.change
    if change is None:
        return world
    # a deploy makes a program record, but it is the PLC it names whose version moves
    named = [str(v) for k, v in change.arguments.items() if tokens(k)[-1:] == ["id"]]
    ids = named if change.operation == "create" else [change.target or "", *named]
    target = next((r for i in ids if (r := world.get(i)) is not None), None)
    if target is None:
        return world
    kept = {
        k: v
        for k, v in shown.items()
        if k in target.attributes
        and set(tokens(k)) & _ANSWERED
        and isinstance(v, str | int | float)
        and v != target.attributes[k]
    }
    stamped = {  # a send or a share changes who has it, not the thing itself
        k: write_moment(world)
        for k, v in target.attributes.items()
        if change.operation != "send"
        and set(tokens(k)) & _STAMPS
        and isinstance(v, str)
        and re.match(r"\d{4}-\d\d-\d\dT", v)
    }
    if not kept and not stamped:
        return world
    attributes = {**target.attributes, **stamped, **kept}
    return world.with_records([target.model_copy(update={"attributes": attributes})])


_ANSWERED = frozenset({"version", "checksum", "sha256", "hash", "firmware"})
"""Fields a write's answer sets anew on its record (a deploy's version and checksum)."""
_STAMPS = frozenset({"updated", "modified", "download", "deployed"})
"""A record's last-changed moments, which a write on it moves to its own moment."""


def _recipient(arguments: Mapping[str, Any]) -> str | None:
    """Whom a send reaches: an address where the call gives one (`recipient_email` over a
    `recipient_name` of 'support')."""
    found = [
        str(value[0] if isinstance(value, list) and value else value)
        for key, value in arguments.items()
        if set(tokens(key))
        & {"to", "recipient", "recipients", "email", "grantee", "destination", "url"}
    ]
    return next((f for f in found if re.search(r"@|://", f)), found[0] if found else None)


def _write_target(
    tool: Tool, named: list[Record], focus: tuple[str, ...], world: World, args: dict[str, Any]
) -> Record | None:
    """The record an argument names by its id or its whole name, before one that only
    mentions it (auditors: a clean-up of a folder acted on the incident whose text names
    the folder), then the one most about the tool."""
    given = {str(v) for v in args.values() if isinstance(v, str | int)}
    named = [r for r in named if r.id in given or r.name in given] or named
    if named:
        return max(named, key=lambda r: (affinity(tool, r), r.id in focus))
    focused = [r for f in focus if (r := world.get(f)) is not None]
    return max(focused, key=lambda r: affinity(tool, r)) if focused else None


_ALL_OPS: tuple[Operation, ...] = ("read", "list", "create", "update", "delete", "send")


_LINKING = frozenset({"on", "to", "for", "with", "from", "in", "at", "by", "of", "into"})


def _kind_word(tool: Tool) -> str:
    """What a create makes, by the tool's name: `comment_on_issue` makes a comment (not an
    'on': a created record was `on_20240829_01`)."""
    words = [
        w
        for w in tokens(tool.name)[1:]
        if w not in _LINKING and not any(w in v for v in (verbs(op) for op in _ALL_OPS))
    ]
    last = tokens(tool.name)[-1]
    made = words[-1] if words else (last if last in _NOUN_VERBS else "item")
    return made.rstrip("s") or "item"


_NOUN_VERBS = frozenset({"order", "transfer", "payment", "refund", "booking", "reply", "report"})
"""Words that are a tool's verb and what it makes: `place_order` makes an order, not an
'item_20240216_01'."""


def _created_name(tool: Tool, arguments: Mapping[str, Any]) -> str:
    for key in ("title", "subject", "name", "file_name", "filename", "summary"):
        value = arguments.get(key)
        if isinstance(value, str) and value:
            return value
    return _fetched_file(arguments) or " ".join(tokens(tool.name)[1:]).capitalize()


def _fetched_file(arguments: Mapping[str, Any]) -> str:
    """The file a download saves is named as its URL names it: fetching `…/fix.csv` gave
    `download-file-to-workspace.pdf`."""
    for value in arguments.values():
        if isinstance(value, str) and re.match(r"https?://", value):
            leaf = urlsplit(value).path.rsplit("/", 1)[-1]
            if re.search(r"\.\w{2,4}$", leaf):
                return leaf
            if re.search(r"[A-Za-z]", leaf):
                return f"{leaf}.html"  # a page saved as what it is
    return ""
