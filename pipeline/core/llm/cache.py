"""Content-addressed cache of validated answers, safe for many writer processes and crashes.

Layout: `<cache_dir>/<namespace>/answers-<pid>-<random>.jsonl`, one line per answer:
`{"key": ..., "answer": ..., "meta": ...}`. Opening a namespace reads every segment into
memory, so a lookup is a dict access; each process appends to its own segment (see
`segments.py`). Only answers that passed validation are written, so a rerun can trust every
hit, and a run killed with kill -9 loses at most the calls that were in flight.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from pipeline.core.llm.segments import SegmentWriter, read_lines, segment_files

_PREFIX = "answers"


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
    variables: dict[str, Any] | None = None,
    item_id: str = "",
) -> str:
    """sha256 of everything that changes the answer.

    `variables` is given for backends that read them directly (procedural) instead of the
    rendered messages; for real models the messages already say all they see. `item_id`
    keeps identical prompts of different items apart, so each item keeps its own answer and
    an unchanged rerun gets back exactly what the first run used.
    """
    material = {
        "fingerprint": fingerprint,
        "messages": messages,
        "output_schema": output_schema,
        "sample_index": sample_index,
        "template_sha256": template_sha256,
        "variables": variables,
        "item": item_id,
    }
    return hashlib.sha256(canonical_json(material).encode("utf-8")).hexdigest()


class ResponseCache:
    """Answers by key for one namespace (a domain), loaded at open, appended as they come."""

    def __init__(self, cache_dir: Path, namespace: str) -> None:
        self.folder = cache_dir / namespace
        self._answers: dict[str, Any] = {}
        for path in segment_files(self.folder, _PREFIX):
            for record in read_lines(path):
                if "key" in record and "answer" in record:
                    self._answers[record["key"]] = record["answer"]
        self._writer = SegmentWriter(self.folder, _PREFIX)

    def __len__(self) -> int:
        return len(self._answers)

    def __contains__(self, key: str) -> bool:
        return key in self._answers

    def get(self, key: str) -> Any | None:
        return self._answers.get(key)

    def put(self, key: str, answer: Any, meta: dict[str, Any]) -> None:
        """Remember a validated answer, durable against kill -9 once this returns."""
        self._answers[key] = answer
        # Keep the answer's key order: later prompts quote it, so a re-sorted answer read back
        # on a rerun would change those prompts and miss the cache.
        line = {"key": key, "answer": answer, "meta": meta}
        self._writer.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False))

    def close(self) -> None:
        self._writer.close()
