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

from pipeline.core.generation import prose_code as code
from pipeline.core.generation import prose_phrases as phrases
from pipeline.core.generation import prose_threads as threads
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
ORGANISATION_MAILBOX = re.compile(
    r"(no-?reply|support|notifications?|info|service|alerts?|payroll|billing|accounts?|hr|"
    r"it|helpdesk|security|admin|team|news|updates?)[.@]",
    re.IGNORECASE,
)
"""Senders whose mail is an organisation's templated notice rather than a person's message."""


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
    follows next (an e-mail's attachment, a ticket's customer, a file's related records).
    A source file is code to the end: its links are in its values."""
    if genre == "source":
        return ""
    lines = [f"{' '.join(tokens(k)).capitalize()}: {v}" for k, v in w.links]
    if genre in ("email", "notice"):
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
    if words & {"log", "logs", "stdout", "output", "trace"}:
        return "build_log" if words & _BUILD_WORDS else "log"
    if words & {"event", "meeting", "evt"}:
        return "agenda"
    if keys & {"mrn", "dob", "nhs_number", "allergy", "problems"} or words & {"clinical"}:
        return "clinical"
    if record.name.lower().startswith(("email:", "re:", "fwd:")) or keys & {"sender", "from"}:
        return "notice" if ORGANISATION_MAILBOX.match(_sender(record)) else "email"
    if words & {"pr", "pull", "merge", "commit", "patch"}:
        return "change"
    if words & {"message", "messages", "chat", "reply", "replies", "post", "posts", "comment"}:
        return "chat"
    if words & {"ticket", "case", "incident", "issue", "claim", "complaint", "alert"}:
        return "ticket"
    if code.SOURCE.search(record.name):
        return "source"
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
        sender = _sender(record)
        label = sender.split("@")[-1].split(".")[0] if "@" in sender else ""
        self.organisation = " ".join(p.capitalize() for p in re.split(r"[-_]", label) if p)
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
        return self.pick(self.people) if self.people else self.pick(phrases.TEAMS)

    def day(self, back: int) -> str:
        return (self.today - timedelta(days=back)).isoformat()

    def own_days(self) -> list[date]:
        """The days the record's own values name, up to the scenario's today."""
        found = [_DAY.match(str(v)) for v in self.record.attributes.values()]
        days = [date.fromisoformat(m.group(1)) for m in found if m]
        return [d for d in days if d <= self.today]

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
        forms = [f"{label}: {text}.", f"{label} {text}."]
        if not label.endswith("s"):
            forms.append(f"The {label} is {text}.")  # not 'The checks is …'
        sentence = self.pick(forms)
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
    opening = w._slots(w.pick(phrases.EMAIL_OPENINGS))
    middle = w.fill(phrases.EMAIL_MIDDLE, 4, 7)
    details = w.fact_lines(1, 3)
    attached = w.record.attributes.get("attachment")
    if isinstance(attached, str) and _PLAIN.match(attached):
        details.insert(0, w.pick(_ATTACHED).format(attached))
    asks = w.fill(phrases.EMAIL_ASKS, 1, 2)
    closing = w.pick(("Best regards,", "Kind regards,", "Thanks,", "Many thanks,", "Cheers,"))
    paragraphs = [greeting, " ".join([opening, *middle[:2]]), " ".join(middle[2:] + details)]
    signer = w.signer or w.person()
    paragraphs += [" ".join(asks), f"{closing}\n{signer}\n{w.pick(threads.SIGN_OFF_ROLES)}"]
    return "\n\n".join(p for p in paragraphs if p.strip()) + _quoted(w, signer)


def _quoted(w: _Writer, signer: str) -> str:
    """The message this one answers, quoted under it as mail clients do: written earlier by
    someone else of the world, about the same subject."""
    author = next((p for p in w.several(w.people, 1, 3) if p != signer), "")
    if not author:
        return ""
    asked = w.fill(threads.EMAIL_EARLIER, 2, 4)
    earlier = min([w.today, *w.own_days()]) - timedelta(days=w.rng.randint(1, 6))
    sent = f"{earlier.isoformat()} at {w.rng.randint(8, 17):02d}:{w.rng.randrange(0, 60, 5):02d}"
    hello = f"Hi {signer.split()[0]}," if _PERSON.fullmatch(signer) else "Hi,"
    lines = [hello, "", *asked, "", "Thanks,", author]
    return f"\n\nOn {sent}, {author} wrote:\n" + "\n".join(f"> {x}".rstrip() for x in lines)


def _sender(record: Record) -> str:
    return str(record.attributes.get("sender") or record.attributes.get("from") or "")


def _notice(w: _Writer) -> str:
    """An organisation's e-mail: a notice with the account's facts, signed by the team."""
    greeting = w.pick(("Hello,", "Dear customer,", "Dear colleague,"))
    quoted = re.search(r"'([^']+)'", w.record.name)  # "Reported message 'Payroll: …'"
    w.subject = quoted.group(1) if quoted else w.subject
    opening = w._slots(w.pick(phrases.NOTICE_OPENINGS))
    body = w.fill(phrases.NOTICE_BODY, 2, 3)
    details = w.fact_lines(1, 3)
    asks = w.fill(phrases.NOTICE_ASKS, 1, 2)
    team = f"The {w.organisation} team" if w.organisation else w.pick(phrases.TEAMS).capitalize()
    after = w.fill(threads.NOTICE_NEXT, 2, 3)
    paragraphs = [greeting, " ".join([opening, body[0]]), " ".join(details), " ".join(body[1:])]
    paragraphs += [" ".join(after), " ".join(asks), f"Kind regards,\n{team}"]
    return "\n\n".join(p for p in paragraphs if p.strip())


def _clinical(w: _Writer) -> str:
    seen = w.day(w.rng.randint(2, 30))
    author = w.person()
    lines = [f"Consultation note, {seen}. Clinician: {author}."]
    lines += w.fill(phrases.CLINICAL_HISTORY, 3, 5)
    exam = w.fill(threads.CLINICAL_EXAM, 2, 4)
    assessment = w.fact_lines(2, 4)
    discussion = w.fill(threads.CLINICAL_DISCUSSION, 2, 3)
    plan = w.fill(phrases.CLINICAL_PLAN, 3, 4)
    parts = [" ".join(lines), " ".join(exam), "Assessment: " + " ".join(assessment)]
    return "\n\n".join(p for p in [*parts, " ".join(discussion + plan)] if p.strip(": "))


def _ticket(w: _Writer) -> str:
    reporter = w.person()
    lines = [w._slots(w.pick(phrases.TICKET_OPENINGS)), *w.fill(phrases.TICKET_BODY, 4, 6)]
    lines += w.fact_lines(1, 3)
    steps = w.fill(phrases.TICKET_STEPS, 2, 3)
    count = w.rng.randint(2, 4)
    # a thread follows what it is about: after the record's own latest day, up to today
    since = max(w.own_days(), default=w.today - timedelta(days=2 * count + 1))
    step = max((w.today - since).days, 0) / (count + 1)
    comments = [
        f"{since + timedelta(days=round(step * (k + 1)))} {w.person()}: {w._slots(said)}"
        for k, said in enumerate(w.several(threads.TICKET_COMMENTS, count, count))
    ]
    return (
        f"Reported by {reporter}.\n\n"
        + " ".join(lines)
        + "\n\nSo far:\n- "
        + "\n- ".join(steps)
        + "\n\nComments:\n"
        + "\n".join(comments)
    )


def _change(w: _Writer) -> str:
    """A pull request's description, as its author writes one."""
    summary = w._slots(w.pick(phrases.CHANGE_SUMMARY))
    changes = w.fill(phrases.CHANGE_LINES, 2, 4)
    testing = w.fill(phrases.CHANGE_TESTING, 1, 2)
    return (
        f"## Summary\n{summary}\n\n## Changes\n- "
        + "\n- ".join(changes)
        + "\n\n## Testing\n"
        + " ".join(testing)
        + ("\n\n" + " ".join(w.fact_lines(1, 2)) if w.facts else "")
    )


def _agenda(w: _Writer) -> str:
    """An invite's description: what the meeting is for and what to bring."""
    items = w.fill(phrases.AGENDA_ITEMS, 3, 5)
    return (
        w._slots(w.pick(phrases.AGENDA_OPENINGS))
        + "\n\nAgenda:\n"
        + "\n".join(f"{k}. {item}" for k, item in enumerate(items, start=1))
        + "\n\n"
        + " ".join(w.fact_lines(1, 2) + w.fill(phrases.AGENDA_NOTES, 1, 2))
    )


def _chat(w: _Writer) -> str:
    return " ".join(w.fill(phrases.CHAT + threads.CHAT_MORE, 3, 5) + w.fact_lines(0, 1))


def _notes(w: _Writer) -> str:
    entries = []
    count = w.rng.randint(5, 8)
    for k in range(count):
        day = w.day(3 * (count - k) + w.rng.randint(0, 2))
        entries.append(f"{day} ({w.person()}): {w._slots(w.pick(phrases.NOTES))}")
    entries += [f"{w.day(1)}: " + " ".join(w.fact_lines(1, 2))] if w.facts else []
    return "\n".join(entries)


def _document(w: _Writer) -> str:
    sections = w.several(phrases.SECTIONS + threads.DOC_SECTIONS, 5, 7)
    parts = [w.record.name, "=" * len(w.record.name), w._slots(w.pick(phrases.DOC_INTROS))]
    for index, title in enumerate(sections):
        body = w.fill(phrases.DOC_BODY + threads.DOC_MORE, 2, 3)
        if index == 0:
            body += w.fact_lines(2, 4)
        parts += ["", title, " ".join(body)]
    return "\n".join(parts)


def _log(w: _Writer) -> str:
    component = re.sub(r"[^a-z0-9]+", "-", w.record.id.lower()).strip("-")
    messages = [w._slots(w.pick(phrases.LOG_INFO)) for _ in range(w.rng.randint(6, 12))]
    for _ in range(w.rng.randint(14, 30)):  # the routine lines a service writes in between
        routine = w.pick(threads.LOG_ROUTINE).format(n=w.rng.randint(2, 480))
        messages.insert(w.rng.randint(0, len(messages)), routine)
    for key, value in w.facts[:3]:
        messages.insert(w.rng.randint(0, len(messages)), f"{key}={value}")
    start, lines = w.rng.randint(6, 15) * 3600, []
    for k, message in enumerate(messages):
        second = start + 41 * k + w.rng.randint(0, 40)
        level = "WARN" if message in phrases.LOG_WARN else "INFO"
        stamp = f"{w.day(1)}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"
        lines.append(f"{stamp} {level:<5} {component} {message}")
    return "\n".join(lines)


def _description(w: _Writer) -> str:
    lines = [w._slots(w.pick(phrases.DESCRIPTION_OPENINGS)), *w.fact_lines(3, 6)]
    return " ".join(lines + w.fill(phrases.DESCRIPTION_BODY, 1, 2))


def _opening(text: str, words: int) -> str:
    flat = " ".join(line for line in text.split("\n") if line.strip() and "===" not in line)
    cut = flat.split()
    return " ".join(cut[:words]) + ("…" if len(cut) > words else "")


_GENRES: dict[str, Callable[[_Writer], str]] = {
    "email": _email,
    "notice": _notice,
    "clinical": _clinical,
    "ticket": _ticket,
    "chat": _chat,
    "agenda": _agenda,
    "change": _change,
    "notes": _notes,
    "document": _document,
    "log": _log,
    "description": _description,
    "source": code.source,
    "build_log": code.build_log,
}
_BUILD_WORDS = frozenset(["ci", "job", "jobs", "pipeline", "workflow", "build", "runner"])
"""Words of a log's tool or record that make it a CI job's log, not a service's."""
_HEADER_KEYS = frozenset(["sender", "from", "to", "attachment", "attachment_id", "subject"])
"""Fields an e-mail shows in its header, not in its body."""
_ATTACHED = ("I've attached {}.", "{} is attached.", "The file is attached ({}).")
