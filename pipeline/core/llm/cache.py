"""Content-addressed cache of validated answers, safe for many writer processes and crashes.

Layout: `<cache_dir>/<namespace>/answers-<pid>-<random>.jsonl`, one line per answer:
`{"key": ..., "answer": ..., "meta": ..., "sha256": ...}`. Opening a namespace reads every
segment into memory, so a lookup is a dict access; each process appends to its own segment (see
`segments.py`). Only answers that passed validation are written, so a rerun can trust every
intact hit, and a run killed with kill -9 loses at most the calls that were in flight.

A key's answer never changes once written: the first intact line for a key wins, and a line
whose checksum does not match (damaged, or edited by hand) is reported and never used, so its
request is asked again. Processes that share a namespace take `claim(key)` before asking, a
per-key file lock after which they re-read the other writers' segments, so two of them never
pay for (or disagree about) one key.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import logging
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from pipeline.core.llm.segments import SegmentReader, SegmentWriter

logger = logging.getLogger(__name__)

_PREFIX = "answers"
_LOCKS = "locks"
_LOCK_POLL_S = 0.02


def canonical_json(value: Any) -> str:
    """One spelling per value (sorted keys, no spaces), so equal content hashes equally."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cache_key(
    *,
    fingerprint: dict[str, Any],
    messages: list[dict[str, str]],
    output_schema: dict[str, Any],
    sample_index: int,
    template_sha256: str,
    item_id: str,
    variables: dict[str, Any] | None = None,
) -> str:
    """sha256 of everything that changes the answer, and of the item that asked.

    Two items asking the same prompt each keep their own answer (a sampling model, or the
    procedural backend seeding by item, may answer them differently), so which answer an item
    gets never depends on which of them happened to finish first. `variables` is given for
    backends that read them directly (procedural) instead of the rendered messages; for real
    models the messages already say all they see.
    """
    material = {
        "fingerprint": fingerprint,
        "item_id": item_id,
        "messages": messages,
        "output_schema": output_schema,
        "sample_index": sample_index,
        "template_sha256": template_sha256,
        "variables": variables,
    }
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()


def entry_checksum(key: str, answer: Any) -> str:
    return hashlib.sha256(canonical_json([key, answer]).encode("utf-8")).hexdigest()


class ResponseCache:
    """Answers by key for one namespace (a domain), loaded at open, appended as they come."""

    def __init__(self, cache_dir: Path, namespace: str) -> None:
        self.folder = cache_dir / namespace
        self._answers: dict[str, Any] = {}
        self.damaged = 0
        """Lines found with a missing or wrong checksum: never used, their requests re-asked."""
        self._reader = SegmentReader(self.folder, _PREFIX)
        self._writer = SegmentWriter(self.folder, _PREFIX)
        self.refresh()

    def __len__(self) -> int:
        return len(self._answers)

    def __contains__(self, key: str) -> bool:
        return key in self._answers

    def get(self, key: str) -> Any | None:
        return self._answers.get(key)

    def refresh(self) -> None:
        """Read what other writers appended since the last read; first intact answer wins."""
        damaged: dict[Path, int] = {}
        for path, record in self._reader.new_records(skip=self._writer.path):
            key, answer = record.get("key"), record.get("answer")
            if not isinstance(key, str) or record.get("sha256") != entry_checksum(key, answer):
                damaged[path] = damaged.get(path, 0) + 1
                continue
            self._answers.setdefault(key, answer)
        for path, count in damaged.items():
            logger.warning(
                "ignoring %d cache line(s) in %s whose checksum does not match (damaged, edited "
                "or from an older version); their requests will be asked again",
                count,
                path,
            )
        self.damaged += sum(damaged.values())

    @asynccontextmanager
    async def claim(self, key: str) -> AsyncIterator[None]:
        """Hold `key` against other processes sharing this namespace, then re-read the cache.

        A process that waited finds the holder's answer with `get`. The lock file is removed
        once the answer is in the cache: anyone still waiting on it finds the answer, anyone
        later creates a fresh lock and finds it too.
        """
        locks = self.folder / _LOCKS
        locks.mkdir(parents=True, exist_ok=True)
        lock_path = locks / f"{key}.lock"
        fd = os.open(lock_path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    await asyncio.sleep(_LOCK_POLL_S)
            self.refresh()
            yield
            if key in self._answers:
                lock_path.unlink(missing_ok=True)
        finally:
            os.close(fd)

    def put(self, key: str, answer: Any, meta: dict[str, Any]) -> None:
        """Remember a validated answer, durable against kill -9 once this returns.

        A key already answered keeps its answer: the first one written is the one every
        reader uses.
        """
        if key in self._answers:
            return
        self._answers[key] = answer
        # Keep the answer's key order: later prompts quote it, so a re-sorted answer read back
        # on a rerun would change those prompts and miss the cache.
        line = {"key": key, "answer": answer, "meta": meta, "sha256": entry_checksum(key, answer)}
        self._writer.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False))

    def close(self) -> None:
        self._writer.close()
