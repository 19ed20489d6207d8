"""Deterministic near-duplicate removal for the tool pool.

Imports overlap: the same API shows up under several public collections, and a renamed copy
with the same arguments adds nothing but skews sampling towards it. Two tools are duplicates if

- `same_name`: their names are equal once case and separators are ignored, or
- `similar_description`: they take exactly the same parameter names and their descriptions are
  near-identical (word-sequence similarity >= DESCRIPTION_SIMILARITY).

Tools are visited in a fixed order (existing pool first, then curated, simulated, imported, each
by name), so the same input always gives the same survivors and the same report.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from difflib import SequenceMatcher
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from pipeline.core.inputs.tool_pool import Tool, ToolSource

DESCRIPTION_SIMILARITY = 0.9
"""difflib ratio over the descriptions' word sequences. One changed word in a 15-word sentence
scores 0.93 and still counts as a copy; two changed words (0.87), or one in a short description,
do not, which keeps genuinely different operations that share their arguments."""

_SOURCE_RANK: dict[ToolSource, int] = {
    "curated": 0,
    "simulated": 1,
    "toolbench": 2,
    "toolalpaca": 2,
    "openai": 2,
    "openapi": 2,
}
"""Who wins a tie: hand-written tools over generated ones over imported ones."""

DedupeRule = Literal["same_name", "similar_description"]


class DedupeEntry(BaseModel):
    """One dropped tool and the kept tool it duplicates."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kept: str
    dropped: str
    dropped_original_name: str | None
    """Tells apart dropped tools whose (normalised) name equals the kept one's."""
    rule: DedupeRule
    similarity: float
    """1.0 for `same_name`; the description similarity, rounded to 4 places, otherwise."""


class DedupeResult(NamedTuple):
    kept: list[Tool]
    """The surviving candidates, in visiting order (existing tools are not repeated here)."""
    report: list[DedupeEntry]


def normalised_name(name: str) -> str:
    """`getWeather`, `get_weather` and `Get-Weather` all become `getweather`."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def _occurrences(words: list[str]) -> list[str]:
    """Words numbered by occurrence ('the#0', 'the#1'): a multiset as a set."""
    seen: Counter[str] = Counter()
    tokens = []
    for word in words:
        tokens.append(f"{word}#{seen[word]}")
        seen[word] += 1
    return tokens


def _parameter_names(tool: Tool) -> frozenset[str]:
    properties = tool.parameters.get("properties", {})
    return frozenset(properties) if isinstance(properties, dict) else frozenset()


def _order(tool: Tool) -> tuple[int, str, str]:
    # The full record breaks ties between same-named tools, so input order never matters.
    return (_SOURCE_RANK[tool.source], tool.name, tool.model_dump_json())


def _is_lookalike_pair(a: Tool, b: Tool) -> bool:
    """A deceptive lookalike copies its target on purpose; it is not a duplicate of it."""
    return a.lookalike_of == b.name or b.lookalike_of == a.name


class _Index:
    """Kept tools, looked up by normalised name and by rare description words.

    Comparing every pair of a large import is quadratic, so similar descriptions are found by
    prefix filtering: a ratio >= T between word lists of lengths a and b needs at least
    T*(a+b)/2 shared words, hence at least T*a/(2-T) of a's own. Ordering each list's words
    rarest first, two such lists must then share a word among their first a - that + 1 words,
    so only tools sharing one of those words (and the parameter names) are compared.
    """

    def __init__(self, frequency: Counter[str]) -> None:
        self.frequency = frequency
        self.by_name: dict[str, Tool] = {}
        self.kept: list[tuple[Tool, list[str]]] = []
        self.by_prefix: dict[tuple[frozenset[str], str], list[int]] = {}

    def _prefix_keys(self, tool: Tool, words: list[str]) -> list[tuple[frozenset[str], str]]:
        tokens = sorted(_occurrences(words), key=lambda token: (self.frequency[token], token))
        shared = math.ceil(
            DESCRIPTION_SIMILARITY * len(tokens) / (2 - DESCRIPTION_SIMILARITY) - 1e-9
        )
        parameters = _parameter_names(tool)
        return [(parameters, token) for token in tokens[: len(tokens) - shared + 1] or [""]]

    def add(self, tool: Tool, words: list[str]) -> None:
        self.by_name.setdefault(normalised_name(tool.name), tool)
        for key in self._prefix_keys(tool, words):
            self.by_prefix.setdefault(key, []).append(len(self.kept))
        self.kept.append((tool, words))

    def match(self, tool: Tool, words: list[str]) -> DedupeEntry | None:
        same = self.by_name.get(normalised_name(tool.name))
        if same is not None:
            return _entry(same, tool, "same_name", 1.0)
        candidates = sorted(
            {i for key in self._prefix_keys(tool, words) for i in self.by_prefix.get(key, [])}
        )
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(words)
        best: tuple[float, Tool] | None = None
        for kept, kept_words in (self.kept[i] for i in candidates):
            if _is_lookalike_pair(kept, tool):
                continue
            matcher.set_seq1(kept_words)
            if matcher.quick_ratio() < DESCRIPTION_SIMILARITY:
                continue
            ratio = matcher.ratio()
            if ratio >= DESCRIPTION_SIMILARITY and (best is None or ratio > best[0]):
                best = (ratio, kept)
        if best is None:
            return None
        return _entry(best[1], tool, "similar_description", round(best[0], 4))


def _entry(kept: Tool, dropped: Tool, rule: DedupeRule, similarity: float) -> DedupeEntry:
    return DedupeEntry(
        kept=kept.name,
        dropped=dropped.name,
        dropped_original_name=dropped.original_name,
        rule=rule,
        similarity=similarity,
    )


def dedupe(tools: Iterable[Tool], existing: Iterable[Tool] = ()) -> DedupeResult:
    """Drop candidates that duplicate an existing tool or an earlier candidate.

    `existing` tools (the pool being merged into) are never dropped and are not compared with
    each other: the pool's own consistency is `load_tool_pool`'s job.
    """
    ordered_existing = [(tool, _words(tool.description)) for tool in sorted(existing, key=_order)]
    candidates = [(tool, _words(tool.description)) for tool in sorted(tools, key=_order)]
    index = _Index(
        Counter(
            token for _, words in ordered_existing + candidates for token in _occurrences(words)
        )
    )
    for tool, words in ordered_existing:
        index.add(tool, words)
    kept: list[Tool] = []
    report: list[DedupeEntry] = []
    for tool, words in candidates:
        duplicate = index.match(tool, words)
        if duplicate is None:
            index.add(tool, words)
            kept.append(tool)
        else:
            report.append(duplicate)
    return DedupeResult(kept, report)
