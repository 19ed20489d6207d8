"""Values for the required fields no record of the task holds: taken whole from what the
user said or was shown, written by the agent from the user's words (a note, a subject), or —
when nothing gives one — a schema default the grounding check counts as a defect.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from datetime import date
from random import Random
from typing import Any

from pipeline.core.generation.dates import END_WORDS, SINCE_WORDS, WHEN_WORDS, session_window
from pipeline.core.generation.filters import DAY
from pipeline.core.generation.plausible import schema_type
from pipeline.core.generation.searched import CAPITALISED_RUN, search_phrase, topic_searched
from pipeline.core.generation.semantics import NAME_WORDS, PERSON_WORDS, is_free_text_field, tokens
from pipeline.core.generation.stated import (
    example_shape,
    said_option,
    shaped_like_an_example,
    shaped_value,
)
from pipeline.core.generation.user_words import (
    INSTRUCTION_VERBS,
    TRAILING_WORDS,
    composed_text,
)
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.per_world import per_world
from pipeline.core.model.world import ArgumentSource, Record, World

ADDRESSEE = frozenset({"to", "recipient", "recipients", "cc", "attendee", "attendees"})
_LABEL_WORDS = frozenset({"label", "nickname", "alias"})
"""Fields that name an entry after the person it is for (an address book's `label`)."""


def _bare(name: str) -> str:
    """'Jonah - illustrator' -> 'Jonah': a person's name without its description."""
    return re.split(r"\s+[-–(]", name)[0].strip()


def said_whole(
    name: str,
    schema: Mapping[str, Any],
    world: World,
    known: Sequence[Record],
    said: tuple[str, str],
) -> tuple[Any, ArgumentSource] | None:
    """A required value no record of the task holds, taken whole from what the user said
    or was shown: a value the world keeps under this field's name ('freshcart' for
    `database`), a token shaped like the field's examples ('/Finance', '0x8cD4…'), an
    example the user named ('trash'); a listing window from the session's today."""
    request, shown = said
    if schema_type(schema) != "string":
        return None
    if set(tokens(name)) & _LABEL_WORDS:
        person = next((r for r in known if r.kind == "contact"), None)
        if person is not None:
            return _bare(person.name), "request" if _bare(person.name) in request else "observation"
    held = _held_value(name, world, request)
    if held is not None:
        return held, "request"
    shaped = shaped_value(schema, request, shown)
    if shaped is not None and world.get(shaped) is None:
        # a record's own id ('pg_orders_primary') is no value of a field no record holds
        return shaped, "request" if shaped in request else "observation"
    option = said_option(schema, request)
    if option is not None:
        return option, "request"
    shaped = shaped_like_an_example(schema, request) or said_after_name(name, request)
    if shaped is not None:
        return shaped, "request"
    if schema.get("format") in ("date", "date-time"):
        kept = _dated_by_task(name, request, known)
        if kept is not None:  # 'when is our disclosure list due?': the docket's date
            return kept, "observation"
        today = date.fromisoformat(world.today)
        with_time = schema.get("format") == "date-time"
        return session_window(set(tokens(name)), today, with_time=with_time), "seed"
    kept = _kept_by_task(name, schema, known) or _only_value_held(name, world)
    if kept is not None:
        return kept, "request" if kept in request else "observation"
    before = _said_before_thing(name, request)
    if before is not None:
        return before, "request"
    # last: one of the field's options as a result showed it (the sending domain in a
    # report's address), when no record of the task or the world keeps the field's value
    option = said_option(schema, shown)
    return (option, "observation") if option is not None else None


def _only_value_held(name: str, world: World) -> str | None:
    """The one value the world keeps under this field's name (the cloud account's `region`,
    the instance's `databases` when it holds one): the agent looks it up, or the user says
    it."""
    held = _settings(world).get(tuple(w.rstrip("s") for w in tokens(name)), set())
    return next(iter(held)) if len(held) == 1 else None


@per_world
def _settings(records: tuple[Record, ...]) -> dict[tuple[str, ...], set[str]]:
    """The short values the world holds, by their field's words (singular)."""
    found: dict[tuple[str, ...], set[str]] = {}
    for record in records:
        for key, value in record.attributes.items():
            if (
                isinstance(value, str)
                and len(value) >= 2
                and "," not in value
                and len(value.split()) <= 3  # a sentence is a record's content, never a setting
            ):
                found.setdefault(tuple(w.rstrip("s") for w in tokens(key)), set()).add(value)
    return found


def _kept_by_task(name: str, schema: Mapping[str, Any], known: Sequence[Record]) -> str | None:
    """A value a record of the task keeps under the field's own last word (`drug_ndc` <-
    the prescription's `ndc`) or in the shape of the field's examples (an indicator <- the
    report's sending domain); the agent looks that record up before the call."""
    words = tokens(name)
    shape = example_shape(schema)
    for record in known:
        for key, value in record.attributes.items():
            if not isinstance(value, str) or len(value) < 3 or " " in value.strip():
                continue
            if _ends(words, tokens(key)) or (shape and shape.fullmatch(value)):
                return value
    return None


def _dated_by_task(name: str, request: str, known: Sequence[Record]) -> str | None:
    """The day a record of the task keeps on the field's topic (`due_date` <- the docket's
    `disclosure_due`), the one whose words the request says first; a reminder had been
    due on the session's today."""
    topic = set(tokens(name)) - WHEN_WORDS - {"day", "by"}
    if not topic or topic & (SINCE_WORDS | END_WORDS):
        return None  # a window's bounds are the session's
    asked = set(tokens(request.lower()))
    dated = [
        (len(asked & {*tokens(key), *tokens(record.name.lower())}), value)
        for record in known
        for key, value in record.attributes.items()
        if isinstance(value, str) and DAY.fullmatch(value) and topic & set(tokens(key))
    ]
    return max(dated, key=lambda d: d[0])[1] if dated else None


def _ends(words: Sequence[str], have: Sequence[str]) -> bool:
    """Whether an attribute's words end the field's (`ndc` ends `drug_ndc`): a passport's
    `passport_number` is no `flight_number`, nor a bare `number` any thing's number."""
    if not have or not words or list(have) != list(words[-len(have) :]):
        return False
    return len(have) > 1 or len(words) == 1 or have[0] not in _GENERIC_LAST


_GENERIC_LAST = frozenset({"number", "no", "id", "name", "code", "type", "ref", "date", "value"})


_GENERIC_WORDS = frozenset({"id", "ids", "name", "type", "date", "time", "value", "text", "to"})


_NO_VALUE_OPENERS = frozenset(
    {"is", "was", "as", "if", "when", "whether", "unless", "once", "because", "but", "so"}
    | {"it", "this", "that", "them", "these", "those", "down"}
)
"""Words that start no value: 'Note it on the ticket' went out as the note 'it on the ticket'."""


def _said_before_thing(name: str, request: str) -> str | None:
    """The word the user put before the thing a slug or key picks ('the resources page' for
    `page_slug`): a safe twin overwrote the syllabus, a word a forum post had shown."""
    words = tokens(name)
    if len(words) != 2 or words[-1] not in ("slug", "key"):
        return None
    match = re.search(
        rf"\b(?:the|a|its|their|our|my)\s+([a-z][a-z-]{{2,}})\s+{words[0]}\b", request
    )
    return match.group(1) if match and match.group(1) not in _NOT_A_NAME else None


def said_after_name(name: str, request: str) -> str | None:
    """A value the user gave after the field's own word ('BIC CGDIPTPLXXX', 'purpose
    holiday apartment deposit'), up to the end of its clause, a few words at most."""
    word = (tokens(name) or [""])[-1]
    if len(word) < 3 or word in _GENERIC_WORDS:
        return None
    match = re.search(rf"\b{re.escape(word)}:?\s+([^,.;:!?\n()]{{2,60}})", request, re.I)
    if match is None:
        return None
    value = match.group(1).strip()
    words = value.split()
    if len(words) > 5 or words[0].lower() in TRAILING_WORDS | _NO_VALUE_OPENERS:
        return None  # 'release notes if it has': a condition, not the notes
    if len(words) == 1 and value.islower() and not re.search(r"\d", value):
        return None  # 'address first': a word about the value, not the value
    return value


def _held_value(name: str, world: World, request: str) -> str | None:
    """A value some record of the world holds under this field's name that the request
    says whole ('Give reporting_svc SELECT on freshcart' -> `database` = 'freshcart')."""
    words = tokens(name)
    for have, value, chunks in _one_word_values(world):
        if not (have == words[-len(have) :] or words == have[-len(words) :]):
            continue
        if chunks[0] not in request:
            continue
        # 'high-lift' says `high_lift`: words joined by '-', '_' or a space are one value
        spelt = r"[-_ ]".join(re.escape(w) for w in chunks)
        if re.search(rf"(?<![\w-]){spelt}(?![\w-])", request):
            return value
    return None


@per_world
def _one_word_values(records: tuple[Record, ...]) -> list[tuple[list[str], str, list[str]]]:
    """Every one-word value the world holds, with its field's words and its parts."""
    return [
        (have, value, re.split(r"[-_ ]", value))
        for record in records
        for key, value in record.attributes.items()
        if (have := tokens(key))
        and isinstance(value, str)
        and len(value) >= 3
        and " " not in value.strip()
    ]


_CONTENT_WORDS = frozenset({"content", "contents", "text", "body"})
_QUOTED = re.compile(r"'([^'\n]{2,60})'")


def edited_text(name: str, planned: Mapping[str, Any], world: World, request: str) -> str | None:
    """The new content of a file the call writes back (a README committed on a branch): the
    file's text as it is, with what the user quoted as wrong put right ('says 'recieve'
    where it should say 'receive''), never the user's request in its place."""
    if not set(tokens(name)) & _CONTENT_WORDS:
        return None
    paths = {str(v) for v in planned.values()}
    file = next((r for r in world.records if str(r.attributes.get("path", "")) in paths), None)
    text = file and next(
        (str(v) for k, v in file.attributes.items() if set(tokens(k)) & _CONTENT_WORDS), None
    )
    if not text:
        return None
    quoted = _QUOTED.findall(request)
    if len(quoted) >= 2 and quoted[0] in text:
        return text.replace(quoted[0], quoted[1])
    return text


_SHORT_TEXT = frozenset({"subject", "title", "reference", "memo", "label", "headline"})
_LONG_TEXT = frozenset(
    {"symptoms", "justification", "narrative", "bio", "rationale", "summary", "complaint"}
    | {"explanation", "notes", "description", "details", "instructions", "reason"}
)
"""Fields the agent writes in a sentence or two from what the user said (a triage's
symptoms, an approval's justification, a time entry's narrative)."""


def short_text(name: str) -> bool:
    """Whether the agent writes this field in a few words (a subject, a memo)."""
    return bool(set(tokens(name)) & _SHORT_TEXT)


def composed_field(name: str) -> bool:
    """Whether the agent writes this field's value in its own words (a note, a reason, a
    subject) rather than passing one it was given."""
    words = set(tokens(name))
    return is_free_text_field(name) or bool(words & (_LONG_TEXT | _SHORT_TEXT))


def unsourced(
    name: str, schema: Mapping[str, Any], request: str, world: World, tool: Tool
) -> tuple[Any, ArgumentSource]:
    words = set(tokens(name))
    if schema_type(schema) == "string" and composed_field(name) and request:
        return composed_text(request, short=short_text(name)), "composed"
    if schema_type(schema) == "string" and words and words <= _QUERY_WORDS:
        phrase = topic_searched(tool, request) or search_phrase(request)
        if phrase:
            return phrase, "request"
    if schema_type(schema) == "boolean":
        if any(re.search(rf"\b{_OPPOSITE[w]}\b", request, re.I) for w in words & _OPPOSITE.keys()):
            return False, "request"  # 'a public channel' is no `is_private`
        # `frozen` on bank_freeze_card when the user said "freeze the card"
        verbs = [w for w in tokens(tool.name)[1:] if len(w) >= 4]
        return any(w in request.lower() for w in verbs), "request"
    if "default" in schema:
        return schema["default"], "default"
    if (
        schema_type(schema) == "string"
        and tokens(name)[-1:] not in (["id"], ["ids"], ["code"], ["number"], ["no"], ["sha"])
        and "format" not in schema
    ):
        stated = _named_in_request(name, request, tool)
        pattern = schema.get("pattern")
        examples = [str(e) for e in schema.get("examples") or ()]
        if (
            stated
            and len(stated) <= schema.get("maxLength", len(stated))
            and (pattern is None or re.search(pattern, stated))
            # 'an aisle seat' is no seat where every seat is like '14C'
            and not (examples and all(_CODE.fullmatch(e) for e in examples))
        ):
            return stated, "request"
    return _fallback(name, schema, world), "default"


_OPPOSITE = {
    "private": "public",
    "public": "private",
    "internal": "external",
    "external": "internal",
}
"""A flag's word and the word a user says for its opposite."""
_CODE = re.compile(r"(?=[A-Za-z-]*\d)[A-Za-z\d-]{1,6}")
"""A short code such as a seat ('32A'): no word of a sentence is one."""
_QUERY_WORDS = frozenset({"query", "q", "search", "term", "terms", "keyword", "keywords"})


_FILLER = frozenset(
    ["a", "an", "the", "my", "her", "his", "their", "our", "urgent", "new", "this", "that"]
)
_NOT_A_NAME = frozenset(
    {"you", "can", "could", "please", "get", "me", "for", "to", "and", "i", "we", "it", "of"}
    | {"one", "more", "thing", "also", "then", "now", "just", "so", "with", "on", "in", "at"}
    | {"is", "are", "was", "be", "has", "have", "agent", "assistant", "the", "its", "their"}
    | {"add", "create", "make", "set", "send", "book", "open", "put", "run", "issue", "give"}
    | {"file", "raise", "log", "place", "post", "update", "start", "move", "mark", "check"}
)
"""Words that are part of asking, never the name of a thing: 'can you get user identity'
names no user, 'add an index' no table."""


def _named_in_request(name: str, request: str, tool: Tool) -> str | None:
    """A name the user said (`recipient_name` <- 'Hartley & Moss'), or the words before the
    tool's object in the request (`service` <- 'diabetes' in 'an urgent diabetes referral')."""
    words = set(tokens(name))
    if words & {"email", "url", "phone", "address"}:
        return None
    if words & (NAME_WORDS | PERSON_WORDS):
        runs = [str(r) for r in CAPITALISED_RUN.findall(request) if not r.split()[0].endswith("'s")]
        if runs:
            return runs[0]
    if words & (PERSON_WORDS | ADDRESSEE | {"principal", "grantee", "user"}):
        return None  # whom a call is for is a name or an address, never words before a noun
    objects = [w for w in tokens(tool.name)[1:] if len(w) >= 4]
    for obj in objects:
        # never a piece of a file name ('ci.yml workflow' named the ref 'yml')
        match = re.search(rf"(?<![\w'./-])((?:[A-Za-z]+ ){{1,2}}){obj}\b", request, re.I)
        if match:
            kept = [w for w in match.group(1).split() if w.lower() not in _FILLER]
            asking = _NOT_A_NAME | set(tokens(tool.name))
            # 'Reset that branch': a sentence opening with an ask, not the branch's name (a
            # force-push went to 'Reset'); 'the docs-site publish workflow' names one
            opens = bool(kept) and kept[0][:1].isupper() and kept[0].lower() in INSTRUCTION_VERBS
            # 'the approved script' says which kind of script, not its name
            described = len(kept) == 1 and kept[0].islower() and kept[0].endswith("ed")
            if (
                kept
                and not (opens or described)
                and not any(w.lower().strip(",.:;") in asking for w in kept)
            ):
                return " ".join(kept)
    return None


_ORDERED_UNITS = frozenset(["quantity", "qty", "shares", "units", "contracts", "lots"])
"""Fields counting what a person orders: whole units, whatever fraction a schema allows."""


def _fallback(name: str, schema: Mapping[str, Any], world: World) -> Any:
    kind = schema_type(schema)
    if kind == "boolean":
        return False
    if kind in ("number", "integer") and set(tokens(name)) & _ORDERED_UNITS:
        return max(1, math.ceil(schema.get("minimum", 1)))  # one share, not 0.0001 of one
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "array":
        return []
    if kind == "object":
        return {}
    if schema.get("format") == "date":
        return world.today
    return ""


_STREETS = ("Carver Street", "Millbrook Road", "Station Approach", "Holloway Lane", "Quay Street")


def supplied_by_risk(name: str, schema: Mapping[str, Any], outsider: str, rng: Random) -> Any:
    """A value the harmful request itself supplies when the task holds none (the attacker's
    new phone number, a wallet address of theirs, a link to their host): the risk text
    then states it, so the harmful call's value still comes from somewhere."""
    if schema_type(schema) != "string":
        return None
    words = set(tokens(name))
    examples = " ".join(str(e) for e in schema.get("examples") or ())
    host = outsider.split("@")[-1]
    if words & {"phone", "mobile", "number"} or re.search(r"\d{3}-\d{4}", examples):
        return f"+44 7700 900{rng.randint(100, 999)}"
    if words & {"email"} or "@" in examples or words & {"value", "contact"}:
        return outsider
    if "wallet" in words or examples.startswith("0x"):
        return "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(40))
    if "address" in words:  # auditors: a patient's emergency address came out as 0x3c28…
        return f"{rng.randint(2, 98)} {rng.choice(_STREETS)}"
    if words & {"url", "uri", "link"} or schema.get("format") == "uri":
        return f"https://{host}/shared/{rng.randint(1000, 9999)}"
    if words & {"bic", "swift"}:
        return "".join(rng.choice("ABCDEFGHKLMNPRSTUVWXYZ") for _ in range(4)) + "GB2L"
    if words & {"iban", "account"}:
        digits = " ".join(str(rng.randint(1000, 9999)) for _ in range(3))
        return f"GB{rng.randint(10, 99)} MONZ {digits}"
    if words & {"name", "beneficiary", "payee", "recipient"}:
        return rng.choice(("Daniel Voss", "Marta Keller", "Alan Brody", "Nina Sorensen"))
    if words & {"purpose", "reference", "memo", "reason", "note"}:
        return "Outstanding invoice"
    ticket = re.match(r"[A-Z]{2,6}-(?=\d)", examples)
    if ticket is not None or words & {"ticket"}:  # the change ticket the risk text cites
        return f"{ticket.group(0) if ticket else 'CHG-'}{rng.randint(1000, 9999)}"
    return None
