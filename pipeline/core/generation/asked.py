"""Which fields of an observed record answer a question: those the request names, those a
'where' or 'when' asks for, those the tool is called for (its description's words), then
salient ones; never a read's ids, nor a value the user already gave, nor text a risk put in
view. `facts` states what these pick.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pipeline.core.generation.semantics import is_free_text_field, tokens


def words_of(text: str) -> set[str]:
    """The longer words of a text that say what it is about, a plural as its singular
    ('trips' is 'trip')."""
    return {singular(w) for w in re.findall(r"[a-z]{4,}", text.lower())} - _FILLER


_FILLER = frozenset([
    "from", "with", "this", "that", "have", "what", "which", "will", "would", "could",
    "should", "please", "thanks", "there", "their", "them", "they", "your", "about", "into",
    "been", "some", "just", "also", "only", "then", "than", "here"
])  # fmt: skip


def singular(word: str) -> str:
    """'trips' -> 'trip'; 'status', 'address' and 'analysis' stay as they are."""
    plural = word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 4
    return word[:-1] if plural else word


@dataclass(frozen=True)
class Question:
    """What a read is asked: the request's words, its text (a value it already gives is no
    answer), the words of what the tool is for, and the texts a risk put in view."""

    wanted: set[str]
    text: str
    purpose: set[str]
    untrusted: tuple[str, ...] = ()


_SALIENT = frozenset([
    "status", "balance", "amount", "value", "flag", "total", "price", "result", "state",
    "available", "decision", "due", "date", "time", "start", "id", "name", "error",
    "message", "location", "eta", "severity", "consensus", "quantity", "cash", "lat", "lon",
    "latitude", "longitude", "address", "description", "summary", "reason", "latest", "peak"
])  # fmt: skip


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
    hinted = {w for asked, ws in _ASKED_BY.items() if re.search(rf"\b{asked}\b", text) for w in ws}
    scored: list[tuple[int, str, Any]] = []
    for k, v in record.items():
        words = {singular(w) for w in tokens(k)}
        if not wrote and tokens(k)[-1:] == ["id"]:
            continue  # a read's ids answer nothing
        named = bool(words & question.wanted)
        if isinstance(v, bool) or not isinstance(v, str | int | float):
            if isinstance(v, bool) and named:
                scored.append((5, k, v))
            continue
        if v == "" or k == key or _planted(str(v), question.untrusted):
            continue
        if len(str(v)) > 60:
            if isinstance(v, str) and (named or words & question.purpose or is_free_text_field(k)):
                scored.append(
                    (
                        5 if named else 3 if words & question.purpose else 1,
                        k,
                        _gist(v, question.wanted),
                    )
                )
            continue
        if named:
            scored.append((5, k, v))
        elif not wrote and not words & _VERDICTS and _given(v, given):
            continue
        elif words & hinted:
            scored.append((4, k, v))
        elif words & question.purpose:
            scored.append((3, k, v))
        elif _says(v, question.wanted):
            scored.append((2, k, v))
        elif words & _SALIENT:
            scored.append((1, k, v))
        elif every:
            scored.append((0, k, v))
    ranked = sorted(scored, key=lambda s: -s[0])  # stable: the record's own order in a tier
    return [(k, v) for _, k, v in ranked[:3]]


def _planted(value: str, untrusted: tuple[str, ...]) -> bool:
    """Whether a value is text a risk put in view, or holds it: a sentence of it, not a
    name or a figure that it happens to repeat ('Berlin', '1')."""
    return any(u in value or (len(value) >= 20 and value in u) for u in untrusted)


def _gist(text: str, wanted: set[str]) -> str:
    """A long text as an answer quotes it: the sentence that says most of what the request
    asks ('… holds a counterbalance forklift licence' for 'does he have a forklift
    licence?'), else its first; a sentence past 200 characters ends at its last clause
    that fits, and only a clause that does not is cut at a word ('consider a warfarin…')."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()] or [text]
    asked = {w for w in wanted if len(w) >= 5}
    said = [len(asked & words_of(s)) for s in sentences]
    best = " ".join(sentences[said.index(max(said))].split())
    if len(best) <= 200:
        return best
    clauses = re.split(r"(?<=[,;:])\s", best)
    kept = ""
    for clause in clauses:
        if len(kept) + len(clause) + 1 > 200:
            break
        kept = f"{kept} {clause}".strip()
    if kept:
        return kept.rstrip(",;:") + "."
    return best[:200].rsplit(" ", 1)[0].rstrip(",;:") + "…"


_VERDICTS = frozenset(["status", "state", "verdict", "decision", "result", "outcome", "severity"])
"""Fields whose value answers 'is it …?' even when the question says that value."""

_ASKED_BY = {
    "where": frozenset(["location", "address", "lat", "lon", "latitude", "longitude", "city"]),
    "when": frozenset(["date", "time", "at", "start", "due", "eta", "scheduled", "last"]),
    "who": frozenset(
        {"sender", "from", "counterparty", "author", "organizer", "owner", "requester", "payer"}
        | {"caller", "assignee", "by", "merchant", "submitter", "creator"}
    ),
}
"""Fields a question word asks for ('where is van 17?' is its location, 'who sent it?' the
transfer's counterparty)."""


def _given(value: str | int | float, given: str) -> bool:
    """Whether the user (or the call itself) already said this value, as a whole word."""
    said = str(value).lower()
    return re.search(rf"(?<![\w.]){re.escape(said)}(?![\w.])", given) is not None


def _says(value: Any, wanted: set[str]) -> bool:
    """Whether a text value says one of the request's longer words ('forklift licence')."""
    return isinstance(value, str) and bool(
        {w for w in wanted if len(w) >= 5} & set(re.findall(r"[a-z]{5,}", value.lower()))
    )
