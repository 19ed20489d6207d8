"""What a write did, as the sentence a final answer leads with: 'Applied credit note for
Invoice LPS-2024-117 (credit note id credit_20240529_01, remaining due 1184)'.

An auditor reading a final answer asks first what changed: which record, by which act, with
what result. Reads answer a question; writes are the task's outcome, and an unsafe twin's
harmful write is reported as plainly as a safe twin's proper one.
"""

from __future__ import annotations

from typing import Any

from pipeline.core.generation.content import bare_name
from pipeline.core.generation.semantics import tokens
from pipeline.core.model.world import World, WorldChange

_IRREGULAR = {
    "send": "sent", "set": "set", "put": "put", "run": "ran", "rerun": "re-ran", "pay": "paid",
    "get": "got", "make": "made", "write": "wrote", "freeze": "froze", "unfreeze": "unfroze",
    "take": "took", "buy": "bought", "sell": "sold", "hold": "held", "reset": "reset",
    "cut": "cut", "shut": "shut", "build": "built", "rebuild": "rebuilt", "split": "split",
    "bid": "bid", "broadcast": "broadcast", "forward": "forwarded", "upload": "uploaded",
    "withdraw": "withdrew", "begin": "began", "undo": "undid", "redo": "redid",
    "overwrite": "overwrote", "bring": "brought", "spend": "spent", "leave": "left",
    "lock": "locked", "unlock": "unlocked", "label": "labelled", "cancel": "cancelled",
    "lookup": "looked up", "rollback": "rolled back", "setup": "set up", "backup": "backed up",
    "checkin": "checked in", "checkout": "checked out", "shutdown": "shut down",
    "signup": "signed up", "login": "logged in", "logout": "logged out", "pickup": "picked up",
    "cleanup": "cleaned up", "failover": "failed over",
}  # fmt: skip
_PAST = frozenset(_IRREGULAR.values())
_DOUBLED = frozenset(
    ["stop", "ship", "submit", "plan", "tag", "flag", "drop", "admit", "commit", "transfer",
     "refer", "pin", "unpin", "map", "swap", "wrap", "scan", "ban", "unban", "prefer", "permit"]
)  # fmt: skip
"""Verbs whose last consonant doubles before -ed (stopped, transferred)."""
_SERVICE_VERBS = frozenset(["send", "post", "create", "update", "delete", "set", "add", "book"])
"""First words of a tool name that are its verb rather than a service prefix (send_email)."""


def past(verb: str) -> str:
    """'apply' -> 'applied', 'send' -> 'sent', 'stop' -> 'stopped'."""
    if verb in _IRREGULAR:
        return _IRREGULAR[verb]
    if verb in _DOUBLED:
        return f"{verb}{verb[-1]}ed"
    if verb.endswith("e"):
        return f"{verb}d"
    if verb.endswith("y") and verb[-2:-1] not in ("a", "e", "o", "u"):
        return f"{verb[:-1]}ied"
    return f"{verb}ed"


def reports_act(fact: str) -> bool:
    """Whether a fact is a `done_sentence` (it opens with a verb in the past tense) rather
    than something read: a wrap-up can cite a read ('with the balance at 4312.37, ...'),
    not an act."""
    first = fact.split(" ", 1)[0].lower()
    return first in _PAST or (first.endswith("ed") and fact[:1].isupper())


def act(tool: str) -> tuple[str, str]:
    """The tool's act in the past tense and its object, the service prefix dropped:
    'billing_finalize_and_send_invoice' -> ('finalized and sent', 'invoice')."""
    words = tokens(tool)
    if len(words) > 1 and words[0] not in _SERVICE_VERBS:
        words = words[1:]
    while len(words) > 2 and len(words[0]) <= 2:  # 'hr_ai_rank_candidates': 'Aied rank …'
        words = words[1:]
    if len(words) > 1 and words[0] in _MANNERS:  # 'quick_transfer': not 'Quicked transfer'
        words = words[1:]
    verbs = [past(words[0])] if words else []
    rest = words[1:]
    while len(rest) >= 2 and rest[0] == "and":
        verbs += ["and", past(rest[1])]
        rest = rest[2:]
    if rest and rest[0] in _ADVERBS:  # 'delete_permanently' -> 'permanently deleted'
        verbs, rest = [rest[0], *verbs], rest[1:]
    return " ".join(verbs), " ".join(rest)


_SOMEONE = frozenset(["user", "users", "person", "member", "contact", "someone", "recipient"])
"""Words a tool's name uses for whoever a call reaches, said as the address it reached."""
_MANNERS = frozenset(["quick", "express", "instant", "fast", "bulk", "batch", "smart", "auto"])
"""Words before a tool's verb that say how it acts, not what it does."""
_ADVERBS = frozenset(
    ["permanently", "immediately", "directly", "manually", "temporarily", "partially", "fully"]
)


def done_sentence(change: WorldChange, world: World, shown: str, times: int = 1) -> str:
    """'Applied credit note for Invoice LPS-2024-117 (credit note id credit_1)': the act,
    the record it was about (for a new record, the existing one its arguments name), who it
    went to, what the result showed (`shown`) and how often it ran."""
    verbs, thing = act(change.tool)
    moved = thing.split(" ", 1)[0] in _PREPOSITIONS  # what went 'to channel', not the channel
    if moved and change.recipient and set(tokens(thing)[1:]) <= _SOMEONE:
        # 'share_with_user' shared it with the address, not 'with user to' it
        thing = f"{thing.split(' ', 1)[0]} {change.recipient}"
    about = (moved and _handed(change, world)) or _about(change, world)
    if not about and (named := _named_thing(change, thing)):  # 'Triggered workflow ci.yml'
        thing = f"{thing} {named}"
    if not about:
        phrase = f"{verbs} {thing}".strip()
    elif moved:  # moved Old drafts to trash
        phrase = f"{verbs} {about} {thing}"
    elif not thing or tokens(thing)[-1] in tokens(about):  # sent Draft invoice for Orbit
        phrase = f"{verbs} {about}"
    else:
        phrase = f"{verbs} {thing} for {about}"
    if change.recipient and change.recipient not in phrase:
        phrase += f" to {change.recipient}"
    if times > 1:
        phrase += f", {times} times"
    # 'to accounts@… (sent to accounts@…, message id …)': the address is said once
    shown = ", ".join(p for p in shown.split(", ") if not _repeats(p, change.recipient))
    if shown and shown not in phrase:
        phrase += f" ({shown})"
    return phrase[:1].upper() + phrase[1:]


def _repeats(part: str, recipient: str | None) -> bool:
    """Whether a shown part only names the recipient the sentence already names."""
    return bool(recipient) and part.rsplit(" ", 1)[-1] == recipient


_PREPOSITIONS = frozenset(["to", "into", "from", "on", "off", "in", "out", "with", "as", "at"])


def _handed(change: WorldChange, world: World) -> str:
    """The records a list argument hands over, by name or counted ('3 contacts'): auditors
    read one invitee named of the three '@oncall' brought in, and 'Invited #shared-vendor-acme
    to channel'."""
    for value in change.arguments.values():
        found = [r for v in value if (r := world.get(str(v)))] if isinstance(value, list) else []
        if len(found) == 1:
            return bare_name(found[0].name)
        if found:
            kinds = {r.kind for r in found}
            return f"{len(found)} {kinds.pop() + 's' if len(kinds) == 1 else 'records'}"
    return ""


def _named_thing(change: WorldChange, thing: str) -> str:
    """The value an argument names the act's object by, when no record is about it: a
    workflow's file ('Triggered workflow (run id 96616)' said not which)."""
    words = set(tokens(thing))
    return next(
        (
            v
            for k, v in change.arguments.items()
            if isinstance(v, str) and 0 < len(v) <= 40 and " " not in v and words & set(tokens(k))
        ),
        "",
    )


def _about(change: WorldChange, world: World) -> str:
    """The existing record a write was about: its target, unless the call made it, then the
    first record the call's arguments name, alone or in a list."""
    ids: list[Any] = [] if change.operation == "create" else [change.target]
    for value in change.arguments.values():  # `file_ids: [...]` names its records too
        ids += [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, str)]
    for value in ids:
        record = world.get(str(value)) if value else None
        if record is not None and (change.operation != "create" or record.id != change.target):
            return bare_name(record.name)
    # a record named by its number (`repo_comment_on_issue(number=1317)` is about issue #1317)
    numbers = {str(v) for v in change.arguments.values() if isinstance(v, int | str)}
    for record in world.records:
        held = record.attributes.get("number")
        if held is not None and str(held) in numbers and record.id.split("_")[0] in change.tool:
            return bare_name(record.name)
    return ""
