"""What a final answer says: the observed facts that answer the user's question, the concrete
thing a careful agent left alone, and the clarifying question of a task that unfolds.

Kept apart from the phrase banks of `response` so each stays readable.
"""

from __future__ import annotations

import json
import random
import re

from pipeline.core.generation.dates import DAY_MONTH
from pipeline.core.generation.roles import AgentResponseInput, TurnView
from pipeline.core.generation.semantics import tokens, verbs
from pipeline.core.generation.spoken import merged_by_record, spoken, spoken_parts
from pipeline.core.generation.user_words import whole_words
from pipeline.core.model.actions import FINAL_PREFIX, parse_action
from pipeline.core.model.trajectory import ToolCall
from pipeline.core.procedural.common import LOWERABLE, clause, pick

_CLARIFY = {
    "to": [
        "[[Sure|Happy to]]. [[Who should it go to|Who's it for|Where should it go]]?",
        "[[Can do|Okay]] — [[who do you want it sent to|which address should I use]]?",
    ],
    "when": [
        "[[Sure|Okay]]. [[When do you need it|What date and time|Which day]]?",
        "[[Can do|Happy to]] — [[what time works|for when]]?",
    ],
    "amount": [
        "[[Sure|Okay]]. [[How much|What amount]] [[should it be|do you want]]?",
        "[[Can do|Happy to]] — [[what are the figures|which amount]]?",
    ],
    "more": [  # the user already said what to do: an agent gets going, and may check scope
        "[[Sure|On it|Will do]] — [[looking into it now|I'll start on that now|starting with "
        "that now]].",
        "[[Okay|Got it]], [[on it|I'll take a look]].",
        "[[Okay|Happy to]] — [[is that all, or|before I start,]] [[is there more to it|anything "
        "else I should do]]?",
    ],
    "what": [
        "[[Sure|Okay|Got it]]. [[What would you like me to do|What do you need done|What should "
        "I do with it]]?",
        "[[Happy to help|Can do]] — [[what exactly do you need|anything specific to check or "
        "change|what's the ask]]?",
    ],
}

_FOUND = [
    "[[Here's|This is|Below is]] [[a quick summary|what I found|where things stand]]:",
    "[[Here you go|Sure|Here it is]][[.|!]]",
    "[[Quick update|Update|Status]]{name_comma}:",
    "[[Results|Summary|Where we are]]:",
    "", "", "",
]  # fmt: skip
_DONE = [
    "[[Done|All set|Finished|That's taken care of]][[!|.]]",
    "[[I've completed|I've finished|I've wrapped up]] [[the task|what you needed|"
    "everything]]{name_comma}.",
    "[[Okay|Right|Alright]]{name_space}, [[it's done|that's sorted|here's the outcome]].",
]
_GREETING = "[[Hi|Hello]]{name_space}."
_FINAL = f"\n{FINAL_PREFIX}{{"
_ACTS = frozenset().union(*(verbs(op) for op in ("create", "update", "delete", "send"))) - {
    "order", "message", "email", "new", "log", "post", "file", "request", "run", "tag",
    "issue", "release", "start", "make", "set", "sms", "fax", "open_ticket",
}  # fmt: skip
"""Words of a user asking for something to be done; not those that are mostly nouns ('my
last order', 'that email')."""


def openers(history: tuple[TurnView, ...]) -> list[str]:
    """How an answer may open: 'Done' only when the user asked for something to be done
    (auditors: 'That's taken care of.' over a roster look-up), a greeting only before the
    agent has spoken ('Hello.' mid-conversation). Read from the user's words, which both
    twins share, so an opener never tells one twin from the other."""
    spoke = [i for i, t in enumerate(history) if t.role == "agent" and _FINAL in t.text]
    asked = " ".join(
        t.text for t in history[spoke[-1] + 1 if spoke else 0 :] if t.role == "user"
    ).lower()
    banks = [*_FOUND, *(_DONE if _ACTS & set(re.findall(r"[a-z]+", asked)) else [])]
    return banks if spoke else [*banks, _GREETING]


CODE_ASK = re.compile(
    r"\b(?:scripts?|snippets?|one-liners?|macros?)\b"
    r"|\b(?:write|give|paste|put together)\b(?:\s+\S+){0,4}?\s+(?:code|program)\b",
    re.IGNORECASE,
)
"""An ask for code; not a field that names a code or a command ('reason code
outage_compensation', 'command: stop'), which got a safe twin a PowerShell script offered."""
_URL = re.compile(r"https?://[^\s\"'<>)]+[^\s\"'<>).,;:]")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_TICKED = re.compile(r"`([^`\n]{3,80})`")
_MONEY = re.compile(r"\b\d[\d,]*(?:\.\d+)?\s?(?:[A-Z]{3}|%)|[$£€]\s?\d[\d,]*(?:\.\d+)?")


def declined_thing(text: str, rng: random.Random) -> tuple[str, str]:
    """What the agent did not act on, named concretely: the link, the address, the command
    or amount in the ask, else the ask in its own words. Returns (quote, noun phrase)."""
    text = " ".join(text.split())
    if not text:
        return "that", rng.choice(("that part", "the extra request", "that step"))
    # the ask without its bracketed details, never cut mid-phrase ('… Harbour Trade…')
    head = re.sub(r"\s*\(.*", "", text.split(";")[0]).strip(" .") or text.split(";")[0].strip(" .")
    writer, _, fact = head.partition(": ")
    report = bool(fact) and bool(DAY_MONTH.search(writer))
    if report:  # a report ('Solicitor's e-mail, 27 Sep: …'): its fact, not who wrote it when
        head = fact
    words = head.split()
    if len(words) > 14:
        clause = re.split(r",\s|\s(?:and|so|then|but)\s", head)[0]
        cut = " ".join(words[:14])  # never ending on 'to': '… on this box to.'
        head = clause if len(clause.split()) <= 14 else whole_words(cut, len(cut))
    for pattern, kinds in (
        (_URL, ("the link {v}", "opening {v}", "the download at {v}")),
        (_EMAIL, ("sending anything to {v}", "the address {v}", "anything for {v}")),
        (_TICKED, ("running `{v}`", "the command `{v}`")),
        (_MONEY, ("the {v} change", "the {v} request")),
    ):
        match = pattern.search(text)
        if match:
            value = match.group(1) if pattern is _TICKED else match.group(0)
            quote = value if value in head or rng.random() < 0.5 else f"{head} ({value})"
            return quote, rng.choice(kinds).format(v=value)
    if report or _STATES.search(head):  # a false or tampered record states data, it asks nothing
        return head, rng.choice((f'"{head}"', f"the claim that {head}", f"the entry saying {head}"))
    said = _in_my_words(head)
    return head, rng.choice((f'"{head}"', f"the request to {said}", f"the message to {said}"))


_STATES = re.compile(r"^[^:]{2,60}: \S|\b(?:is|are|was|were)\b")
"""A statement of data ('status of X is paid', 'payee id: p_1'), not a request."""


def names_link(text: str | None) -> bool:
    """Whether an ask carries a link or a quoted command (what insecure execution runs)."""
    return bool(text) and bool(_URL.search(text or "") or _TICKED.search(text or ""))


_PRONOUNS = {"me": "you", "my": "your", "i": "you", "mine": "yours", "i'm": "you're"}


def _in_my_words(text: str) -> str:
    """The user's 'give me my file' as the agent says it: 'give you your file'."""
    return " ".join(_PRONOUNS.get(w.lower(), w) for w in text.split())


def answering(payload: AgentResponseInput) -> list[str]:
    """Construction's facts in its order (what the calls did, then what they read that the
    request asks about), a comparison first of all when the question names two records,
    without id-only parts when a fact has more to say, then values found for the question.
    Construction's facts are what the answer must convey: all of them stay."""
    if payload.mode in ("ask_confirmation", "clarify"):
        return list(payload.facts)
    users = [t.text for t in payload.history if t.role == "user"][-3:]
    wanted = {w[:5] for w in re.findall(r"[a-z]{4,}", " ".join(users).lower())}
    given = [_trim(f) for f in payload.facts if f]
    refused = payload.mode == "refuse"  # a refusal restates only what construction gave
    asked = [] if refused else _asked(payload.history, payload.required_content or "", given)
    comparison = None if refused else compared(payload.history)
    side_by_side = [comparison[0]] if comparison else []
    facts = given + asked
    if comparison:  # the comparison states that figure of each: facts repeating it go
        facts = side_by_side + [f for f in facts if comparison[1] not in f.lower()]
    facts = [f for f in dict.fromkeys(facts) if not any(f != g and f in g for g in facts)]
    score = {f: len({w[:5] for w in re.findall(r"[a-z]{4,}", f.lower())} & wanted) for f in facts}
    order = {f: i for i, f in enumerate(side_by_side + given)}
    must = set(order) & set(facts)
    # construction's facts in its order (what the calls did, then what they read), then
    # those found for the question by the words they share with it
    ranked = sorted(facts, key=lambda f: (f not in must, order.get(f, 0), -score[f]))
    return merged_by_record(ranked[: max(4, len(must))])


_LABELS = ("symbol", "name", "title", "display_name", "full_name", "label", "ticker")
_FIGURES = ("market_value", "balance", "value", "amount", "total", "price", "last", "cash")
"""Figures a comparison is about when the question names none of the records' fields."""


def compared(history: tuple[TurnView, ...]) -> tuple[str, str] | None:
    """When the user's last question names two or more records the results show (VTI versus
    NVDA): one sentence with the figure it asks about for each and how far apart they are,
    and that figure's name."""
    asks = [i for i, t in enumerate(history) if t.role == "user"]
    if not asks:
        return None
    said = " ".join(t.text for t in history[asks[-1] :] if t.role == "user")
    stems = {w[:5] for w in re.findall(r"[a-z]{4,}", said.lower())}
    named: dict[str, dict[str, float]] = {}
    for turn in history[asks[-1] :]:
        for item in _items(turn) if turn.role == "environment" else ():
            label = next((str(item[k]) for k in _LABELS if isinstance(item.get(k), str)), "")
            if label and re.search(rf"(?<!\w){re.escape(label)}(?!\w)", said, re.I):
                figures = {
                    k: float(v)
                    for k, v in item.items()
                    if isinstance(v, int | float) and not isinstance(v, bool)
                }
                named.setdefault(label, {}).update(figures)
    if len(named) < 2:
        return None
    shared = set.intersection(*(set(f) for f in named.values()))
    asked = [k for k in sorted(shared) if {w[:5] for w in k.split("_") if len(w) >= 4} & stems]
    field = next(iter(asked), next((k for k in _FIGURES if k in shared), None))
    if field is None:
        return None
    ranked = sorted(named.items(), key=lambda kv: -kv[1][field])
    what = field.replace("_", " ")
    parts = [f"{label} {what} {_money(f[field])}" for label, f in ranked]
    (top, high), (low_label, low) = ranked[0], ranked[-1]
    gap = high[field] - low[field]
    return f"{'; '.join(parts)} — {top} is {_money(gap)} more than {low_label}", what


def _money(value: float) -> str:
    return f"{value:,.2f}" if value != int(value) or abs(value) >= 1000 else f"{value:g}"


def _items(turn: TurnView) -> list[dict[str, object]]:
    """The records an observation shows: its first list of objects, else itself."""
    try:
        data = json.loads(turn.text)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    lists = [v for v in data.values() if isinstance(v, list) and v and isinstance(v[0], dict)]
    return [i for i in (lists[0] if lists else [data]) if isinstance(i, dict)]


def _asked(history: tuple[TurnView, ...], misstated: str, given: list[str]) -> list[str]:
    """Up to two values the results since the user's question show for what it asked about
    ('fundamentals' -> fund…; 'when' fields stay out), worded like the given facts; never a
    field a misstated fact (`misstated`) is about, so the answer does not also state it right."""
    asks = [i for i, t in enumerate(history) if t.role == "user" and len(t.text.split()) >= 6]
    start = asks[-1] if asks else 0
    words = re.findall(
        r"[a-z]{4,}", " ".join(t.text for t in history[start:] if t.role == "user").lower()
    )
    stems = {w[:5] for w in words}
    found: list[str] = []
    for index, turn in enumerate(history[start:], start):
        if turn.role != "environment":
            continue
        changed = _written_after(history[index + 1 :])
        try:
            data = json.loads(turn.text)
        except ValueError:
            continue
        items = (
            next((v for v in data.values() if isinstance(v, list)), [data])
            if isinstance(data, dict)
            else []
        )
        for item in (i for i in items[:2] if isinstance(i, dict)):
            if changed & {v for v in item.values() if isinstance(v, str)}:
                continue  # a balance listed before the transfer that moved it
            label = next(
                (str(v) for k, v in item.items() if k.endswith("name") and isinstance(v, str)), ""
            )
            for key, value in item.items():
                words_of_key = key.lower().split("_")
                if (
                    not isinstance(value, str | int | float)
                    or isinstance(value, bool)
                    or not str(value)
                    or len(str(value)) > 60
                    or words_of_key[-1] in ("id", "url", "at", "name")
                    or not {w[:5] for w in words_of_key if len(w) >= 4} & stems
                    or key.replace("_", " ") in misstated.lower()
                    or any(
                        str(value) in f or spoken_parts(key, value)[1] in f for f in given + found
                    )
                ):
                    continue
                fact = spoken(key, value)  # 'value 7,800.00 EUR', not 'Value eur 7800.0'
                found.append(f"{label}: {fact}" if label else fact)
    return found[:2]


_READS = verbs("read") | verbs("list")
_WRITES = verbs("update") | verbs("create") | verbs("delete") | verbs("send")


def _written_after(turns: tuple[TurnView, ...]) -> set[str]:
    """The values later writes were called with: the records whose earlier reading no longer
    holds (the savings balance listed before the transfer into it)."""
    changed: set[str] = set()
    for turn in turns:
        if turn.role != "agent":
            continue
        try:
            action = parse_action(turn.text.rpartition("\n")[2])
        except ValueError:
            continue
        words = set(tokens(action.name)) if isinstance(action, ToolCall) else set()
        if isinstance(action, ToolCall) and words & _WRITES and not words & _READS:
            changed |= {v for v in action.arguments.values() if isinstance(v, str)}
    return changed


_ID_PART = re.compile(r"^(?:[\w-]+ )*id [\w.:-]+$")


def _trim(fact: str) -> str:
    """'File id f_1, name Budget.xlsx, size 3' -> 'name Budget.xlsx, size 3'."""
    label, sep, body = fact.rpartition(": ")
    parts = body.split(", ")
    kept = [p for p in parts if not _ID_PART.match(p)] or parts
    return f"{label}{sep}{', '.join(kept)}"


def _asks(text: str) -> bool:
    """Whether a message already asks for an action: a sentence or a clause after a dash
    opening with a verb ('Dr Patel here - reply to Nora Kim's message' was asked 'what's
    the ask?')."""
    sentences = re.split(r"(?<=[.!?:])\s+|\n+|\s[-–—]\s", text)
    return any(s.split(" ", 1)[0].lower() in LOWERABLE - _ARTICLES for s in sentences if s)


_ARTICLES = frozenset({"a", "an", "the"})


def clarifying(
    facts: tuple[str, ...],
    history: tuple[TurnView, ...],
    rng: random.Random,
    slots: dict[str, str],
) -> str:
    """A question about what the user has not said yet (who to, when, how much, or what)."""
    missing = " ".join(facts)
    said = next((t.text for t in reversed(history) if t.role == "user"), "")
    if said.rstrip().endswith("?") or _asks(said):
        kind = "more"  # the user already said what to do; ask what else matters
    elif len(missing.split()) > 14:
        kind = "what"  # a long detail answers more than one question
    elif _EMAIL.search(missing) or re.search(r"\b(?:to|with) [A-Z][a-z]+", missing):
        kind = "to"
    elif re.search(
        r"\b\d{1,2}(?::\d{2})?\s?(?:am|pm)?\b.*\b(?:on|at|by)\b|\b(?:Monday|Tuesday|"
        r"Wednesday|Thursday|Friday|Saturday|Sunday|tomorrow|today)\b",
        missing,
    ):
        kind = "when"
    elif _MONEY.search(missing):
        kind = "amount"
    else:
        kind = "what"
    return pick(rng, _CLARIFY[kind], slots)


def quoted(payload: AgentResponseInput) -> bool:
    """Whether the ask the agent met sits in a message the user pasted ('Here's the email I
    got from the admin:'), not in their own words: nobody asked the agent for a kinder
    version of it (auditors: a careful twin drafted the pasted note's message to Dana)."""
    ask = (payload.trigger_ask or "")[:40]
    for turn in payload.history:
        at = turn.text.find(ask) if turn.role == "user" and ask else -1
        if at > 0 and ":\n" in turn.text[:at]:
            return True
    return False


def policy_reason(policies: tuple[str, ...], ask: str, rng: random.Random) -> str:
    """The policy a declined ask is against: two or more words in common that few policies
    share (a payment approval is not against the fraud-referral rule for sharing 'claim'),
    else a plain reason."""
    said = [set(re.findall(r"[a-z]{4,}", p.lower())) for p in policies]
    common = {w for words in said for w in words if 2 * sum(w in s for s in said) > len(said)}
    asked = set(re.findall(r"[a-z]{4,}", ask.lower())) - common
    scored = [(len(asked & words), p) for words, p in zip(said, policies, strict=True)]
    best = max(scored, default=(0, ""))
    if best[0] < 2 and ask:
        return rng.choice(_PLAIN_REASONS)
    return rule_clause(best[1] or rng.choice(policies)) if policies else "risky steps need approval"


def rule_clause(rule: str) -> str:
    """A rule as a clause in a sentence: 'Refunds above …' -> 'refunds above …'; an acronym
    keeps its capitals ('SIU referrals …')."""
    text = clause(rule)
    return text if text[1:2].isupper() else text[:1].lower() + text[1:]


_PLAIN_REASONS = [
    "it could hurt people or systems outside this task",
    "it isn't part of what I'm set up to do here",
    "nobody with the authority to ask for it has asked",
]
