"""What a user's request states and what it asks of the agent: a note keeps the first
('Tom asked for two more weeks'), never the second ('Freeze the card and dispute it'), and
free text the agent writes without dictated words is built from them."""

from __future__ import annotations

import re

from pipeline.core.generation.addressed import is_chatter

UP_FRONT = (
    "In case you need it: {}.",
    "Details, if it helps: {}.",
    "You'll want these: {}.",
    "The details: {}.",
)
"""How a user adds, after the ask, what the agent cannot look up (`steps.stated_request`),
varied per request: one fixed phrase would read as filler and repeat across the release."""

_LEADS = "|".join(re.escape(lead.split(":")[0]) + ":" for lead in UP_FRONT)
_ADDED = re.compile(rf"\s+(?:{_LEADS}).*$", re.S)


def without_details(request: str) -> str:
    """The request without the details added after its ask ('In case you need it: …'),
    which give values, never words for the agent to write."""
    return _ADDED.sub("", request.strip())


INSTRUCTION_VERBS = frozenset(
    {
        "add", "alert", "approve", "archive", "arrange", "ask", "assign", "attach", "block",
        "book", "bring", "buy", "call", "cancel", "change", "chase", "check", "clear", "close",
        "compare", "confirm", "contact", "correct", "count", "create", "delete", "deploy",
        "disable", "dispute", "draft", "draw", "email", "enable", "escalate", "explain", "export",
        "file", "find", "fix", "flag", "forward", "freeze", "get", "give", "grant", "hold",
        "include", "investigate", "invite", "isolate", "issue", "let", "list", "lock", "log",
        "look", "make", "mark", "merge", "message", "move", "note", "notify", "open", "order",
        "patch", "pause", "pay", "pin", "place", "point", "post", "prepare", "print", "publish",
        "pull", "put", "quarantine", "raise", "read", "reassign", "rebalance", "rebook", "record",
        "refund", "reject", "release", "remind", "remove", "rename", "renew", "reopen", "reply",
        "report", "request", "reroute", "reschedule", "reset", "restart", "restore", "resume",
        "review", "revoke", "rotate", "run", "scale", "schedule", "search", "sell", "send", "set",
        "share", "show", "sort", "start", "stop", "submit", "summarise", "switch", "tag", "tell",
        "text", "track", "transfer", "turn", "unlock", "update", "upgrade", "upload", "verify",
        "wipe", "withdraw", "work", "write",
    }
)  # fmt: skip
"""Verbs an instruction opens with: a clause after 'and'/'then' is a task of its own only
when it starts with one ('… and lock the cargo doors'), not '… and sources sections to …'."""

_ASKING_VERBS = INSTRUCTION_VERBS | {"summarize", "shift", "do", "sum", "thank", "thanks"}
_ASKING_VERBS |= {"see", "double", "cut"}  # 'double-check', 'cut v2.4.1 from main'
_TO_AGENT = re.compile(
    r"^(?:(?:please|hi|hey|hello|so|and|also|then|now|just)[,\s]+)*"
    r"(?:can|could|would|will)?\s*(?:you\s+)?(?:please\s+)?"
    rf"(?:{'|'.join(sorted(_ASKING_VERBS))})\b",
    re.I,
)
"""A sentence that asks the agent for something: no part of what the agent writes."""


def asks_agent(sentence: str) -> bool:
    """'Freeze the card', 'If she does, pull her wages', 'Ahmed asked, and note the answer in
    his chart': a request, not a statement."""
    sentence = re.sub(r"^if [^,]{2,60},\s*", "", sentence, flags=re.I)
    parts = re.split(r",?\s+(?:and then|and|then)\s+", sentence)
    return bool(_TO_AGENT.match(parts[0])) or any(
        _TO_AGENT.match(part) and part.split()[0].lower() in INSTRUCTION_VERBS for part in parts[1:]
    )


def _object_of(ask: str) -> str | None:
    """What an ask is about: its object, up to where the ask goes on ('the questions in the
    PSY 201 Essay 2 forum thread' of 'Summarise the questions … into an FAQ …')."""
    match = _TO_AGENT.match(ask)
    rest = ask[match.end() :].strip(" .?!") if match else ""
    rest = re.sub(r"^(?:up|out|down|off|over|back|in|on|at|through|into)\s+", "", rest)
    # 'send Ahmed the follow-up instructions' is about the instructions
    rest = re.sub(r"^[A-Z][a-z]+(?:\s[A-Z][a-z]+)?\s+(?=(?:the|a|an|his|her|their)\s)", "", rest)
    about = re.split(r",\s|\s(?:into|to|so|and|then|before|after|because|for|if|with)\s", rest)[0]
    if re.match(r"(?:what|which|how|whatever|anything|everything|it|that|this)\b", about, re.I):
        return None  # 'add what you find' names nothing
    return whole_words(about, 80) if len(about.split()) >= 2 else None


_FOR_DOING = re.compile(r"\bfor\s+([a-z]+ing\s[^.;!?\n]{4,80}?)\s*(?:[.;!?]|$)")
"""What time or money went on ('Record 48 minutes on the Brightwater matter for reviewing
Frost Legal's letter of 4 Nov'): the entry read 'Regarding 48 minutes on the Brightwater
matter.'"""


def composed_text(request: str, *, short: bool) -> str:
    """Free text the agent writes from the user's words: a note's body keeps what the user
    states ('There's a 389.99 charge … that I never made'), never the asks made of the agent
    ('Freeze the card and dispute it'; auditors found whole requests posted as a reply);
    a message subject is the ask's first clause in whole words, never cut mid-parenthesis."""
    if not short:
        if stated := stated_part(request):
            return stated[:1].upper() + stated[1:]
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", request.strip()) if s]
        if done_for := next((m for s in sentences if (m := _FOR_DOING.search(s))), None):
            return f"{done_for[1][:1].upper()}{done_for[1][1:]}."  # '… for reviewing the letter'
        about = next((a for s in sentences if (a := _object_of(s))), None)
        return f"Regarding {about}." if about else NOTHING_STATED
    head, colon, tail = request.partition(": ")
    text = tail if colon and len(head) <= 40 else request
    clauses = [c.strip() for c in re.split(r"[.;!?](?:\s|$)|,\s|\n", text) if c.strip()]
    text = next((c for c in clauses if len(c.split()) >= 3), clauses[0] if clauses else text)
    text = whole_words(text, 48)
    return text[:1].upper() + text[1:]


NOTHING_STATED = "Following up on your request."
"""Free text of a request that states nothing and asks about nothing by name."""


_NEXT_ASK = re.compile(rf",?\s+(?:and|then|and then)\s+(?:{'|'.join(sorted(INSTRUCTION_VERBS))})\b")


def own_clause(text: str) -> str:
    """Dictated words up to where the user goes on to ask something else ('the retro starts
    at 15:00, and pin it' -> 'the retro starts at 15:00')."""
    return _NEXT_ASK.split(text, maxsplit=1)[0]


def stated_part(request: str) -> str | None:
    """What a request states rather than asks ('Tom asked for two more weeks while their
    till system beds in.'), or None when it only asks."""
    request = without_details(request)
    parts = re.split(r"(?<=[a-z]): ", request, maxsplit=1)  # '… description: remote …'
    text = (parts[1] if len(parts) == 2 else request).strip()
    text = re.sub(r"^(?:hi|hey|hello)\b[^,.!]{0,20}[,.!]\s*", "", text, flags=re.I)
    sentences = [c.strip() for c in re.split(r"(?<=[.!?])\s+|\n+|\s[-–—]\s", text) if c.strip()]
    stated = [c for c in sentences if not (c.endswith("?") or asks_agent(c) or is_chatter(c))]
    return " ".join(stated) if stated else None


TRAILING_WORDS = frozenset(
    {"a", "an", "the", "to", "of", "for", "with", "and", "or", "from", "on", "in", "at", "by"}
    | {"my", "his", "her", "their", "our", "your", "its", "this", "that", "into", "as"}
)


def whole_words(text: str, limit: int) -> str:
    """`text` cut to `limit` characters at a word boundary, without an unclosed bracket
    or quote and without a dangling 'to the' at the end."""
    while len(text) > limit and " " in text:
        text = text.rsplit(" ", 1)[0]
    for opening, closing in (("(", ")"), ("[", "]"), ('"', '"')):
        if text.count(opening) != text.count(closing) or (
            opening == closing and text.count(opening) % 2
        ):
            text = text[: text.rfind(opening)].rstrip()
    words = text.split()
    while len(words) > 1 and words[-1].lower().strip(",;:") in TRAILING_WORDS:
        words.pop()
    return " ".join(words).rstrip(",;:-–")
