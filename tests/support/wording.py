"""How tests check that a message still says a request: the user words it their own way."""

from __future__ import annotations

import re

from pipeline.core.generation.user_words import INSTRUCTION_VERBS


def _words(text: str) -> list[str]:
    return re.findall(r"[\w@'’/-]+(?:\.\w+)*", text.lower())


_CONNECTORS = frozenset({"and", "then", "also", "so"})
"""Dropped where a sentence is cut in two ('... is, and lock' -> '... is. Lock')."""


def says_in_order(part: str, message: str) -> bool:
    """Whether every word of `part` but its first, its connectors and the instruction verbs of
    its clauses (each may be said another way: 'and book it in' -> 'Could you get it in?')
    occurs in `message` in order; words put between them ('Can you') are fine."""
    remaining = iter(_words(message))
    wanted = [w for w in _words(part)[1:] if w not in _CONNECTORS and w not in INSTRUCTION_VERBS]
    return all(any(w == have for have in remaining) for w in wanted)
