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

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from pipeline.core.tools import Tool, ToolSource

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
    """Kept tools, looked up by normalised name and by parameter-name set."""

    def __init__(self) -> None:
        self.by_name: dict[str, Tool] = {}
        self.by_parameters: dict[frozenset[str], list[tuple[Tool, list[str]]]] = {}

    def add(self, tool: Tool) -> None:
        self.by_name.setdefault(normalised_name(tool.name), tool)
        group = self.by_parameters.setdefault(_parameter_names(tool), [])
        group.append((tool, _words(tool.description)))

    def match(self, tool: Tool) -> DedupeEntry | None:
        same = self.by_name.get(normalised_name(tool.name))
        if same is not None:
            return _entry(same, tool, "same_name", 1.0)
        words = _words(tool.description)
        best: tuple[float, Tool] | None = None
        for kept, kept_words in self.by_parameters.get(_parameter_names(tool), []):
            if _is_lookalike_pair(kept, tool):
                continue
            matcher = SequenceMatcher(None, kept_words, words, autojunk=False)
            if matcher.real_quick_ratio() < DESCRIPTION_SIMILARITY:
                continue
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
    index = _Index()
    for tool in sorted(existing, key=_order):
        index.add(tool)
    kept: list[Tool] = []
    report: list[DedupeEntry] = []
    for tool in sorted(tools, key=_order):
        duplicate = index.match(tool)
        if duplicate is None:
            index.add(tool)
            kept.append(tool)
        else:
            report.append(duplicate)
    return DedupeResult(kept, report)
