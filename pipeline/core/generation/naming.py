"""How a request names the records it is about: by id, by name, by a first name or surname,
by a distinctive word or value — the link between what the user said and the world.
"""

from __future__ import annotations

import re

from pipeline.core.generation.asked import singular
from pipeline.core.generation.content import bare_name
from pipeline.core.generation.semantics import refers_to
from pipeline.core.generation.stated import EMAIL
from pipeline.core.model.world import Record, World


def focus_records(world: World, request: str) -> tuple[str, ...]:
    """Ids of the records a request talks about, in the order it names them; those it names
    only through another record they belong to (a comment by `post: post_88412`, a ticket by
    `customer_id: cust_10442`) after every record it names itself."""
    lowered = request.lower()
    found: list[tuple[float, bool, int, str]] = []
    distinctive = _distinctive_words(world)
    ids = {r.id.lower() for r in world.records}
    own = {r.id: _said(_phrases(r), lowered) for r in world.records}
    named_kinds = {r.kind for r in world.records if own[r.id]}
    speaker = [m.span(m.lastgroup or 0) for m in _SPEAKER.finditer(request)]
    for record in world.records:
        phrases = own[record.id]
        if record.kind not in named_kinds or phrases:
            # one long word of its name ('engineer') names a record only where no record of
            # its kind is named outright ('note that on TCK-88120' is that ticket, though
            # "the engineer fixed it" shares a word with 'Ticket: engineer never turned up')
            words = re.findall(r"[a-z]{6,}", record.name.lower())
            phrases = phrases + _said([w for w in words if w in distinctive], lowered)
        # a value it holds under another record's id field (a refill queue entry's
        # `prescription_id: 7733405`) names that record first: 'Rx 7733405' is the Rx
        refs = {str(v).lower() for k, v in record.attributes.items() if k.endswith("_id")}
        positions = [
            at
            + (len(lowered) if p in ids and p != record.id.lower() else 0)
            + (0.5 if p in refs else 0)
            + (2 * len(lowered) if any(a <= at < b for a, b in speaker) else 0)
            for p, at in phrases
        ]
        said = _file_words_said(record, lowered)
        if said is not None:
            positions.append(said)
        if positions:
            whole = record.name.lower() in lowered or bare_name(record.name).lower() in lowered
            found.append((min(positions), not whole, -_name_words_said(record, lowered), record.id))
    # 'PaperCo bill 553' names that bill first, then the others sharing its first word; of
    # two met by the same words, the one the request says more of ("Nora Kim's 3 October
    # psychiatry follow-up" is not "Nora Kim therapy visit 18 Sep")
    return tuple(record_id for *_, record_id in sorted(found))


_SPEAKER = re.compile(
    r"(?:^|[.!?,]\s+|\b(?i:hi|hey|hello),?\s+)(?P<here>[A-Z][a-z'-]+(?:\s[A-Z][a-z'-]+)?)\s+here\b"
    r"|\b(?i:this is|it's|i'm|i am)\s+(?P<intro>[A-Z][a-z-]+(?:\s[A-Z][a-z-]+)?)(?!['\w]|\s[A-Z])"
)
"""Who is writing ('Oluwaseun here, as admin - Jamie Lee's contract ends'): named after every
record the request is about, so the task is Jamie's (a safe twin deactivated the admin who
asked)."""


def _said(phrases: list[str], lowered: str) -> list[tuple[str, int]]:
    """The phrases the request says as words of their own (not inside a longer word), each
    with where it first does; most are not there at all, which spares compiling a pattern."""
    found = []
    for phrase in (p for p in phrases if p in lowered):
        for match in re.finditer(rf"(?<!\w){re.escape(phrase)}(?!\w)", lowered):
            if not _inside_an_address(phrase, lowered, match.start()):
                found.append((phrase, match.start()))
                break
    return found


def _inside_an_address(phrase: str, lowered: str, at: int) -> bool:
    """Whether the phrase is part of an e-mail address or a link ('pinecrest' of
    'sofia.rossi@pinecrest.example.com'), which names the domain, not the record: a grant
    'to @pinecrestcoffee' went to the Pinecrest ad account."""
    start = lowered.rfind(" ", 0, at) + 1
    end = lowered.find(" ", at)
    token = lowered[start : end if end >= 0 else len(lowered)].strip(".,;:!?()")
    return token != phrase and ("://" in token or EMAIL.fullmatch(token) is not None)


def _name_words_said(record: Record, lowered: str) -> int:
    """How many words of a record's name the request says ('3', 'oct', 'psychiatry')."""
    words = set(re.findall(r"[a-z]{3,}|\d+", record.name.lower()))
    said = set(re.findall(r"[a-z]{3,}|\d+", lowered))
    return len(words & said) + sum(1 for w in words - said if any(s.startswith(w) for s in said))


def _file_words_said(record: Record, lowered: str) -> int | None:
    """Where a request names a file by the words of its name ('the Harlow planning PDF v3'
    for `Harlow_Residence_Planning_v3.pdf`, 'the Harlow elevations drawing' for
    `Harlow_Elevations_RevC.dwg`): two of its words at least and two in three, its version
    marks (`v3`, `RevC`, `2024-09`) aside."""
    if not re.fullmatch(r"[\w-]+_[\w.-]+\.\w{2,4}", record.name):
        return None
    stem = record.name.lower()[: record.name.rfind(".")]
    words = [w for w in re.split(r"[_\-.]+", stem) if w and not _VERSION.fullmatch(w)]
    at = [m.start() for w in words if (m := re.search(rf"(?<!\w){re.escape(w)}(?!\w)", lowered))]
    return min(at) if len(at) >= 2 and len(at) * 3 >= len(words) * 2 else None


_VERSION = re.compile(r"(?:v|rev)[a-z\d]{0,3}|\w*\d\w*|final|draft")


def _distinctive_words(world: World) -> set[str]:
    """Long words that appear in exactly one record's name ('taxable', 'potassium')."""
    counts: dict[str, int] = {}
    for record in world.records:
        for word in set(re.findall(r"[a-z]{6,}", record.name.lower())):
            counts[word] = counts.get(word, 0) + 1
    return {w for w, n in counts.items() if n == 1 and w not in _COMMON}


_COMMON = frozenset(
    {"account", "record", "request", "message", "details", "update", "report", "notice"}
    | {"address", "history", "contact", "status"}
)


def _phrases(record: Record) -> list[str]:
    """How a request can name a record: its id, its name, a distinctive value of it."""
    bare = bare_name(record.name)
    phrases = [record.id.lower(), record.name.lower(), bare.lower()]
    words = bare.split()
    # 'Invoice LPS-2024-117' begins with its kind, which every invoice shares: 'the invoice'
    # is none of them in particular, nor is 'Invoice' a first name
    kind_first = bool(words) and refers_to(words[0], record) >= 3
    person = 2 <= len(words) <= 3 and all(w[:1].isupper() for w in words) and not kind_first
    if person:
        phrases += [words[0].lower(), words[-1].lower()]  # a person's first name or surname
    elif words and len(words[0]) >= 6 and not kind_first:
        phrases.append(words[0].lower())  # 'Potassium result for ...' -> 'potassium'
    head = re.split(r"\s+[-–]\s+", bare)[0]
    if head != bare and len(head.split()) <= 2 and head[:1].isupper():
        phrases.append(head.lower())  # 'Sam - design contractor' -> 'sam'
    phrases += re.findall(r"#\d+", record.name)  # 'PR #488 ...' -> '#488'
    kind, colon, subject = bare.partition(": ")
    if colon and len(kind.split()) == 1 and len(subject.split()) >= 2:
        phrases.append(subject.lower())  # 'Ticket: line drops every night' -> 'line drops …'
    tail = bare.rsplit("/", 1)[-1]
    if "/" in bare and re.search(r"[\W\d_]", tail):
        phrases.append(tail.lower())  # 'northwind/payments-api' -> 'payments-api', not 'Planning'
    for run in re.findall(r"[A-Z][\w'-]+(?:\s+(?:&\s+)?[A-Z][\w'-]+)+", record.name):
        parts = run.split()
        phrases += [" ".join(parts[:n]).lower() for n in range(2, len(parts) + 1)]
    phrases += [
        str(v).lower()
        for v in record.attributes.values()
        if isinstance(v, str)
        and ((re.search(r"\d", v) and 5 <= len(v) <= 40) or v.startswith(("https://", "http://")))
    ]  # a page's address names it whatever its length
    short = {head.lower()} | ({words[0].lower()} if person and record.kind == "contact" else set())
    return [p for p in phrases if len(p) >= 4 or p in short]  # 'Leo' of a contact


def named_as(record: Record, text: str) -> str | None:
    """How `text` names the record ('Elena Delgado' for 'Housing assistance - Elena
    Delgado'), in the text's own spelling: what a user would type into a search box."""
    lowered = text.lower()
    found = [
        m.group(0)
        for p in _phrases(record)
        if p != record.id.lower() and p in lowered
        for m in [re.search(rf"(?<!\w){re.escape(p)}(?!\w)", text, re.IGNORECASE)]
        if m
    ]
    return max(found, key=len) if found else None


def asked_as(thing: str, name: str) -> str:
    """What a user asks for by a record's name: 'employee record for Daniel Price', not
    '… for Employee record – Daniel Price'; "attachment on the 'Q3 pipeline report' email",
    not '… for Email: Q3 pipeline report'; 'invoice LPS-2024-117' (58 follow-ups had named
    a record by its label)."""
    bare = bare_name(name)
    head = singular(thing.split()[-1].lower()) if thing else ""
    kind, colon, rest = bare.partition(": ")
    if colon and rest and len(kind.split()) == 1:
        kind = kind.lower()
        if head == kind or {head, kind} <= _MAIL:
            return f"'{rest}' {kind}"
        return f"{thing} on the '{rest}' {kind}"
    *label, named = re.split(r"\s+[-–]\s+", bare, maxsplit=1)
    if label and {singular(w) for w in label[0].lower().split()} <= {*thing.lower().split()}:
        return f"{thing} for {named}"
    if head in {singular(w) for w in bare.lower().split()}:
        return bare if bare.split()[0].isupper() else bare[:1].lower() + bare[1:]
    return f"{thing} for {bare}"


_MAIL = frozenset({"email", "message", "mail"})


def as_seen(record: Record, shown: str) -> str:
    """A record as the conversation has named it: its name (or its name without the
    bracketed detail) when most of its words were in view, else the words the user or a
    result had for it, else its id. Thoughts named 'Water damage claim - 17 Fernhill
    Drive' and '@coffee_truth_22' before any result had."""
    seen = {w.lstrip("0") for w in re.findall(r"[a-z0-9]+", shown.lower())}
    for name in (record.name, bare_name(record.name)):
        words = _words(name)
        if not words or 2 * sum(w in seen for w in words) > len(words):
            return name
    said = named_as(record, shown)
    return said if said and set(_words(said)) & set(_words(record.name)) else record.id


def _words(name: str) -> list[str]:
    return [w.lstrip("0") for w in re.findall(r"[a-z0-9]{2,}", name.lower()) if w not in _GLUE]


_GLUE = frozenset({"the", "for", "of", "and", "a", "an", "to", "in", "on"})
