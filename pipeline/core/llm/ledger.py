"""Ledger of LLM calls: one JSONL line per `ask`, and the sums that Dagster metadata and
`atbench cost` show.

Each process appends to its own `calls-<pid>-<random>.jsonl` in the ledger folder (see
`segments.py`), so parallel steps and distributed workers never interleave lines.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from pipeline.core.llm.segments import SegmentWriter, read_lines, segment_files

_PREFIX = "calls"

logger = logging.getLogger(__name__)


class LedgerEntry(BaseModel):
    """One `ask`: who asked, what it cost, how it ended. Renaming a field means a version bump."""

    model_config = ConfigDict(frozen=True)

    schema_version: Literal[1] = 1
    ts: float
    """Unix time the answer (or failure) was settled."""
    stage: str
    domain: str
    role: str
    item_id: str
    model: str
    backend: str
    cached: bool
    """True when the answer came from the cache: no call, zero cost."""
    attempts: int
    """Backend calls made, including retries and re-asks; 0 for a cache hit."""
    prompt_tokens: int
    completion_tokens: int
    tokens_estimated: bool
    """True when tokens were estimated (chars/4) because the backend does not count them."""
    latency_s: float
    cost_usd: float
    status: Literal["ok", "failed", "invalid"]
    error: str | None = None


class Ledger:
    """Appends entries to this process's segment in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._writer = SegmentWriter(folder, _PREFIX)

    def record(self, entry: LedgerEntry) -> None:
        self._writer.write(entry.model_dump_json())

    def close(self) -> None:
        self._writer.close()


def read_ledger(paths: Iterable[Path]) -> list[LedgerEntry]:
    """Entries from ledger folders and/or segment files; torn or foreign lines are skipped
    with a warning naming the file (see `segments.read_lines`)."""
    files: list[Path] = []
    for path in paths:
        files.extend(segment_files(path, _PREFIX) if path.is_dir() else [path])
    entries = []
    for file in files:
        foreign = 0
        for record in read_lines(file):
            try:
                entries.append(LedgerEntry.model_validate(record))
            except ValidationError:
                foreign += 1
        if foreign:
            # Reported, not silently dropped: the totals read from this file miss these calls.
            logger.warning(
                "skipping %d ledger line(s) in %s that are not ledger entries", foreign, file
            )
    return entries


def _totals(entries: list[LedgerEntry]) -> dict[str, Any]:
    latencies = sorted(e.latency_s for e in entries if not e.cached)
    return {
        "calls": len(entries),
        "cache_hits": sum(e.cached for e in entries),
        "ok": sum(e.status == "ok" for e in entries),
        "failed": sum(e.status == "failed" for e in entries),
        "invalid": sum(e.status == "invalid" for e in entries),
        "attempts": sum(e.attempts for e in entries),
        "prompt_tokens": sum(e.prompt_tokens for e in entries),
        "completion_tokens": sum(e.completion_tokens for e in entries),
        "tokens_estimated": any(e.tokens_estimated for e in entries),
        "latency_s_total": round(sum(latencies), 6),
        "latency_s_p50": latencies[len(latencies) // 2] if latencies else 0.0,
        "latency_s_max": latencies[-1] if latencies else 0.0,
        "cost_usd": round(sum(e.cost_usd for e in entries), 6),
    }


def summarise_ledger(paths: Iterable[Path]) -> dict[str, Any]:
    """Totals, and the same totals per role, per stage and per domain.

    Latency figures cover calls that reached a backend (cache hits are excluded).
    """
    entries = read_ledger(paths)
    summary = _totals(entries)
    for field in ("role", "stage", "domain"):
        groups: dict[str, list[LedgerEntry]] = {}
        for entry in entries:
            groups.setdefault(getattr(entry, field), []).append(entry)
        summary[f"by_{field}"] = {name: _totals(group) for name, group in sorted(groups.items())}
    return summary
