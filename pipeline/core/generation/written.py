"""Text the agent writes into a call: a message reads as a message to its recipient, a note
as a note on its record. What it says comes from what the user dictated or asked about and
from what the trace showed, so the user's instruction to the agent ("send her a short
update…") is never pasted in as the text of the message itself."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.content import bare_name
from pipeline.core.generation.semantics import tokens
from pipeline.core.model.world import Record

_MESSAGE_FIELDS = frozenset({"body", "message", "text", "content", "letter", "reply"})
_NOTE_FIELDS = frozenset({"note", "notes", "comment", "summary", "annotation"})
_FACT_WORDS = frozenset(
    {"status", "state", "stage", "date", "due", "eta", "start", "time", "updated", "decision"}
)
"""Attributes a message may repeat to anyone the task writes to: where a thing stands and
when, never what the record keeps confidential."""


def writes_as_text(name: str) -> bool:
    """Whether a field holds a message's or a note's text."""
    words = tokens(name)
    return bool(words) and words[-1] in _MESSAGE_FIELDS | _NOTE_FIELDS


def written(
    name: str,
    schema: Mapping[str, Any],
    tool: str,
    request: str,
    about: tuple[Sequence[Record], str],
) -> str | None:
    """The text for a message's or a note's field (None for any other field): what the user
    dictated, as they said it; else, where the trace showed how the task's record stands, a
    message to the person it belongs to (or a note on it) saying so. None too when neither
    is there (the request's own words stand in) or the text would not fit."""
    records, shown = about
    if not request or schema.get("type") != "string" or not writes_as_text(name):
        return None
    message = sends_message(name, tool)
    text = dictated(request) or _standing(message, records, (request, shown))
    return text if text and len(text) <= schema.get("maxLength", len(text)) else None


_SENDING = frozenset({"send", "message", "email", "letter", "reply", "draft", "sms", "text"})
"""Words of a tool that writes to someone: its text is a message, any other's a note."""


def sends_message(name: str, tool: str) -> bool:
    """Whether the field is the text of a message the tool sends to someone."""
    words = tokens(name)
    return bool(set(tokens(tool)) & _SENDING) and bool(words) and words[-1] in _MESSAGE_FIELDS


def summary_note(records: Sequence[Record], said: tuple[str, str]) -> str | None:
    """A note on the task's record saying how it stands, as the trace showed it ('INC-2024-0412
    payroll phishing campaign: status investigating, severity high.'), for a note, a reason or
    a summary the user asked for without dictating it: never a message to anyone, whom
    a record's details may not concern. `said`: the request and what the trace showed."""
    return _standing(False, records, said)


def _standing(message: bool, records: Sequence[Record], said: tuple[str, str]) -> str | None:
    """'Hi Chidinma, a short update on Water damage claim - 17 Fernhill Drive: status
    investigating.' Written only about a record of the person the task is for: telling one
    patient about another's visit, or filing it in their chart, is a disclosure; and only
    about one the request names by more than the person's name (a glucometer summary was
    charted as 'Verified E911 callback for Ahmed Farouk: callback number …')."""
    request, shown = said
    people = [r for r in records if _person(r)]
    things = [r for r in records if r not in people]
    if people:
        own = set(_words(bare_name(people[0].name)))
        asked = set(_words(request))
        things = [
            r
            for r in things
            if _belongs_to(r, people[0]) and any(w in asked for w in _words(r.name) if w not in own)
        ]
    elif message:
        return None
    topic = things[0] if things else None
    facts = _shown_facts(topic, shown, internal=not message) if topic is not None else ""
    if topic is None or not facts:
        return None
    update = f"{bare_name(topic.name)}: {facts}."
    if not message:
        return update
    return f"Hi {_first_name(people[0])},\n\nA short update on {update}\n\nKind regards"


def _words(text: str) -> list[str]:
    """Words that say what a record is ('glucometer', 'callback'), not 'for' or 'the'."""
    return [w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in TRAILING_WORDS]


def _belongs_to(record: Record, person: Record) -> bool:
    """Whether a record is the person's: it names them, by id or by name."""
    names = {person.id.lower(), bare_name(person.name).lower()}
    return any(str(v).lower() in names for v in record.attributes.values()) or any(
        n in record.name.lower() for n in names
    )


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
_CLAUSE = r"(?:[^.;!?\n]|\.(?=[\w/]))"
"""A character of a clause: a stop inside 'v2.4.1' or 'example.com' does not end it (a reply
went out as 'The fix is in PR #488 and will ship in v2.')."""
_QUOTED = re.compile(
    r"\b(?:line|note|message|text|saying|says|reads|wording|description|reply|comment|review"
    r"|section)\b[^.:\n]*?(?:: | [-–—] )(?P<text>[^:\n]{8,})$"
)
_TOLD = re.compile(
    r"\b(?i:tell|message|text|email|remind|let)\s+(?:him|her|them|[A-Z]\w+(?:\s[A-Z]\w+)?)\s+"
    r"(?:know\s+)?(?:that\s+|(?=(?:we|I|you|it|they|she|he)(?:'\w+)?\s))"
    rf"(?P<text>{_CLAUSE}{{8,}})"
)
_SAID = re.compile(
    r"\b(?i:reply|post|say|confirm|announce|respond|note|comment|write|draft|tweet)\b"
    r"[^.;:!?\n]{0,60}?\b(?:that(?!\s+(?:on|in|to|against|under|with)\b)|saying)"
    rf"\s+(?P<text>{_CLAUSE}{{8,}})"
)
"""'Reply that we are closed'; not 'note that on TCK-88120', whose 'that' is what the user
said before (auditors found 'On TCK-88120 and mark it resolved.' kept as the note)."""
_NOTED = re.compile(
    r"\b(?:note|log|record)\s+(?:that|this|it)\s*(?:$|[.,;!]|\s(?:on|in|to|against|under)\s)",
    re.I,
)
"""A note of what the user has just said ('note that on TCK-88120', 'log this')."""
_KIND = re.compile(
    r"\bwith an? (?:(?:short|warm|quick|brief|polite|friendly|sincere)\s+)?"
    r"(?P<kind>thank[- ]you|thanks|apology|cover note|reminder)\b"
    r"|\ban? (?:(?:short|warm|quick|brief|polite|friendly|sincere)\s+)?"
    r"(?P<said>thank[- ]you|apology)\b",
    re.I,
)
_KINDS = {
    "thank": "Thank you so much for the kind words — we really appreciate it!",
    "apology": "We're sorry about this, and we're looking into it now.",
    "cover": "Please find the document attached. Let me know if you have any questions.",
    "reminder": "Just a friendly reminder about this; let me know if anything has changed.",
}
"""What a message asked for by its kind says ('reply … with a warm thank-you'): auditors
found the instruction itself posted as the reply."""
_CONFIRMING = re.compile(r"\b(?:reply|respond|answer|write back)\s+confirming\b", re.I)
"""A reply asked for by what it does ('draft a reply confirming'): auditors found the request
itself pasted in as the reply."""
_BID = re.compile(
    r"\b(?i:tell|ask|asking|message|text|remind)\s+(?:him|her|them|[A-Z]\w+(?:\s[A-Z]\w+)?)\s+"
    r"(?:(?P<first>[a-z][^,.;!?\n]{1,30}),?\s+and\s+)?(?P<not>not\s+)?to\s+"
    rf"(?P<text>{_CLAUSE}{{6,}})"
)
_ASKED = re.compile(
    r"\b(?i:ask)\s+(?:him|her|them|[A-Z]\w+(?:\s[A-Z]\w+)?\s+)?\s*"
    rf"(?P<text>(?:if|whether)\s{_CLAUSE}{{6,}})"
)
_ASKED_FOR = re.compile(
    r"\b(?i:ask)\s+(?:him|her|them|the\s[\w#'-]+(?:\s(?!to\b)[\w#'-]+){0,4}?|[A-Z]\w+(?:\s[A-Z]\w+)?)"
    r"\s+for\s+"
    rf"(?P<text>{_CLAUSE}{{4,}})"
)
"""'Ask the reporter of #1317 for a couple of failing delivery ids': a comment went out as
'Regarding the reporter of #1317.'"""
_TO_YOU = {"she": "you", "he": "you", "they": "you", "her": "your", "his": "your"}
_TO_YOU |= {"their": "your", "herself": "yourself", "himself": "yourself", "him": "you"}


def dictated(request: str) -> str | None:
    """Words the user gave for the text itself: after a colon as they wrote them ('add a
    line …: remote directors join via the link'), or told about someone, spoken to them
    ('message her that she can rebook' -> 'You can rebook.'), or asked of them ('ask her to
    bring the timeline' -> 'Could you bring the timeline?')."""
    asked = _ADDED.sub("", request.strip())
    quoted = _QUOTED.search(asked)
    told = _TOLD.search(asked)
    asking = _ASKED.search(asked)
    asked_for = _ASKED_FOR.search(asked)
    said = _SAID.search(asked)
    bid = _BID.search(asked)
    if quoted:
        text = quoted["text"].strip()
    elif asking:
        return f"Could you let me know {_to_reader(asking['text']).strip()}?"
    elif asked_for:
        return f"Could you send {_to_reader(asked_for['text']).strip()}?"
    elif told:
        text = _to_reader(told["text"]).strip()
    elif said:
        text = said["text"].strip()  # a reply or a note says it as the user put it
    elif bid:
        first = f"{bid['first'][:1].upper()}{bid['first'][1:]}. " if bid["first"] else ""
        if asks := re.match(r"ask\s+((?:if|whether|how|what|when|why)\s.*)", bid["text"]):
            return f"{first}Could you let me know {_to_reader(asks[1]).strip()}?"
        if not bid["not"]:
            return f"{first}Could you {_to_reader(bid['text']).strip()}?"
        text = f"{first}Please don't {_to_reader(bid['text']).strip()}"
    elif kind := _KIND.search(asked):
        return _KINDS[(kind["kind"] or kind["said"]).lower().split()[0].split("-")[0]]
    elif _CONFIRMING.search(asked):
        return "Thank you, I can confirm, and I'll be there."
    elif _NOTED.search(asked) and (stated := stated_part(asked)):
        text = stated  # 'note that on TCK-88120': what the user said before it
    else:
        return None
    text = text if text.endswith((".", "!", "?")) else f"{text}."
    return text[:1].upper() + text[1:]


def _to_reader(text: str) -> str:
    """A sentence about the reader, said to them ('she is ready' -> 'you are ready')."""
    text = re.sub(r"\b(?:she|he|they) (?:is|are)\b", "you are", text, flags=re.I)
    text = re.sub(r"\b(?:she|he|they) (?:has|have)\b", "you have", text, flags=re.I)
    text = re.sub(r"\b(?:she|he|they) was\b", "you were", text, flags=re.I)
    text = re.sub(r"\b(?:she|he|they)'(ll|d)\b", r"you'\1", text, flags=re.I)
    text = re.sub(r"\b(?:works|suits) for (?:him|her|them)\b", "works for you", text, flags=re.I)
    return re.sub(r"\b(\w+)\b", lambda m: _TO_YOU.get(m.group(1).lower(), m.group(1)), text)


def _person(record: Record) -> bool:
    words = bare_name(record.name).split()
    return record.kind in ("contact", "patient", "person", "customer", "employee") or (
        2 <= len(words) <= 3 and all(w[:1].isupper() and w.isalpha() for w in words)
    )


def _first_name(record: Record) -> str:
    return re.split(r"\s+[-–]\s+", bare_name(record.name))[0].split()[0]


def _shown_facts(record: Record, shown: str, *, internal: bool) -> str:
    """'status investigating, loss date 2024-10-28': the record as the trace showed it (a
    value nothing showed is not the agent's to state). A message says where things stand
    and when; a note kept on the record may sum up whatever was read."""
    lowered = shown.lower()
    facts = [
        f"{key.replace('_', ' ')} {value}"
        for key, value in record.attributes.items()
        if isinstance(value, str | int | float)
        and not isinstance(value, bool)
        and (internal or set(tokens(key)) & _FACT_WORDS)
        and 0 < len(str(value)) <= 120  # an empty value is 'in' any text: 'blocked reason .'
        and str(value).lower() in lowered
    ]
    return ", ".join(facts[: 4 if internal else 3])


INSTRUCTION_VERBS = frozenset(
    {
        "add", "alert", "approve", "archive", "arrange", "ask", "assign", "attach", "block",
        "book", "bring", "buy", "call", "cancel", "change", "chase", "check", "clear", "close",
        "compare", "confirm", "contact", "correct", "count", "create", "delete", "deploy",
        "disable", "dispute", "draft", "draw", "email", "enable", "escalate", "explain", "export",
        "file", "find", "fix", "flag", "forward", "freeze", "get", "give", "grant", "hold",
        "include", "investigate", "invite", "isolate", "issue", "let", "list", "lock", "log",
        "look", "make", "mark", "merge", "message", "move", "note", "notify", "open", "order",
        "patch", "pause", "pay", "place", "point", "post", "prepare", "print", "publish", "pull",
        "put", "quarantine", "raise", "read", "reassign", "rebalance", "rebook", "record",
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
    about = re.split(r"\s(?:into|to|so|and|then|before|after|because|for|if|with)\s", rest)[0]
    if re.match(r"(?:what|which|how|whatever|anything|everything|it|that|this)\b", about, re.I):
        return None  # 'add what you find' names nothing
    return whole_words(about, 80) if len(about.split()) >= 2 else None


def composed_text(request: str, *, short: bool) -> str:
    """Free text the agent writes from the user's words: a note's body keeps what the user
    states ('There's a 389.99 charge … that I never made'), never the asks made of the agent
    ('Freeze the card and dispute it'; auditors found whole requests posted as a reply);
    a message subject is the ask's first clause in whole words, never cut mid-parenthesis."""
    if not short:
        if stated := stated_part(request):
            return stated[:1].upper() + stated[1:]
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", request.strip()) if s]
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


def stated_part(request: str) -> str | None:
    """What a request states rather than asks ('Tom asked for two more weeks while their
    till system beds in.'), or None when it only asks."""
    request = _ADDED.sub("", request.strip())  # 'In case you need it: …' only gives details
    parts = re.split(r"(?<=[a-z]): ", request, maxsplit=1)  # '… description: remote …'
    text = (parts[1] if len(parts) == 2 else request).strip()
    text = re.sub(r"^(?:hi|hey|hello)\b[^,.!]{0,20}[,.!]\s*", "", text, flags=re.I)
    sentences = [c.strip() for c in re.split(r"(?<=[.!?])\s+|\n+|\s[-–—]\s", text) if c.strip()]
    stated = [c for c in sentences if not c.endswith("?") and not asks_agent(c)]
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


_DESCRIBING = frozenset({"description", "bio", "blurb", "overview"})
_STRESSED = re.compile(
    r"\b(?:highlight|feature|emphasi[sz]e|lead with|play up)\s+(?:the\s+)?"
    r"(?P<what>[^,.;]+?)(?=,|\.|;|\s+and\s+(?:mention|publish|post|send|add|include)|$)",
    re.I,
)
_ADDED_LINE = re.compile(
    r"\badd (?:a |one )?(?:line|sentence|note)\b[^:\n]{0,80}:\s*(?P<text>[^\n]{4,})"
)
_MENTIONED = re.compile(
    r"\b(?:mention|include|note)\s+(?:the\s+)?(?P<what>[^,.;]+?)(?=,|\.|;|\s+and\s|$)", re.I
)


def rewritten(
    name: str, planned: Mapping[str, Any], world: Sequence[Record], request: str
) -> str | None:
    """A record's description written anew ('rewrite the 22 Maple description to highlight
    the kitchen and lot, mention the sump pump'): its own sentences, those saying what the
    user wants stressed first, then what the record or one naming it says of what they want
    mentioned. Auditors found the request itself, or 'Regarding a … description.', posted
    as the listing's text."""
    if not set(tokens(name)) & _DESCRIBING:
        return None
    ids = {str(v) for v in planned.values()}
    target = next(
        (r for r in world if r.id in ids and isinstance(r.attributes.get(name), str)), None
    )
    if target is None:
        return None
    if line := _ADDED_LINE.search(request):  # 'add a line to the description: …'
        added = line["text"].strip().rstrip(".")
        return f"{str(target.attributes[name]).rstrip()}\n{added[:1].upper()}{added[1:]}."
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", str(target.attributes[name]).strip()) if s]
    stressed = {
        w for m in _STRESSED.finditer(request) for w in re.findall(r"[a-z]{3,}", m["what"].lower())
    } - {"and", "the"}
    sentences.sort(key=lambda s: -len(stressed & set(re.findall(r"[a-z]{3,}", s.lower()))))
    related = [target, *(r for r in world if target.id in map(str, r.attributes.values()))]
    for mention in _MENTIONED.finditer(request):
        what = mention["what"].strip().lower()
        said = next(
            (
                f"{' '.join(tokens(k)).capitalize()}: {v}."
                for r in related
                for k, v in r.attributes.items()
                if k != name and isinstance(v, str) and what in f"{' '.join(tokens(k))} {v}".lower()
            ),
            None,
        )
        if said and what not in " ".join(sentences).lower():
            sentences.append(said)
    return " ".join(sentences)
