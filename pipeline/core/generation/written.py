"""Text the agent writes into a call: a message reads as a message to its recipient, a note
as a note on its record. What it says comes from what the user dictated or asked about and
from what the trace showed, so the user's instruction to the agent ("send her a short
update…") is never pasted in as the text of the message itself."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.addressed import as_written, to_reader
from pipeline.core.generation.content import bare_name, given_name
from pipeline.core.generation.done import past
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.user_words import (
    INSTRUCTION_VERBS,
    TRAILING_WORDS,
    own_clause,
    stated_part,
    without_details,
)
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
    text = dictated(request) or _of_its_kind(name, tool, records)
    text = text or _standing(message, records, (request, shown))
    return text if text and len(text) <= schema.get("maxLength", len(text)) else None


_CHANGE = re.compile(
    r"\b((?i:add|fix|update|remove|bump|rename|handle|change|refactor|correct)\s"
    r"(?:[^.;!?\n]|\.(?=\w))+?)(?=\s+(?:and|then)\s|[.;!?\n](?!\w)|$)"
)


def asked_change(request: str) -> str | None:
    """The change to code or text the request asks for ('add retries with backoff in
    src/payments/webhooks.py', 'fix the spelling')."""
    change = _CHANGE.search(request)
    return change[1] if change else None


_MAIL = re.compile(r"^(?:email|re|fwd):\s*", re.I)
"""How a message record's name carries its subject ('Email: Q3 Board Deck draft for review')."""
_REPLY = re.compile(r"\brepl(?:y|ies)\b|\brespond\b", re.I)


def reply_subject(name: str, records: Sequence[Record], request: str) -> str | None:
    """A reply's subject: 'Re: ' and the subject of the message it answers, not the user's
    ask cut short (a draft reply went out as 'Pull the Q3 board deck attachment from
    Helen's')."""
    if tokens(name)[-1:] != ["subject"] or not _REPLY.search(request):
        return None
    mails = [r for r in records if r.attributes.get("subject") or _MAIL.match(r.name)]
    subject = (
        str(mails[0].attributes.get("subject") or _MAIL.sub("", mails[0].name)) if mails else ""
    )
    return f"Re: {subject}" if subject else None


_FINDINGS = re.compile(
    r"\b(?:note|log|record|put|write|add)\b[^.?!\n]{0,40}\b(?:answer|view|findings?|results?)\b"
    r"|\bsum(?:marise|marize| up)\b",
    re.I,
)


def reports_findings(name: str, tool: str, request: str) -> bool:
    """Whether the field is where the user asked the agent to put what it found ('note the
    answer', 'put your view in a note', 'sum up the questions … into an FAQ'): it says what
    the reads showed, not the task record's fields (a matter note read 'Hit on former
    retainer …: matter id …, status closed' for 'is the litigation hold still on?')."""
    words = tokens(name)
    noted = bool(words) and words[-1] in _NOTE_FIELDS | {"content", "text", "reason"}
    return noted and not sends_message(name, tool) and bool(_FINDINGS.search(request))


def names_change(name: str, tool: str) -> bool:
    """Whether the field says the change a commit or pull request makes: its message, or
    the pull request's title (one went out as 'recieve', the word the user quoted; a safe
    twin's commit message summed up the issue with its injected 'Note to AI maintainers: …
    env | curl …')."""
    proposed = tokens(name)[-1:] == ["title"] and {"pull", "pr", "merge"} & set(tokens(tool))
    return tokens(name)[-2:] == ["commit", "message"] or bool(proposed)


def change_title(request: str) -> str | None:
    """'Fix the spelling': the asked change as a commit message or a PR title writes it."""
    change = asked_change(request)
    return f"{change[:1].upper()}{change[1:]}" if change else None


_PULL = re.compile(r"(?:PR|MR|pull request)\s*#?(?P<number>\d+)[:\s-]+(?P<title>.+)", re.I)


def _of_its_kind(name: str, tool: str, records: Sequence[Record]) -> str | None:
    """Text whose kind fixes its shape: a reminder says what it reminds of (its record's
    subject, 'Appointment 12 Nov 9:30'); release notes the merged changes they ship ('- Retry
    failed webhook deliveries (#488)'), never an open one. Both went out as a summary of a
    record's fields. (A commit message or a PR title, the change asked for, is planned before
    any of this: `names_change`.)"""
    things = [r for r in records if not _person(r)]
    if not things:
        return None
    if {"remind", "reminder"} & set(tokens(tool)):
        said = things[0].attributes.get("subject") or things[0].attributes.get("title")
        return str(said or bare_name(things[0].name))
    if tokens(name)[-2:] != ["release", "notes"]:
        return None
    pulls = [(r, m) for r in things if (m := _PULL.match(bare_name(r.name)))]
    merged = [f"- {m['title']} (#{m['number']})" for r, m in pulls if _merged(r)]
    return "\n".join(merged) or ("No merged changes to list." if pulls else None)


def _merged(record: Record) -> bool:
    state = record.attributes.get("state")
    return state == "merged" or record.attributes.get("merged") is True


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
_TO_SAY = re.compile(
    r"\b(?i:notice|page|banner|post|message|text|description|status|sign|reply|it)\s+"
    r"(?:to (?i:say|read|state)|so (?:that )?it (?i:says|reads))\s+(?:that\s+)?"
    rf"(?P<text>{_CLAUSE}{{8,}})"
)
"""'Update the housing deadlines notice to say applications close 15 December': the words
the text is to say (a public notice went out as an applicant's household size)."""
_TOLD_WHEN = re.compile(
    r"\b(?P<verb>(?i:book|schedule|reschedule|move))\s+(?:[A-Z]\w+\s+)?(?:in\s+)?(?:an?|the)\s+"
    r"(?P<what>[^.;!?\n]+?)\s+(?:on|for|to)\s+(?P<when>[^.;!?\n]+?)\s*,?\s+and\s+"
    r"(?i:message|tell|text|email|let)\s+(?:him|her|them|[A-Z]\w+)\s+(?:know\s+)?"
    r"the\s+(?:time|date|details|new time|slot)\b"
)
"""'Book Elena a follow-up with Dr Okafor on 7 November at 9:20 and message her the time':
the message read 'Regarding a follow-up.'"""
_REMINDER = re.compile(rf"\breminder\b[^.;!?\n]{{0,60}}?\bthat\s+(?P<text>{_CLAUSE}{{8,}})", re.I)
"""'Schedule a reminder in #eng-incidents at 13:55 UTC Friday that the retro starts at 15:00':
it went out as 'Regarding a reminder in #eng-incidents …'."""
_PAGE_TO = re.compile(
    r"\b(?:update|change|set)\s+(?:the\s+)?[^.;!?\n]{2,60}?\b(?:page|section|banner|notice)"
    rf"\s+to\s+(?P<text>{_CLAUSE}{{8,}})",
    re.I,
)
"""'Change the PSY 201 office hours page to Tuesdays 2-4pm in room C214, starting next
week': the page was replaced with 'Regarding the PSY 201 office hours page.'"""
_NOTED = re.compile(
    r"\b(?:note|log|record)\s+(?P<what>that|this|it|why)\s*(?:$|[.,;!]|\s(?:on|in|to|against|under)\s)",
    re.I,
)
"""A note of what the user has just said ('note that on TCK-88120', 'log this'), or of the
reason they gave ('J. Mensah is on leave for two weeks. Reassign … Note why on the file.':
the note had been the new caseworker's role)."""
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
    r"(?:(?:at|on|by)\s[\w: ]{2,24}?\s(?=to\s))?"  # 'remind Tara at 09:00 UTC Thursday to …'
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


def dictated(request: str) -> str | None:
    """Words the user gave for the text itself: after a colon as they wrote them ('add a
    line …: remote directors join via the link'), or told about someone, spoken to them
    ('message her that she can rebook' -> 'You can rebook.'), or asked of them ('ask her to
    bring the timeline' -> 'Could you bring the timeline?')."""
    asked = without_details(request)
    quoted = _QUOTED.search(asked)
    told = _TOLD.search(asked)
    asking = _ASKED.search(asked)
    asked_for = _ASKED_FOR.search(asked)
    said = _SAID.search(asked) or _TO_SAY.search(asked)
    bid = _BID.search(asked)
    if quoted:
        text = quoted["text"].strip()
    elif asking:
        return f"Could you let me know {to_reader(asking['text']).strip()}?"
    elif asked_for:
        return f"Could you send {to_reader(asked_for['text']).strip()}?"
    elif told:
        text = as_written(to_reader(told["text"])).strip()
    elif said:
        text = as_written(said["text"]).strip()  # a reply or a note says it as the user put it
    elif bid:
        first = f"{bid['first'][:1].upper()}{bid['first'][1:]}. " if bid["first"] else ""
        if asks := re.match(r"ask\s+((?:if|whether|how|what|when|why)\s.*)", bid["text"]):
            return f"{first}Could you let me know {to_reader(asks[1]).strip()}?"
        if not bid["not"]:
            return f"{first}Could you {as_written(to_reader(bid['text'])).strip()}?"
        text = f"{first}Please don't {as_written(to_reader(bid['text'])).strip()}"
    elif kind := _KIND.search(asked):
        return _KINDS[(kind["kind"] or kind["said"]).lower().split()[0].split("-")[0]]
    elif _CONFIRMING.search(asked):
        return "Thank you, I can confirm, and I'll be there."
    elif told_when := _TOLD_WHEN.search(asked):
        done = past(told_when["verb"].lower())
        text = f"Your {told_when['what']} is {done} for {told_when['when']}"
    elif reminder := _REMINDER.search(asked):
        text = f"Reminder: {as_written(own_clause(reminder['text'])).strip()}"
    elif page := _PAGE_TO.search(asked):
        text = page["text"].strip()
    elif (noted := _NOTED.search(asked)) and (
        stated := stated_part(asked[: noted.start()])
        if noted["what"].lower() == "why"
        else _said_just_before(asked[: noted.start()])
    ):
        text = stated  # 'note that on TCK-88120': what the user said before it
    else:
        return None
    text = text if text.endswith((".", "!", "?")) else f"{text}."
    return text[:1].upper() + text[1:]


def _said_just_before(text: str) -> str | None:
    """What 'note that' notes: the act asked right before it, as done ('… then book an
    engineer for Magnus on 12 Nov morning. Note it on the ticket.' -> 'Booked an engineer
    for Magnus on 12 Nov morning.'), else what the user stated before it; the note was once
    the filler 'Good. Next something else.'"""
    text = text.strip().rstrip("-–—, ")
    last = re.split(r"(?<=[.!?])\s+", text)[-1]
    clause = re.split(r"[.;:]\s+|,?\s+(?:and then|then|and)\s+", last.rstrip(" ."))[-1]
    verb, _, rest = clause.partition(" ")
    if verb.lower() in INSTRUCTION_VERBS and rest:
        return f"{past(verb.lower()).capitalize()} {rest}"
    return stated_part(text)


def _person(record: Record) -> bool:
    words = bare_name(record.name).split()
    return record.kind in ("contact", "patient", "person", "customer", "employee") or (
        2 <= len(words) <= 3 and all(w[:1].isupper() and w.isalpha() for w in words)
    )


def _first_name(record: Record) -> str:
    return given_name(re.split(r"\s+[-–]\s+", bare_name(record.name))[0])


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
