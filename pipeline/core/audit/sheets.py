"""Offline review sheets: export a reviewer's assignments as CSV or JSONL, import them filled in.

A sheet row carries read-only columns (id, reviewer, the release's answer, the trace as text)
and the answer columns the reviewer fills in. A keyed checksum over the read-only columns
catches a row whose id, reviewer or release values were edited or shifted (a spreadsheet sort
of one column). Import validates every row exactly as the web form does and stores all rows
or none. Rows left blank are skipped and counted.

CSV cells that a spreadsheet would run as a formula (starting with = + - @ or a control
character) are written with a leading apostrophe: trace text is hostile by design.
"""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.core.audit.answers import Answer, parse_answer, release_answer
from pipeline.core.audit.store import AuditStore, check_name
from pipeline.core.inputs.files import write_text_atomic
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.actions import format_action
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES
from pipeline.core.model.trajectory import AgentTurn, Trajectory

READ_ONLY = ("id", "public_id", "reviewer", *(f"release_{k}" for k in ("verdict", *AXES)))
ANSWER = ("verdict", *AXES, "comment")
COLUMNS = (*READ_ONLY, *ANSWER, "trace", "checksum")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass(frozen=True)
class ImportResult:
    stored: int
    blank: int


def export_sheet(store: AuditStore, reviewer: str, count: int, out: Path) -> int:
    """Assign up to `count` trajectories to `reviewer` and write them as a sheet (by suffix)."""
    reviewer = check_name(reviewer)
    rows = [_row(store, uid, reviewer) for uid in store.assign(reviewer, count)]
    if out.suffix == ".jsonl":
        write_text_atomic(out, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    elif out.suffix == ".csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows({k: _inert(str(v)) for k, v in r.items()} for r in rows)
        write_text_atomic(out, buffer.getvalue())
    else:
        raise InputError("a review sheet must end in .csv or .jsonl", file=out)
    return len(rows)


def import_sheet(store: AuditStore, sheet: Path, taxonomy: Taxonomy) -> ImportResult:
    """Validate every row, then store the filled-in ones in one transaction."""
    source = str(sheet)
    reviews: list[tuple[str, str, Answer]] = []
    where: list[str] = []
    blank = 0
    for record, raw in _read_rows(sheet):
        row = {k: _plain(v) for k, v in raw.items()}
        missing = [c for c in COLUMNS if c not in row]
        if missing:
            raise InputError("column is missing", file=source, record=record, field=missing[0])
        if not hmac.compare_digest(row["checksum"], _checksum(store, row)):
            changed = _changed_column(store, row)
            raise InputError(
                "read-only column was edited; the row no longer matches what was exported",
                file=source,
                record=record,
                field=changed,
            )
        if not any(row[c].strip() for c in ANSWER):
            blank += 1
            continue
        answer = parse_answer(row, taxonomy, source=source, record=record)
        reviews.append((row["id"], row["reviewer"], answer))
        where.append(record)
    store.add_reviews(reviews, source=source, where=where)
    return ImportResult(stored=len(reviews), blank=blank)


def render_trace(traj: Trajectory) -> str:
    """The trace as plain text, turn by turn, for reading outside the web app."""
    lines = [f"[TOOLS]: {', '.join(t.name for t in traj.tools)}"]
    for e, episode in enumerate(traj.episodes):
        lines.append(f"--- episode {e} ({episode.kind}) ---")
        for turn in episode.turns:
            if isinstance(turn, AgentTurn):
                lines += [f"[THOUGHT]: {turn.thought}", f"[ACTION]: {format_action(turn.action)}"]
            else:
                lines.append(f"[{turn.role.upper()}]: {turn.content}")
    return "\n".join(lines)


def _row(store: AuditStore, uid: str, reviewer: str) -> dict[str, Any]:
    traj = store.release.by_uid[uid]
    current = release_answer(traj)
    labels = current.labels
    row: dict[str, Any] = {
        "id": uid,
        "public_id": str(store.release.public_id[uid]),
        "reviewer": reviewer,
        "release_verdict": current.verdict,
        **{f"release_{axis}": getattr(labels, axis) if labels else "" for axis in AXES},
        **dict.fromkeys(ANSWER, ""),
        "trace": render_trace(traj),
    }
    row["checksum"] = _checksum(store, row)
    return row


def _checksum(store: AuditStore, row: dict[str, Any]) -> str:
    message = json.dumps([str(row[c]) for c in READ_ONLY]).encode()
    return hmac.new(store.sheet_key(), message, hashlib.sha256).hexdigest()[:32]


def _changed_column(store: AuditStore, row: dict[str, str]) -> str:
    """Name the read-only column that differs from what was exported, else the checksum."""
    traj = store.release.by_uid.get(row["id"])
    if traj is None:
        return "id"
    expected = _row(store, traj.id, row["reviewer"])
    changed = next((c for c in READ_ONLY if str(expected[c]) != row[c]), None)
    if changed is None and row["reviewer"] not in store.assignments().get(traj.id, []):
        return "reviewer"
    return changed or "checksum"


def _read_rows(sheet: Path) -> Iterable[tuple[str, dict[str, Any]]]:
    try:
        text = sheet.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot read sheet: {err.strerror}", file=sheet) from None
    if sheet.suffix == ".csv":
        for n, row in enumerate(csv.DictReader(io.StringIO(text)), start=2):
            yield f"line {n}", {k: v for k, v in row.items() if k is not None}
    elif sheet.suffix == ".jsonl":
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise InputError(
                    f"invalid JSON: {err.msg}", file=sheet, record=f"line {n}"
                ) from None
            if not isinstance(row, dict):
                raise InputError("a row must be a JSON object", file=sheet, record=f"line {n}")
            yield f"line {n}", row
    else:
        raise InputError("a review sheet must end in .csv or .jsonl", file=sheet)


def _inert(cell: str) -> str:
    return "'" + cell if cell.startswith(_FORMULA_START) else cell


def _plain(value: Any) -> str:
    text = "" if value is None else str(value)
    return text[1:] if text.startswith("'") and text[1:].startswith(_FORMULA_START) else text
