"""Which fields of an observed record answer a question: those the request names, those a
'where' or 'when' asks for, those the tool is called for (its description's words), then
salient ones; never a read's ids, nor a value the user already gave, nor text a risk put in
view. `facts` states what these pick.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Any

from pipeline.core.generation.semantics import is_free_text_field, tokens


def words_of(text: str) -> set[str]:
    """The longer words of a text that say what it is about, a plural as its singular
    ('trips' is 'trip')."""
    return {singular(w) for w in re.findall(r"[a-z]{4,}", text.lower())} - _FILLER


def shown_words(text: str) -> set[str]:
    """Every word and number of a text as a name is matched against it, lower-cased, a
    number without its leading zeros ('013' is '13')."""
    return {w.lstrip("0") for w in re.findall(r"[a-z0-9]+", text.lower())}


_FILLER = frozenset([
    "from", "with", "this", "that", "have", "what", "which", "will", "would", "could",
    "should", "please", "thanks", "there", "their", "them", "they", "your", "about", "into",
    "been", "some", "just", "also", "only", "then", "than", "here"
])  # fmt: skip


def singular(word: str) -> str:
    """'trips' -> 'trip', 'allergies' -> 'allergy'; 'status', 'address' and 'analysis' stay
    as they are."""
    if word.endswith("ies") and len(word) > 5 and word != "series":
        return f"{word[:-3]}y"
    plural = word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 4
    return word[:-1] if plural else word


@dataclass(frozen=True)
class Question:
    """What a read is asked: the request's words, its text (a value it already gives is no
    answer), the words of what the tool is for, the texts a risk put in view, and the words
    the user and the run have shown so far (`shown`, None when unknown), where a record's
    name must be to name it."""

    wanted: set[str]
    text: str
    purpose: set[str]
    untrusted: tuple[str, ...] = ()
    shown: frozenset[str] | None = None


_SALIENT = frozenset([
    "status", "balance", "amount", "value", "flag", "total", "price", "result", "state",
    "available", "decision", "due", "date", "time", "start", "id", "name", "error",
    "message", "location", "eta", "severity", "consensus", "quantity", "cash", "lat", "lon",
    "latitude", "longitude", "address", "description", "summary", "reason", "latest", "peak",
    "score", "routing", "outcome", "disposition", "verdict",
])  # fmt: skip
_MADE = frozenset(["number", "url", "link"])
"""What a write's result calls the thing it made, by which the user finds it: 'Opened pull
request.' said neither its number nor its address."""


def picked_fields(
    record: dict[str, Any],
    key: str,
    question: Question,
    wrote: bool,
    every: bool,
    arguments: dict[str, Any],
) -> list[tuple[str, Any]]:
    """Up to three fields, the likeliest answer first: those the request names (a flag only
    then: 'is its public link switched off?'; a read's ids never), then those a 'where',
    'when' or 'who' asks for, then those the tool is called for ('assessment, plan and
    follow-up'), then a value saying a word of the request, then salient ones (with
    `every`, anything; a long text by the sentence that answers). A read never reports back
    a value the user already gave ('platform instagram' to 'what is scheduled on Instagram
    and how did the teaser do?') unless it is asked by name or is a verdict ('is it
    malicious?')."""
    given = " ".join([question.text, *map(str, arguments.values())]).lower()
    text = question.text.lower()
    groups = [ws for asked, ws in _ASKED_BY.items() if re.search(rf"\b(?:{asked})\b", text)]
    hinted = set().union(*groups)

    def hint(words: set[str]) -> float:
        """4, less a little for each more specific question word ('left') before it."""
        return 4 - next(i for i, ws in enumerate(groups) if words & ws) / 100

    scored: list[tuple[float, str, Any]] = []
    for k, v in record.items():
        words = {singular(w) for w in tokens(k)}
        if not wrote and tokens(k)[-1:] == ["id"]:
            continue  # a read's ids answer nothing
        stamp = tokens(k)[-1:] in (["at"], ["date"], ["time"], ["on"], ["by"])
        named = bool(words & question.wanted) or (  # 'scored_at' answers no 'fraud score'
            not stamp and any(_forms(w, asked) for w in words for asked in question.wanted)
        )
        if isinstance(v, bool) or not isinstance(v, str | int | float):
            if isinstance(v, bool) and (named or words & hinted):  # 'does it qualify?'
                scored.append((5 if named else hint(words), k, v))
            continue
        if isinstance(v, str):
            v = unplanted(v, question.untrusted)
        if v == "" or k == key:
            continue
        if len(str(v)) > 60:
            if isinstance(v, str) and (
                named or words & (question.purpose | hinted) or is_free_text_field(k)
            ):
                tier = (
                    5
                    if named
                    else hint(words)
                    if words & hinted
                    else 3
                    if words & question.purpose
                    else 1
                )
                # the words naming the record found it: the rest say what to quote of it
                about = question.wanted - words_of(str(record.get(key, "")))
                scored.append((tier, k, _gist(v, about)))
            continue
        if named:
            scored.append((5, k, v))
        elif not wrote and not words & _VERDICTS and _given(v, given):
            continue
        elif words & hinted:
            scored.append((hint(words), k, v))
        elif words & question.purpose:
            scored.append((3, k, v))
        elif _says(v, question.wanted):
            scored.append((2, k, v))
        elif words & _SALIENT or (wrote and words & _MADE):
            scored.append((1, k, v))
        elif every:
            scored.append((0, k, v))
    ranked = sorted(scored, key=lambda s: -s[0])  # stable: the record's own order in a tier
    return [(k, v) for _, k, v in ranked[:3]]


def _forms(word: str, other: str) -> bool:
    """Whether two words are forms of one ('require', 'required'; 'merge', 'merged'): 'What
    does Korea require?' names `visa_required`, which an answer left out. Not 'consignee'
    and 'consignment'."""
    short, long = sorted((word, other), key=len)
    return word == other or (
        len(short) >= 5 and long.startswith(short) and long[len(short) :] in _ENDINGS
    )


_ENDINGS = frozenset({"d", "ed", "s", "es", "ing"})


def unplanted(value: str, untrusted: tuple[str, ...]) -> str:
    """A value without the text a risk put in it ('' when that is all it says): the
    driver's own words of a message an injection was appended to still answer 'what did he
    say?'. A name or figure a planted text happens to repeat ('Berlin', '1') stays."""
    if len(value) >= 20 and any(value in planted for planted in untrusted):
        return ""
    inside = [planted for planted in untrusted if planted and planted in value]
    if not inside:
        return value
    for planted in inside:
        value = value.replace(planted, " ")
    rest = " ".join(value.split())
    return rest if len(rest) >= 20 else ""


def _gist(text: str, wanted: set[str]) -> str:
    """A long text as an answer quotes it: the sentence that says most of what the request
    asks ('… holds a counterbalance forklift licence' for 'does he have a forklift
    licence?'), else its first; a sentence past 280 characters ends at its last clause
    that fits, and only a clause that does not is cut at a word ('consider a warfarin…').
    A page is quoted by its words, never its markup ('</h1><p>Stour Lane…', '&#x27;')."""
    if _TAG.search(text):  # a page's words, not its style sheet or markup
        text = html.unescape(_TAG.sub("\n", _STYLE.sub("\n", text)))
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()] or [text]
    asked = {w for w in wanted if len(w) >= 5}
    said = [(len(asked & words_of(s)), _telling(s)) for s in sentences]
    best = " ".join(sentences[said.index(max(said))].split())
    if len(best) <= _QUOTED_LENGTH:
        return best
    clauses = re.split(r"(?<=[,;:])\s", best)
    kept = ""
    for clause in clauses:
        if len(kept) + len(clause) + 1 > _QUOTED_LENGTH:
            break
        kept = f"{kept} {clause}".strip()
    if kept:
        return kept.rstrip(",;:") + "."
    return best[:_QUOTED_LENGTH].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _telling(sentence: str) -> int:
    """How much a sentence tells: one of prose with a figure or a date most, a heading or a
    reference line least (a letter was summed up as 'FROST LEGAL LLP.')."""
    words = sentence.split()
    plain = [w for w in words if re.fullmatch(r"[A-Za-z][a-z'-]*[,.;:!?]?", w)]
    prose = len(words) >= 8 and 5 * len(plain) >= 3 * len(words) and "{" not in sentence
    return 2 * prose + (prose and bool(re.search(r"\d", sentence)))


_QUOTED_LENGTH = 280
_STYLE = re.compile(r"<(style|script)\b.*?</\1>", re.S | re.I)
_TAG = re.compile(r"</?[a-zA-Z][^<>]{0,200}>")


_VERDICTS = frozenset(["status", "state", "verdict", "decision", "result", "outcome", "severity"])
"""Fields whose value answers 'is it …?' even when the question says that value."""

_ASKED_BY = {
    "where": frozenset(["location", "address", "lat", "lon", "latitude", "longitude", "city"]),
    "when": frozenset(["date", "time", "at", "start", "due", "eta", "scheduled", "last"]),
    "say|said|says|write|wrote|mention|mentioned|put|noted|logged": frozenset(
        {"text", "body", "message", "content", "snippet", "comment", "note", "notes", "reply"}
    ),
    "how far behind|lag|lagging": frozenset({"lag", "delay", "behind", "replay"}),
    "left|remaining|remain|spare": frozenset({"remaining", "available", "left", "balance"}),
    "how much|cost|owe": frozenset({"amount", "balance", "total", "price", "cost", "due"}),
    "how many": frozenset({"count", "total", "quantity", "number", "size"}),
    "how long": frozenset({"length", "duration", "days", "minutes", "hours", "wait"}),
    "meet|meets|qualify|qualifies|eligible|eligibility|rules": frozenset(
        {"eligible", "eligibility", "qualifies", "passed", "failed", "decision", "outcome"}
    ),
    "legit|legitimate|genuine|trust|trustworthy|scam|phishing|safe": frozenset(
        {"verdict", "verified", "reputation", "malicious", "score", "consensus", "risk"}
        | {"source", "confidence", "flagged", "spf", "dkim", "dmarc"}
    ),
    "complete|missing|outstanding": frozenset({"missing", "complete", "outstanding", "pending"}),
    "merged|shipped|delivered|arrived|approved|closed|resolved|paid|cancelled|confirmed"
    "|received|processed|released|published|gone through|went through": frozenset(
        {"state", "status", "merged", "delivered", "resolved", "closed", "approved", "paid"}
    ),  # '… whether #488 has merged' is its state: open
    "need me|needs me|urgent|action|attention": frozenset(
        {"priority", "urgent", "action", "due", "deadline", "flag", "flagged", "important"}
    ),
    "who can|who has access": frozenset(
        {"cidr", "source", "principal", "grantee", "member", "permission", "allowed", "role"}
    ),
    "who": frozenset(
        {"sender", "from", "counterparty", "author", "organizer", "owner", "requester", "payer"}
        | {"caller", "assignee", "by", "merchant", "submitter", "creator"}
    ),
}
"""Fields a question word asks for ('where is van 17?' is its location, 'who sent it?' the
transfer's counterparty); a more specific word first ('how much is left' is what remains,
not the total)."""


def _given(value: str | int | float, given: str) -> bool:
    """Whether the user (or the call itself) already said this value, as a whole word."""
    said = str(value).lower()
    return re.search(rf"(?<![\w.]){re.escape(said)}(?![\w.])", given) is not None


def _says(value: Any, wanted: set[str]) -> bool:
    """Whether a text value says one of the request's longer words ('forklift licence')."""
    return isinstance(value, str) and bool(
        {w for w in wanted if len(w) >= 5} & set(re.findall(r"[a-z]{5,}", value.lower()))
    )
