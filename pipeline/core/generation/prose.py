"""In-world free text: the body of an e-mail, a ticket's description, a clinical note, a log
excerpt, a document, a chat message, a search snippet, written from the record it belongs to.

Real tool results are long because records carry text people wrote. A record's text here is
composed from its own short values (its name, dates, amounts, statuses: quoted as they are, so
the text never contradicts the fields beside it), the people and the organisation of its world,
and phrase banks per genre, in a varied order. Prose attributes of a record are never quoted
(a record carrying an instruction keeps it in its own field only). Every choice is seeded by
the record and the field, so the same record reads the same in every observation and in both
twins.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from random import Random

from pipeline.core.generation.semantics import is_free_text_field, related, tokens
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.world import Record, World

LONG_FIELDS = frozenset([
    "body", "content", "text", "message", "note", "notes", "comment", "description", "details",
    "log", "logs", "output", "stdout", "readme", "article", "memo", "transcript",
])  # fmt: skip
"""Last words of a field that holds a whole text (not a one-line reason or status)."""
SHORT_FIELDS = frozenset(["snippet", "preview", "excerpt", "summary", "abstract"])
"""Last words of a field that holds the opening of a text."""
_PLAIN = re.compile(r"^[\w .,:/@+()'&-]{1,40}$")
_PERSON = re.compile(r"[A-Z][a-z'-]+(?: [A-Z][a-z'-]+){1,2}")
_DAY = re.compile(r"^((?:19|20)\d\d-[01]\d-[0-3]\d)")


def writes(field: str) -> bool:
    """Whether a return field is one this module writes the text of."""
    last = tokens(field)[-1:] or [""]
    return last[0] in LONG_FIELDS | SHORT_FIELDS


def text_for(field: str, record: Record, world: World, tool: str) -> str:
    """The text of `field` of `record`, as the record's own system holds it."""
    genre = _genre(field, record, tool)
    rng = seeded_rng("prose", record.id, genre)  # a snippet opens the same text as the body
    writer = _Writer(record, world, rng)
    full = _GENRES[genre](writer)
    if tokens(field)[-1] in SHORT_FIELDS:
        return _opening(full, 28 + len(record.id) % 21)
    return full + _references(writer, genre)


def _references(w: _Writer, genre: str) -> str:
    """What the record links to, as its system prints it under the text: the ids a reader
    follows next (an e-mail's attachment, a ticket's customer, a file's related records)."""
    lines = [f"{' '.join(tokens(k)).capitalize()}: {v}" for k, v in w.links]
    if genre == "email":
        attached = w.record.attributes.get("attachment")
        if attached is not None:
            lines = [f"Attachment: {attached}", *lines]
        return "\n\n--\n" + "\n".join(lines) if lines else ""
    if genre in ("document", "description", "ticket", "notes"):
        lines += [f"Related: {r.name} ({r.id})" for r in related(w.world, w.record)[:6]]
    return "\n\nReferences:\n- " + "\n- ".join(lines) if lines else ""


def _genre(field: str, record: Record, tool: str) -> str:
    words = set(tokens(field)) | set(tokens(tool)) | set(tokens(record.id))
    keys = set(record.attributes)
    if words & {"log", "logs", "stdout", "output", "run", "build", "job", "trace", "event"}:
        return "log"
    if keys & {"mrn", "dob", "nhs_number", "allergy", "problems"} or words & {"clinical"}:
        return "clinical"
    if record.name.lower().startswith(("email:", "re:", "fwd:")) or keys & {"sender", "from"}:
        return "email"
    if words & {"pr", "pull", "merge", "commit", "patch"}:
        return "change"
    if words & {"message", "messages", "chat", "reply", "replies", "post", "posts", "comment"}:
        return "chat"
    if words & {"ticket", "case", "incident", "issue", "claim", "complaint", "alert"}:
        return "ticket"
    if record.kind == "file" or words & {"document", "article", "page", "readme", "file"}:
        return "document"
    if words & {"note", "notes", "memo"}:
        return "notes"
    return "description"


class _Writer:
    """Sentences about one record, from its own values and its world."""

    def __init__(self, record: Record, world: World, rng: Random) -> None:
        self.record = record
        self.world = world
        self.rng = rng
        self.today = date.fromisoformat(world.today)
        self.subject = re.sub(r"^[A-Za-z]+:\s*", "", record.name)
        self.subject = re.sub(r"\s*\(.*?\)", "", self.subject).strip() or record.name
        self.links = [
            (k, v)
            for k, v in record.attributes.items()
            if world.get(str(v)) is not None or tokens(k)[-1:] in (["id"], ["ids"], ["ref"])
        ]
        self.facts = [
            (k, v)
            for k, v in record.attributes.items()
            if (k, v) not in self.links
            and not is_free_text_field(k)
            and k not in _HEADER_KEYS
            and _PLAIN.match(str(v))
            and len(str(v).split()) <= 6
        ]
        sender = str(record.attributes.get("sender") or record.attributes.get("from") or "")
        self.signer = " ".join(
            p.capitalize() for p in re.findall(r"[a-z]+", sender.split("@")[0])[:2]
        )
        self.people = sorted(
            r.name
            for r in world.records
            if r.kind == "contact"
            and r.id != record.id
            and r.name != self.signer
            and _PERSON.fullmatch(r.name)
        )
        self.unused: list[str] = []

    def pick(self, options: Sequence[str]) -> str:
        return options[self.rng.randrange(len(options))]

    def several(self, options: Sequence[str], low: int, high: int) -> list[str]:
        return self.rng.sample(list(options), min(len(options), self.rng.randint(low, high)))

    def person(self) -> str:
        return self.pick(self.people) if self.people else self.pick(_TEAMS)

    def day(self, back: int) -> str:
        return (self.today - timedelta(days=back)).isoformat()

    def fact(self, key: str, value: object) -> str:
        """One of the record's values as a sentence, quoting the value as stored."""
        words = tokens(key)
        label = " ".join(words)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        day = _DAY.match(text)
        if day and words[-1:] and words[-1] in ("at", "date", "on", "time"):
            action = " ".join(words[:-1]) or "recorded"
            if action.endswith("ed"):
                return f"It was {action} on {day.group(1)}."
            return f"The {action} date is {day.group(1)}."
        if isinstance(value, bool):
            return f"{label[:1].upper()}{label[1:]}: {'yes' if value else 'no'}."
        sentence = self.pick((f"The {label} is {text}.", f"{label}: {text}.", f"{label} {text}."))
        return sentence[:1].upper() + sentence[1:]

    def fact_lines(self, low: int, high: int) -> list[str]:
        chosen = self.rng.sample(self.facts, min(len(self.facts), self.rng.randint(low, high)))
        return [self.fact(k, v) for k, v in chosen]

    def fill(self, bank: Sequence[str], low: int, high: int) -> list[str]:
        """Sentences of a bank, none said twice in one text."""
        fresh = [s for s in bank if s not in self.unused]
        chosen = self.rng.sample(fresh, min(len(fresh), self.rng.randint(low, high)))
        self.unused += chosen
        return [self._slots(s) for s in chosen]

    def _slots(self, sentence: str) -> str:
        return sentence.format(
            subject=self.subject,
            person=self.person(),
            day=self.day(self.rng.randint(1, 12)),
            weekday=self.pick(("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")),
        )


def _email(w: _Writer) -> str:
    greeting = w.pick(("Hi,", "Hello,", "Good morning,", "Hi all,", "Dear colleague,"))
    opening = w._slots(w.pick(_EMAIL_OPENINGS))
    middle = w.fill(_EMAIL_MIDDLE, 4, 7)
    details = w.fact_lines(1, 3)
    attached = w.record.attributes.get("attachment")
    if isinstance(attached, str) and _PLAIN.match(attached):
        details.insert(0, w.pick(_ATTACHED).format(attached))
    asks = w.fill(_EMAIL_ASKS, 1, 2)
    closing = w.pick(("Best regards,", "Kind regards,", "Thanks,", "Many thanks,", "Cheers,"))
    paragraphs = [greeting, " ".join([opening, *middle[:2]]), " ".join(middle[2:] + details)]
    paragraphs += [" ".join(asks), f"{closing}\n{w.signer or w.person()}"]
    return "\n\n".join(p for p in paragraphs if p.strip())


def _clinical(w: _Writer) -> str:
    seen = w.day(w.rng.randint(2, 30))
    author = w.person()
    lines = [f"Consultation note, {seen}. Clinician: {author}."]
    lines += w.fill(_CLINICAL_HISTORY, 3, 5)
    lines += w.fact_lines(2, 4)
    lines += w.fill(_CLINICAL_PLAN, 3, 4)
    return " ".join(lines)


def _ticket(w: _Writer) -> str:
    reporter = w.person()
    lines = [w._slots(w.pick(_TICKET_OPENINGS)), *w.fill(_TICKET_BODY, 4, 6)]
    lines += w.fact_lines(1, 3)
    steps = w.fill(_TICKET_STEPS, 2, 3)
    return f"Reported by {reporter}.\n\n" + " ".join(lines) + "\n\nSo far:\n- " + "\n- ".join(steps)


def _change(w: _Writer) -> str:
    """A pull request's description, as its author writes one."""
    summary = w._slots(w.pick(_CHANGE_SUMMARY))
    changes = w.fill(_CHANGE_LINES, 2, 4)
    testing = w.fill(_CHANGE_TESTING, 1, 2)
    return (
        f"## Summary\n{summary}\n\n## Changes\n- "
        + "\n- ".join(changes)
        + "\n\n## Testing\n"
        + " ".join(testing)
        + ("\n\n" + " ".join(w.fact_lines(1, 2)) if w.facts else "")
    )


def _chat(w: _Writer) -> str:
    return " ".join(w.fill(_CHAT, 2, 4) + w.fact_lines(0, 1))


def _notes(w: _Writer) -> str:
    entries = []
    for k in range(w.rng.randint(3, 5)):
        day = w.day(3 * (5 - k) + w.rng.randint(0, 2))
        entries.append(f"{day} ({w.person()}): {w._slots(w.pick(_NOTES))}")
    entries += [f"{w.day(1)}: " + " ".join(w.fact_lines(1, 2))] if w.facts else []
    return "\n".join(entries)


def _document(w: _Writer) -> str:
    sections = w.several(_SECTIONS, 3, 5)
    parts = [w.record.name, "=" * len(w.record.name), w._slots(w.pick(_DOC_INTROS))]
    for index, title in enumerate(sections):
        body = w.fill(_DOC_BODY, 2, 3)
        if index == 0:
            body += w.fact_lines(2, 4)
        parts += ["", title, " ".join(body)]
    return "\n".join(parts)


def _log(w: _Writer) -> str:
    component = re.sub(r"[^a-z0-9]+", "-", w.record.id.lower()).strip("-")
    messages = [w._slots(w.pick(_LOG_INFO)) for _ in range(w.rng.randint(6, 12))]
    for key, value in w.facts[:3]:
        messages.insert(w.rng.randint(0, len(messages)), f"{key}={value}")
    start, lines = w.rng.randint(6, 15) * 3600, []
    for k, message in enumerate(messages):
        second = start + 41 * k + w.rng.randint(0, 40)
        level = "WARN" if message in _LOG_WARN else "INFO"
        stamp = f"{w.day(1)}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"
        lines.append(f"{stamp} {level:<5} {component} {message}")
    return "\n".join(lines)


def _description(w: _Writer) -> str:
    lines = [w._slots(w.pick(_DESCRIPTION_OPENINGS)), *w.fact_lines(3, 6)]
    return " ".join(lines + w.fill(_DESCRIPTION_BODY, 3, 5))


def _opening(text: str, words: int) -> str:
    flat = " ".join(line for line in text.split("\n") if line.strip() and "===" not in line)
    cut = flat.split()
    return " ".join(cut[:words]) + ("…" if len(cut) > words else "")


_GENRES: dict[str, Callable[[_Writer], str]] = {
    "email": _email,
    "clinical": _clinical,
    "ticket": _ticket,
    "chat": _chat,
    "change": _change,
    "notes": _notes,
    "document": _document,
    "log": _log,
    "description": _description,
}
_HEADER_KEYS = frozenset(["sender", "from", "to", "attachment", "attachment_id", "subject"])
"""Fields an e-mail shows in its header, not in its body."""
_ATTACHED = ("I've attached {}.", "{} is attached.", "The file is attached ({}).")
_TEAMS = ("Operations", "the service desk", "Accounts", "the records team", "Facilities")
_EMAIL_OPENINGS = (
    "I'm following up on {subject}.", "Quick update on {subject} before the end of the week.",
    "As promised on {weekday}, here is where things stand with {subject}.",
    "Sending this over so everyone has the same picture of {subject}.",
    "Circling back on {subject}, since a few of you asked.",
)  # fmt: skip
_EMAIL_MIDDLE = (
    "I went through it with {person} yesterday and we agreed on the main points.",
    "Most of it is unchanged from the version we looked at last time.",
    "The figures were pulled from the system on {day}, so they may have moved slightly since.",
    "There are a couple of open questions, which I've listed at the end.",
    "Nothing here needs a decision today, but it would help to have comments by {weekday}.",
    "I've kept the format the same as before so it is easy to compare.",
    "{person} has the background if you need more detail on any part of it.",
    "The previous thread got long, so I'm starting a fresh one here.",
    "For reference, the details as they stand now are below.",
    "I've copied in the people who were on the original thread.",
    "The short version is that nothing has changed in substance since we last spoke.",
    "A couple of people asked for the background, so I've written it out in full this time.",
    "If you already replied on the old thread, no need to do it again; I have your comments.",
    "This is the version I'd like us to work from from now on.",
    "I've checked the dates against the calendar and they line up.",
)  # fmt: skip
_EMAIL_ASKS = (
    "Let me know if anything looks off.", "Happy to go through it on a call if that is easier.",
    "Please reply to this thread rather than starting a new one.",
    "Shout if you need anything else from me before then.",
    "I'll be out on {weekday} afternoon, so {person} can pick up questions then.",
)  # fmt: skip
_CLINICAL_HISTORY = (
    "Attended for a routine review; reports feeling much the same as at the last visit.",
    "History taken from the patient, who was alert and gave a clear account.",
    "No new symptoms reported since the previous appointment.",
    "Current medication reviewed with the patient; adherence described as good.",
    "Seen with a family member present, at the patient's request.",
    "Records from the last three appointments reviewed before the consultation.",
    "Patient asked to go through the results from the last visit, which were explained.",
    "Identity confirmed with name and date of birth at the start of the appointment.",
)  # fmt: skip
_CLINICAL_PLAN = (
    "Plan: continue current management and review in the usual interval.",
    "Safety-netting advice given; to contact the practice if symptoms change.",
    "Bloods to be repeated before the next review.",
    "Patient agreed with the plan and had no further questions.",
    "Letter to follow to the patient summarising today's discussion.",
    "Coded and summarised in the problem list.",
    "Next review booked with the usual clinician where possible.",
    "Discussed lifestyle advice; written information given.",
)  # fmt: skip
_TICKET_OPENINGS = (
    "Raised about {subject} after it was noticed on {day}.",
    "This covers {subject}; the first report came in on {weekday}.",
    "Opening this so {subject} is tracked in one place.",
)  # fmt: skip
_TICKET_BODY = (
    "The behaviour has been seen more than once, not just a one-off.",
    "{person} confirmed it on their side as well.",
    "There is no workaround that fully avoids it yet.",
    "Impact so far is limited, but it is holding up routine work.",
    "Screenshots and the exact times are attached to the first comment.",
    "It started around the same time as the last scheduled change.",
    "The first report came in through the usual channel and was logged straight away.",
    "It affects at least one other person on the same team.",
    "The details in the record were checked and match what was reported.",
    "Nobody has changed anything on the record since the report came in.",
)  # fmt: skip
_TICKET_STEPS = (
    "checked the recent history for similar reports", "asked {person} for the exact times",
    "confirmed the details below against the record", "waiting on a reply before the next step",
    "reproduced it once on {day}",
)  # fmt: skip
_CHANGE_SUMMARY = (
    "This change addresses {subject}.", "Follow-up to the discussion on {subject}.",
    "{subject}: the smallest change that does it, so it is easy to review.",
)  # fmt: skip
_CHANGE_LINES = (
    "move the shared setup into one helper", "add a test for the case that was missing",
    "rename two variables so the intent is clearer", "update the docs to match",
    "drop a workaround that is no longer needed", "tidy the error message shown to users",
)  # fmt: skip
_CHANGE_TESTING = (
    "Ran the test suite locally.", "Checked by hand against a copy of the data.",
    "CI should cover the rest.", "Reviewers: a second pair of eyes on the last file please.",
)  # fmt: skip
_CHAT = (
    "Morning, quick one from me.", "Just got back from the site visit.",
    "Running about twenty minutes behind today.", "Can you check this when you get a moment?",
    "Spoke to {person} about it earlier.", "Sending the details below.",
    "Will send the photos over once I'm back on wifi.", "Let me know if you need anything else.",
)  # fmt: skip
_NOTES = (
    "Reviewed {subject} and updated the record.", "Called back; left a message with the details.",
    "Discussed with {person}; agreed to revisit on {weekday}.", "Checked the history, no change.",
    "Documents received and filed against the record.", "Follow-up booked for next week.",
    "Spoke to {person}; they will send the paperwork over by {weekday}.",
    "Updated the contact details after the call.",
    "Checked the record against the last statement; figures agree.",
)  # fmt: skip
_SECTIONS = ("Purpose", "Background", "Details", "Scope", "Responsibilities", "Next steps")
_DOC_INTROS = (
    "This document sets out {subject} as it currently stands.",
    "Working copy of {subject}, last revised on {day}.",
    "Summary of {subject} for the people who work with it day to day.",
)  # fmt: skip
_DOC_BODY = (
    "It is kept up to date by {person}, who should be told about any change.",
    "Earlier versions are kept in the archive for reference.",
    "The sections below follow the order used in the previous revision.",
    "Where a point needs sign-off, the owner is named next to it.",
    "Questions about any section can go to the owner listed at the top.",
    "Terms used here have the meaning given in the glossary at the end.",
    "Figures quoted are those recorded on {day}.",
    "This version replaces the one circulated earlier in the quarter.",
    "Comments on the draft were folded in where they did not conflict.",
    "Anything marked as pending is still waiting on the owner named beside it.",
    "The appendix lists the source of each figure.",
    "Changes since the last revision are tracked in the history at the end.",
    "Distribution is limited to the people named in the access list.",
)  # fmt: skip
_LOG_INFO = (
    "request completed in 184 ms", "connection opened", "sync started",
    "session started by {person}", "configuration reloaded", "poll cycle started",
    "queue drained, 0 pending", "cache refreshed", "scheduled task finished",
    "response slower than usual (1.9 s)", "retrying after timeout (attempt 2 of 3)",
)  # fmt: skip
_LOG_WARN = frozenset(
    ["response slower than usual (1.9 s)", "retrying after timeout (attempt 2 of 3)"]
)
_DESCRIPTION_OPENINGS = (
    "{subject} as recorded in the system.", "Record for {subject}.",
    "Details held for {subject}.",
)  # fmt: skip
_DESCRIPTION_BODY = (
    "Last reviewed by {person} on {day}.", "Entered by {person}.",
    "Changes are logged in the history tab.", "Contact {person} with any questions about it.",
    "It has been kept current since it was first set up in the system.",
    "Related records are linked from the record itself.",
    "Any change to the fields above is kept in the audit history.",
    "Figures shown are the ones recorded at the last update.",
    "The owning team is listed on the record.",
)  # fmt: skip
