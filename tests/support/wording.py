"""How tests check that a message still says a request: the user words it their own way."""

from __future__ import annotations

import re


def _words(text: str) -> list[str]:
    return re.findall(r"[\w@'’/-]+(?:\.\w+)*", text.lower())


def says_in_order(part: str, message: str) -> bool:
    """Whether every word of `part` but its first (a leading verb said another way) occurs in
    `message` in order; words put between them ('And', 'Can you') are fine."""
    remaining = iter(_words(message))
    return all(any(w == have for have in remaining) for w in _words(part)[1:])
