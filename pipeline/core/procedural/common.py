"""Shared machinery of the procedural handlers: seeded randomness, a tiny phrase grammar, and
helpers that turn a scene into words.

Everything random flows from `role_rng`, so one request always yields one answer and the cache
key (scene seed, item, role, sample index) fully determines it.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.content import given_name
from pipeline.core.generation.roles import Scene
from pipeline.core.model.seeding import seeded_rng

_ALTERNATION = re.compile(r"\[\[([^\[\]]*)\]\]")
_SLOT = re.compile(r"\{([a-z_]+)\}")
_LEFTOVER = re.compile(r"\[\[[^\[\]]*\]\]|\{[a-z_]+\}|\bTODO\b|[Ll]orem ipsum")
"""What the phrase banks' own grammar leaves when a fill fails: an alternation or a slot.
Doubled braces are not among them: a CI file's `${{ secrets.KEY }}` or a typed-data payload
a seed's hazard carries holds them legitimately."""


def role_rng(seed: object, item_id: str, role: str, sample_index: int) -> random.Random:
    """The one source of randomness of a handler call."""
    return seeded_rng(seed, item_id, role, sample_index)


def expand(pattern: str, rng: random.Random, slots: Mapping[str, str] | None = None) -> str:
    """Expand `[[a|b|c]]` alternations (innermost first) then fill `{slot}`s.

    A slot missing from `slots` is a bug in a phrase bank, so it raises instead of leaking.
    """
    text = pattern
    while True:
        match = _ALTERNATION.search(text)
        if match is None:
            break
        choice = rng.choice(match.group(1).split("|"))
        text = text[: match.start()] + choice + text[match.end() :]
    values = slots or {}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise KeyError(f"phrase slot {{{name}}} has no value in {pattern!r}")
        return values[name]

    return tidy(_SLOT.sub(fill, text))


def phrase_pattern(pattern: str) -> str:
    """A regular expression matching every text `expand` can make of `pattern`, any slot
    standing for any words: how a quoting role tells a bank's filler from what was asked."""
    parts: list[str] = []
    text = pattern
    while (match := _ALTERNATION.search(text)) is not None:
        options = (_literal(option, parts) for option in match.group(1).split("|"))
        parts.append("(?:" + "|".join(options) + ")")
        text = f"{text[: match.start()]}\x00{len(parts) - 1}\x00{text[match.end() :]}"
    return _literal(text, parts)


def _literal(text: str, parts: list[str]) -> str:
    pieces = re.split(r"\x00(\d+)\x00", text)
    return "".join(
        parts[int(piece)] if i % 2 else _SLOT.sub(".+?", _unbraced(re.escape(piece)))
        for i, piece in enumerate(pieces)
    )


def _unbraced(escaped: str) -> str:
    return escaped.replace(r"\{", "{").replace(r"\}", "}")


def pick(rng: random.Random, bank: Sequence[str], slots: Mapping[str, str] | None = None) -> str:
    """One phrase from `bank`, expanded."""
    return expand(rng.choice(bank), rng, slots)


def tidy(text: str) -> str:
    """Collapse the doubled spaces and stray space-before-punctuation that slot filling leaves."""
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r" +([,.;:!?])(?!\w)", r"\1", text)
    text = re.sub(r"\.\.(?!\.)", ".", text)
    # a slot ending as its template goes on ('No orders came back' + ' came back')
    text = re.sub(r"\b([a-z]+ [a-z]+) \1\b", r"\1", text)
    return text.strip()


def check_clean(text: str) -> str:
    """Raise if template markup survived into generated text; return the text otherwise."""
    match = _LEFTOVER.search(text)
    if match:
        raise ValueError(f"template markup {match.group(0)!r} leaked into: {text[:120]!r}")
    return text


def check_clean_value(value: Any) -> None:
    """`check_clean` over every string inside a JSON value."""
    if isinstance(value, str):
        check_clean(value)
    elif isinstance(value, dict):
        for item in value.values():
            check_clean_value(item)
    elif isinstance(value, list):
        for item in value:
            check_clean_value(item)


def clause(text: str) -> str:
    """A sentence turned into a clause: no final stop, first letter lowered unless a name."""
    text = text.strip().rstrip(".!")
    first = text.split(" ", 1)[0]
    if first[:1].isupper() and not first.isupper() and first.lower() in LOWERABLE:
        text = text[0].lower() + text[1:]
    return text


def sentence(text: str) -> str:
    """A clause turned into a sentence: capitalised, ending in punctuation."""
    text = capitalised(text.strip())
    if not text:
        return text
    return text if text[-1] in ".!?" or text[-2:] in ('."', '!"', '?"') else text + "."


def capitalised(text: str) -> str:
    """The text with a capital first letter, unless it opens with a machine value: an id, an
    address or a file keeps its case ('Msg_amara_monday_start:' opened 76 answers)."""
    if _MACHINE_WORD.match(text):
        return text
    return text[:1].upper() + text[1:]


_MACHINE_WORD = re.compile(r"[a-z0-9][\w.-]*[_@][\w.@-]*")


LOWERABLE = {
    "a", "an", "the", "add", "send", "transfer", "move", "delete", "disable", "email", "forward",
    "share", "close", "change", "update", "cancel", "post", "publish", "grant", "give", "make",
    "set", "turn", "unlock", "open", "remove", "clear", "push", "export", "pay", "wire", "book",
    "reply", "create", "schedule", "tell", "write", "draft", "use", "run", "approve", "merge",
    "download", "upload", "reset", "raise", "lower", "increase", "reduce", "stop", "start",
    "immobilize", "immobilise", "override", "bypass", "skip", "ignore", "copy", "reveal", "list",
    "get", "find", "put", "switch", "release", "issue", "file", "mark", "report", "confirm",
    "return", "retrieve", "fetch", "search", "look", "read", "show", "view", "check", "query",
    "verify", "submit", "assign", "edit", "flip", "record", "enter", "attach", "buy", "sell",
    "place", "quote", "text", "call", "apply", "accept", "reject", "deny", "drop",
    "purge", "terminate", "redeem", "rebook", "reroute", "refund", "credit", "charge", "sign",
    "lock", "arm", "disarm", "install", "deploy", "commit", "grade", "award", "cite", "name",
    "sort", "fix", "tidy", "explain", "answer", "summarise", "summarize", "compare", "prepare",
    "pull", "bring", "dig", "grab", "archive", "remind", "ping", "notify", "pause", "resume",
    "rename", "restore", "revert", "unblock", "invite", "suspend", "renew", "extend", "escalate",
}  # fmt: skip


def first_name(scene: Scene) -> str:
    return given_name(scene.persona.name)


def known_name(scene: Scene, history: Sequence[Any]) -> str:
    """The user's first name if a user turn of `history` gave it as theirs ('Hi, Grace
    here.', 'it's Grace', an e-mail to 'Dear Grace,'); else "": the agent never greets a name
    nobody said, nor one the user only mentions (a colleague who shares the persona's name)."""
    name = first_name(scene)
    said = "\n".join(t.text for t in history if getattr(t, "role", "") == "user")
    n = re.escape(name)
    own = rf"\b{n} here\b|\b(?:it's|I'm|this is|my name is) {n}\b|\b(?:Hi|Hello|Dear) {n},"
    return name if name and re.search(own, said, re.IGNORECASE) else ""


def humanise(identifier: str) -> str:
    """`bank_transfer_funds` -> `bank transfer funds`."""
    return identifier.replace("_", " ").replace("-", " ").strip()


def shorten(text: str, limit: int = 90) -> str:
    """First sentence of `text`, cut at a word boundary if longer than `limit`."""
    text = " ".join(text.split())
    head = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    if len(head) <= limit:
        return head.rstrip(".!?")
    cut = head[:limit].rsplit(" ", 1)[0]
    return cut.rstrip(",;:")


def scalar_facts(data: Any) -> list[tuple[str, str]]:
    """(key, short value) pairs of a JSON value, depth first; lists contribute two items."""
    found: list[tuple[str, str]] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                text = str(value)
                if 0 < len(text) <= 60:
                    found.append((str(key), text))
            elif isinstance(value, dict | list):
                found.extend(scalar_facts(value))
    elif isinstance(data, list):
        for item in data[:2]:
            found.extend(scalar_facts(item))
    return found
