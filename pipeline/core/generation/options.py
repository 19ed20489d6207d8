"""Which of a parameter's enum options the user's words choose: 'text him' is the `sms`
channel, 'by app rather than text' turns `sms` down, 'urgently' picks `urgent`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.core.generation.semantics import abbreviates, tokens


def json_type(schema: Mapping[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    return kind if isinstance(kind, str) else "string"


def options_of(schema: Mapping[str, Any]) -> list[Any]:
    items = schema.get("items") if json_type(schema) == "array" else None
    source = items if isinstance(items, Mapping) else schema
    return list(source.get("enum") or [])


def first_option(schema: Mapping[str, Any]) -> Any:
    options = options_of(schema)
    return [] if json_type(schema) == "array" else options[0]


_URGENT = re.compile(
    r"\b(urgent|urgently|straight away|immediately|asap|right away|critical|same[- ]day)\b",
    re.I,
)
_URGENT_OPTIONS = ("urgent", "critical", "immediate", "stat", "high", "asap")
_MILD = re.compile(r"\b(mild|minor|no fever|nothing serious|not urgent)\b", re.I)
_MILD_OPTIONS = ("self_care", "routine", "low", "minor")
"""A mild complaint is triaged low: a mild itchy rash with no fever went in as `emergency`,
the first of the options, and 'a same-day visit' for 172/104 as `self_care` (its 'care')."""


_DISOWNED = re.compile(
    r"\b(never made|did(?:n'?t| not) make|did(?:n'?t| not) authori[sz]e|don'?t recogni[sz]e)\b",
    re.I,
)
_DISOWNED_OPTIONS = ("unauthorised", "unauthorized", "fraud", "fraudulent", "not_recognised")
_ASKED_FOR = re.compile(
    r"\basked\b[^.?!]{0,30}\bto (?:cancel|close|end|stop|terminate)\b|\b(?:at (?:their|his|her) "
    r"request|(?:he|she|they) (?:wants?|requested) (?:to )?(?:cancel|close|end))\b",
    re.I,
)
_ASKED_FOR_OPTIONS = (
    "insured_request", "customer_request", "client_request", "policyholder_request",
    "user_request", "requested_by_customer", "voluntary",
)  # fmt: skip
"""What a cancellation the customer asked for is ('sold the car and asked us in writing to
cancel'): auditors found it cancelled for `non_payment`, a reason the policy's paid-up
premium contradicted."""


def chosen_options(schema: Mapping[str, Any], request: str, context: str) -> Any:
    """The options the request (or the records it is about) mention: a charge 'I never made'
    is disputed as `unauthorised`."""
    cues = ((_MILD, _MILD_OPTIONS), (_URGENT, _URGENT_OPTIONS), (_DISOWNED, _DISOWNED_OPTIONS))
    for cue, wanted in (*cues, (_ASKED_FOR, _ASKED_FOR_OPTIONS)):
        if json_type(schema) != "array" and cue.search(request):
            meant = [o for o in wanted if o in options_of(schema)]
            if meant:
                return meant[0]
    for text in (request, context):
        said = re.findall(r"[a-z0-9]+", _REFUSED.sub(" ", text.lower()))
        scored = [(_said_share(o, said), o) for o in options_of(schema) if isinstance(o, str)]
        if json_type(schema) == "array":
            hits = [o for share, o in scored if share[0] == 1.0]
            if hits:
                return hits
            continue
        best = max((share for share, _ in scored), default=(0.0, 0))
        if best[0] >= 0.5:
            tied = [(share[1], o) for share, o in scored if share[0] == best[0]]
            return _set_to(tied, said) if len(tied) > 1 else tied[0][1]
    return None


_TO_CUES = frozenset({"as", "to", "into", "via", "by", "an", "a"})
"""Words before the option a value is set to ('file it as an exhibit', 'move it to done')."""


def _set_to(tied: Sequence[tuple[int, str]], said: Sequence[str]) -> str:
    """Among options the text says equally fully ('file the witness statement as an
    exhibit'), the one said as the other's kind ('squash-merge'), else the one said after
    'as' / 'to' / 'via', else the one more of whose words are said, else the one said last;
    never the first in the schema's order."""

    others = {o for _, o in tied}

    def where(counted: tuple[int, str]) -> tuple[bool, bool, int, int]:
        count, option = counted
        words = [w for w in tokens(option) if w not in _UNIT_TOKENS] or tokens(option)
        at = [i for i, s in enumerate(said) if any(_same_word(w, s) for w in words)]
        first = min(at, default=0)
        # 'squash-merge it', 'rebase and merge': the option said before another, as its
        # kind, is the one meant
        kinds = others - {option}
        nexts = [[w for w in said[i + 1 : i + 3] if w != "and"][:1] for i in at]
        modifies = any(n and n[0] in kinds for n in nexts)
        return (modifies, first > 0 and said[first - 1] in _TO_CUES, count, max(at, default=0))

    return max(tied, key=where)[1]


_REFUSED = re.compile(
    r"\b(?:rather than|instead of|not by|not via|not yet|no longer|never"
    r"|(?:has|have|is|are|was|were)(?:n'?t| not)(?: yet| been)?)\s+[a-z]+"
)
"""An option the user turns down ('by app notification rather than text') or says a record
is not in ('cancel it if it hasn't shipped' listed the `shipped` orders): never chosen."""
_UNIT_TOKENS = frozenset({"pct", "ms", "per", "s", "in", "of", "the", "and", "or", "to"})
"""Parts of an option's name nobody says ('error_rate_pct' is 'the error rate')."""


_SPOKEN_AS = {"text": "sms", "texts": "sms", "texted": "sms", "phone": "telephone"}
_SPOKEN_AS |= {"morning": "am", "afternoon": "pm", "personal": "pii"}
"""What people say for an option's own word: 'text him' is the `sms` channel, a 'phone review'
a `telephone` appointment (auditors found it booked as a `diabetes_review`), '12 Nov morning'
the `am` slot (it went in as `all_day`, the slot of the visit that was missed), 'personal and
medical data' the `pii` and `medical` categories (only medical was redacted, and the witness's
home address filed publicly)."""


def _said_share(option: str, said: Sequence[str]) -> tuple[float, int]:
    """(share, count) of the option's words the text says in some form: 'delivered' says
    `delivery`, 'p99 latency' says `latency_p99_ms`, 'request rate' says `requests_per_s`."""
    if _CODE.fullmatch(option):
        code = option.lower()
        # the word it shortens is longer than the code by two letters at least
        found = int(
            any(s == code or (len(s) >= len(code) + 2 and abbreviates(code, s)) for s in said)
        )
        return float(found), found
    words = [w for w in tokens(option) if w not in _UNIT_TOKENS] or tokens(option)
    said = [*said, *(_SPOKEN_AS[s] for s in said if s in _SPOKEN_AS)]
    found = sum(any(_same_word(w, s) for s in said) for w in words)
    return (found / len(words) if words else 0.0), found


_CODE = re.compile(r"[A-Z]{4,5}")
"""An option that is a code ('ALLG', 'WCHR'): said as itself or through the word it
shortens (not three letters: 'USD' would shorten 'used')."""


_ENDINGS = ("s", "es", "d", "ed", "ing", "er", "or", "al", "ion")
"""Endings that turn one form of a word into another ('move' -> 'moves', 'view' -> 'viewer',
'deny' -> 'denial' with its y as i)."""


def _same_word(option_word: str, said: str) -> bool:
    """One word in two forms ('deliver', 'delivered', 'delivery'; 'resigned', `resignation`;
    'denial', `deny`): the same word, one with an ending of the other, or a shared stem of six
    letters, or of five that leaves at most one letter of the shorter."""
    if option_word == said:
        return True
    for short, long in ((option_word, said), (said, option_word)):
        stems = {short, short[:-1] + "i"} if short.endswith("y") else {short}
        if len(short) >= 4 and any(long == stem + end for stem in stems for end in _ENDINGS):
            return True
    shorter = min(len(option_word), len(said))
    common = 0
    while common < shorter and option_word[common] == said[common]:
        common += 1
    return common >= 6 or (common >= 5 and common >= shorter - 1)
