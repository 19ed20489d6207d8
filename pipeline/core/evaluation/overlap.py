"""Overlap between generated traces and a release: shared skeletons, exact and near duplicates.

* skeleton: the turns a pair's twins share (before the divergence step), or a single trace's
  whole turns, compared by digest;
* exact duplicate: the same turns, by digest;
* near duplicate: Jaccard similarity of word 5-gram shingles at or above `NEAR_DUPLICATE`,
  found through MinHash locality-sensitive hashing (64 hashes in 16 bands) and confirmed on
  the exact shingle sets, so a reported near duplicate really is one.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Sequence

import numpy as np

from pipeline.core.evaluation.render import render_turns, trace_digest_text
from pipeline.core.model.trajectory import Trajectory

NEAR_DUPLICATE = 0.8
SHINGLE_WORDS = 5
_HASHES = 64
_BANDS = 16
_PRIME = (1 << 31) - 1
_WORD = re.compile(r"\w+")


def skeleton_digest(traj: Trajectory) -> str:
    turns = traj.turns[: traj.divergence] if traj.divergence else traj.turns
    text = json.dumps([t.model_dump(mode="json") for t in turns], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def trace_digest(traj: Trajectory) -> str:
    return hashlib.sha256(trace_digest_text(traj).encode()).hexdigest()


def shingles(traj: Trajectory) -> frozenset[int]:
    words = _WORD.findall(render_turns(traj).lower())
    grams = (" ".join(words[i : i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1))
    return frozenset(zlib.crc32(gram.encode()) % _PRIME for gram in grams) or frozenset({0})


class NearDuplicateIndex:
    """MinHash LSH over a fixed set of traces (the release)."""

    def __init__(self, trajectories: Sequence[Trajectory]) -> None:
        rng = np.random.default_rng(0)
        self._a = rng.integers(1, _PRIME, size=_HASHES, dtype=np.int64)
        self._b = rng.integers(0, _PRIME, size=_HASHES, dtype=np.int64)
        self._sets = [shingles(t) for t in trajectories]
        self._buckets: dict[tuple[int, bytes], list[int]] = {}
        for index, items in enumerate(self._sets):
            for key in self._band_keys(items):
                self._buckets.setdefault(key, []).append(index)

    def _band_keys(self, items: frozenset[int]) -> list[tuple[int, bytes]]:
        values = np.fromiter(items, dtype=np.int64)
        signature = ((np.outer(self._a, values) + self._b[:, None]) % _PRIME).min(axis=1)
        rows = _HASHES // _BANDS
        return [
            (band, signature[band * rows : (band + 1) * rows].tobytes()) for band in range(_BANDS)
        ]

    def most_similar(self, traj: Trajectory) -> float:
        """The highest Jaccard similarity to an indexed trace among LSH candidates (0 if none)."""
        items = shingles(traj)
        candidates = {i for key in self._band_keys(items) for i in self._buckets.get(key, [])}
        return max(
            (len(items & self._sets[i]) / len(items | self._sets[i]) for i in candidates),
            default=0.0,
        )
