"""Process-independent randomness: every random choice of a build derives from named parts.

Python's `hash()` is salted per process, so seeds are sha256 digests of the parts instead;
the same parts give the same sequence in every process, which is what makes a domain
regenerate identically on its own.
"""

from __future__ import annotations

import hashlib
import random


def stable_int(*parts: object) -> int:
    """A 64-bit integer determined by `parts` alone."""
    digest = hashlib.sha256("/".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def seeded_rng(*parts: object) -> random.Random:
    """A generator seeded by `parts`, e.g. (release seed, domain, slot)."""
    return random.Random(stable_int(*parts))
