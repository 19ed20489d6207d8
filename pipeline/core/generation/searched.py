"""What a user types into a search box: a phrase they quoted, a name they gave, the topic
they asked to have explained, else the words of their ask that say what it is about."""

from __future__ import annotations

import re

from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.user_words import whole_words
from pipeline.core.inputs.tool_pool import Tool

CAPITALISED_RUN = re.compile(r"[A-Z][\w'-]+(?:\s+(?:&\s+)?[A-Z][\w'-]+)+")
_ASKING = re.compile(
    r"\b(help|could you|can you|would you|please|hi|hello|hey|thanks|thank you|i'd like|"
    r"i need|task for today|what i need|when you get a chance|so, here goes)\b",
    re.I,
)


def search_phrase(request: str) -> str | None:
    """What the user would type into a search box, in their own words: a quoted phrase, a
    name they gave, else the words of the first clause of the ask (not of the greeting)
    that say what it is about."""
    quoted = re.search(r"(?:^|(?<=[\s(:]))['\u2018\"]([^'\u2019\"\n]{3,60})['\u2019\"]", request)
    if quoted:
        return quoted.group(1)
    runs = [r for r in CAPITALISED_RUN.findall(request) if not _ASKING.search(r)]
    if runs:
        return str(runs[0])
    clauses = [c.strip() for c in re.split(r"[.;!?](?:\s|$)|,\s|:\s|\n", request) if c.strip()]
    asked = [c for c in clauses if len(c.split()) >= 3 and not _ASKING.search(c)]
    if not asked:
        return None
    sought = _SOUGHT.match(asked[0])  # 'search for any spreadsheet mentioning X' -> 'X'
    if sought:
        return whole_words(re.split(r"\s+(?:and|then|so|to)\s+", sought.group(1))[0], 40)
    return _keywords(asked[0]) or whole_words(asked[0], 40)


def _keywords(clause: str) -> str:
    """The words of a clause someone types into a search box: 'Someone is claiming our
    beans are moldy' is searched as 'beans moldy' (auditors found the sentence pasted)."""
    words = re.split(r"\s+[-—]\s+", clause)[0].split()
    kept = [
        w
        for i, w in enumerate(words)
        if w.lower().strip(",'") not in _UNSEARCHED
        and re.search(r"[A-Za-z]", w)  # '15' of 'every 15 minutes' says nothing searched
        # 'is claiming': the verb of a sentence, not what it is about
        and not (w.endswith("ing") and i and words[i - 1].lower() in ("is", "are", "was"))
    ]
    return " ".join(kept[:4])


_UNSEARCHED = frozenset(
    {"a", "an", "the", "my", "our", "your", "their", "his", "her", "its", "this", "that"}
    | {"these", "those", "me", "us", "we", "i", "you", "they", "them", "it", "someone"}
    | {"people", "anything", "everything", "something", "every", "all", "any", "each"}
    | {"is", "are", "was", "were", "be", "been", "do", "does", "did", "has", "have", "had"}
    | {"for", "of", "in", "on", "at", "to", "from", "with", "about", "into", "by", "and", "or"}
    | {"find", "search", "show", "give", "tell", "get", "look", "check", "see", "email"}
    | {"read", "download", "summarise", "summarize", "explain", "pull", "up", "took", "down"}
    | {"how", "many", "much", "what", "which", "when", "where", "who", "why", "keep", "going"}
)
"""Words no one types into a search box: pronouns, auxiliaries, prepositions, the asking."""


def topic_searched(tool: Tool, request: str) -> str | None:
    """What the user asks to have explained ('Could you explain the social tariff?'), where
    the tool searches what is written on a topic: a knowledge base is searched for that, not
    for the customer who asked (auditors found 'Margaret Halverson' typed into it)."""
    found = _TOPIC.search(request) if _GUIDES & set(tokens(tool.name)) else None
    return whole_words(found.group(1), 40) if found else None


_GUIDES = frozenset({"knowledge", "guidance", "faq", "kb", "policy", "policies", "articles"})
"""Words of a tool that searches what is written about a topic, not records about a person."""
_TOPIC = re.compile(
    r"\b(?:explain|tell me about|what does (?:our|the) (?:guidance|policy) say about"
    r"|guidance (?:on|for|about)|policy (?:on|for))\s+(?:the\s+|our\s+|a\s+|an\s+)?"
    r"([a-z][\w' -]{2,60}?)(?=\s*[?.!;,]|$)",
    re.I,
)
_SOUGHT = re.compile(
    r"(?:search|find|look\s+for|locate)\s+(?:for\s+|through\s+)?(?:(?:any|all|every|the|our)\s+)?"
    r"(?:[\w-]+\s+){1,2}?(?:mentioning|containing|about|referencing|that\s+mentions?|that\s+contains?)"
    r"\s+(?:(?:the|a|an|any|our)\s+)?(.{3,})",
    re.I,
)
"""A search asked for by what the records say: the user types the words they said."""
