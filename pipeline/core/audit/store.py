"""Append-only audit tables in a DuckDB file beside the release, never inside it.

    <parent>/<release>.audit.duckdb
        audit_meta    which release this audit belongs to (version, database sha256)
        scope         the trajectories under audit, in queue order (all, or a sample)
        assignments   who was given which trajectory, and when
        reviews       one row per (trajectory, reviewer): answer, comment, the release's value
        adjudications a third person's answer for a disagreement; the latest one counts

Rows are only ever inserted. Each write opens its own connection and closes it, so another
process (`atbench audit stats`) can read between requests; DuckDB allows one writer per file.
A batch (a whole imported sheet) is checked completely, then inserted in one transaction.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from pipeline.core.audit.answers import Answer, release_answer
from pipeline.core.audit.source import AuditedRelease
from pipeline.core.model.errors import AtbenchError, InputError
from pipeline.core.model.labels import AXES, Labels

REVIEWS_PER_TRACE = 2
NAME_LIMIT = 64

_ANSWER_COLUMNS = """
    verdict VARCHAR NOT NULL,
    risk_source VARCHAR,
    failure_mode VARCHAR,
    real_world_harm VARCHAR,
    comment VARCHAR NOT NULL,
    previous_verdict VARCHAR NOT NULL,
    previous_risk_source VARCHAR,
    previous_failure_mode VARCHAR,
    previous_real_world_harm VARCHAR"""

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS audit_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
CREATE TABLE IF NOT EXISTS scope (
    uid VARCHAR PRIMARY KEY, position INTEGER NOT NULL, added_at TIMESTAMPTZ NOT NULL,
    sample VARCHAR NOT NULL
);
CREATE TABLE IF NOT EXISTS assignments (
    uid VARCHAR NOT NULL, reviewer VARCHAR NOT NULL, assigned_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (uid, reviewer)
);
CREATE SEQUENCE IF NOT EXISTS answer_seq;
CREATE TABLE IF NOT EXISTS reviews (
    seq BIGINT PRIMARY KEY DEFAULT nextval('answer_seq'), uid VARCHAR NOT NULL,
    reviewer VARCHAR NOT NULL, created_at TIMESTAMPTZ NOT NULL, source VARCHAR NOT NULL,
    {_ANSWER_COLUMNS},
    UNIQUE (uid, reviewer)
);
CREATE TABLE IF NOT EXISTS adjudications (
    seq BIGINT PRIMARY KEY DEFAULT nextval('answer_seq'), uid VARCHAR NOT NULL,
    adjudicator VARCHAR NOT NULL, created_at TIMESTAMPTZ NOT NULL, source VARCHAR NOT NULL,
    {_ANSWER_COLUMNS}
);
"""


def audit_db_path(release_dir: Path) -> Path:
    """Where a release's audit lives: a sibling file, so the release stays byte for byte."""
    return release_dir.parent / f"{release_dir.name}.audit.duckdb"


@dataclass(frozen=True)
class Recorded:
    """One stored review or adjudication."""

    uid: str
    person: str
    created_at: datetime
    source: str
    answer: Answer
    previous: Answer


def check_name(name: str, *, field: str = "reviewer", source: str | None = None) -> str:
    """A person's display name: trimmed, 1-64 printable characters."""
    cleaned = name.strip()
    if not cleaned or len(cleaned) > NAME_LIMIT or not cleaned.isprintable():
        raise InputError(
            f"a name needs 1 to {NAME_LIMIT} printable characters, got {name!r}",
            file=source,
            field=field,
        )
    return cleaned


@dataclass(frozen=True)
class Snapshot:
    """The audit tables at one moment."""

    scope: list[str]
    assigned: dict[str, list[str]]
    """uid -> reviewers given it, in the order they were assigned."""
    reviews: list[Recorded]
    adjudications: list[Recorded]


class AuditStore:
    """The audit tables of one release; safe to share between the server's worker threads."""

    def __init__(self, path: Path, release: AuditedRelease) -> None:
        self.path = path
        self.release = release
        self._lock = threading.Lock()
        binding = {"release_version": str(release.version), "release_db_sha256": release.db_sha256}
        with self._connect() as con:
            con.execute(_SCHEMA)
            stored = dict(con.execute("SELECT key, value FROM audit_meta").fetchall())
            if not stored:
                stored = {**binding, "sheet_key": secrets.token_hex(32)}
                con.executemany("INSERT INTO audit_meta VALUES (?, ?)", list(stored.items()))
            elif {k: stored.get(k) for k in binding} != binding:
                raise AtbenchError(
                    f"{path} belongs to release version {stored.get('release_version')} "
                    f"(database sha256 {stored.get('release_db_sha256', '?')[:12]}), not to "
                    f"version {release.version} at {release.path}; audit that release, or "
                    "move this file away to start a new audit"
                )

        self._sheet_key = bytes.fromhex(stored["sheet_key"])

    def sheet_key(self) -> bytes:
        """The secret that signs the read-only columns of exported review sheets."""
        return self._sheet_key

    @contextmanager
    def _connect(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with duckdb.connect(str(self.path)) as con:
            yield con

    # -- scope and assignment -------------------------------------------------------------

    def plan(self, uids: Sequence[str], sample: str) -> list[str]:
        """Fix the trajectories under audit once; asking again for the same set is a no-op."""
        unknown = [uid for uid in uids if uid not in self.release.by_uid]
        if unknown:
            raise InputError(f"unknown trajectory id {unknown[0]!r}", field="scope")
        with self._lock, self._connect() as con:
            existing = _column(con, "SELECT uid FROM scope ORDER BY position")
            if existing and existing != list(uids):
                stored = con.execute("SELECT any_value(sample) FROM scope").fetchone()
                raise AtbenchError(
                    f"this audit already covers {len(existing)} trajectories "
                    f"({stored[0] if stored else '?'}); its scope cannot change"
                )
            if not existing:
                now = datetime.now(UTC)
                con.executemany(
                    "INSERT INTO scope VALUES (?, ?, ?, ?)",
                    [(uid, i, now, sample) for i, uid in enumerate(uids)],
                )
        return list(uids)

    def snapshot(self) -> Snapshot:
        """Every audit table, read through one connection (opening one costs milliseconds)."""
        with self._connect() as con:
            assigned: dict[str, list[str]] = {}
            for uid, reviewer in con.execute(
                "SELECT uid, reviewer FROM assignments ORDER BY assigned_at, reviewer"
            ).fetchall():
                assigned.setdefault(uid, []).append(reviewer)
            return Snapshot(
                scope=_column(con, "SELECT uid FROM scope ORDER BY position"),
                assigned=assigned,
                reviews=_recorded(con, "reviews", "reviewer"),
                adjudications=_recorded(con, "adjudications", "adjudicator"),
            )

    def scope(self) -> list[str]:
        return self.snapshot().scope

    def assignments(self) -> dict[str, list[str]]:
        """uid -> reviewers given it, in the order they were assigned."""
        return self.snapshot().assigned

    def reviews(self) -> list[Recorded]:
        return self.snapshot().reviews

    def adjudications(self) -> list[Recorded]:
        return self.snapshot().adjudications

    def assign(self, reviewer: str, count: int = 1) -> list[str]:
        """Give `reviewer` up to `count` more trajectories that have a free review slot.

        A reviewer never gets the same trajectory twice, and no trajectory gets more than
        two reviewers; open assignments (given but not reviewed) are returned first.
        """
        reviewer = check_name(reviewer)
        with self._lock, self._connect() as con:
            assigned: dict[str, set[str]] = {}
            for uid, person in con.execute("SELECT uid, reviewer FROM assignments").fetchall():
                assigned.setdefault(uid, set()).add(person)
            done = set(_column(con, "SELECT uid FROM reviews WHERE reviewer = ?", [reviewer]))
            scope = _column(con, "SELECT uid FROM scope ORDER BY position")
            open_ = [u for u in scope if reviewer in assigned.get(u, set()) and u not in done]
            fresh = [
                u
                for u in scope
                if reviewer not in assigned.get(u, set())
                and len(assigned.get(u, set())) < REVIEWS_PER_TRACE
            ][: max(0, count - len(open_))]
            now = datetime.now(UTC)
            if fresh:
                con.executemany(
                    "INSERT INTO assignments VALUES (?, ?, ?)", [(u, reviewer, now) for u in fresh]
                )
        return (open_ + fresh)[:count] if count else []

    # -- answers --------------------------------------------------------------------------

    def add_reviews(
        self, reviews: Sequence[tuple[str, str, Answer]], *, source: str, where: Sequence[str]
    ) -> None:
        """Store (uid, reviewer, answer) rows all together or not at all.

        `where` names each row for error messages (a sheet line, or the web form). Refused:
        unknown ids, a trajectory not assigned to that reviewer, a second review by the
        same person of the same trajectory (stored already, or twice in this batch).
        """
        with self._lock, self._connect() as con:
            assigned = set(con.execute("SELECT uid, reviewer FROM assignments").fetchall())
            seen = set(con.execute("SELECT uid, reviewer FROM reviews").fetchall())
            rows = []
            now = datetime.now(UTC)
            for (uid, reviewer, answer), record in zip(reviews, where, strict=True):
                if uid not in self.release.by_uid:
                    raise InputError(
                        f"unknown trajectory id {uid!r}", file=source, record=record, field="id"
                    )
                if (uid, reviewer) in seen:
                    raise InputError(
                        f"{reviewer!r} has already reviewed {uid!r}; a second review by the "
                        "same person is not allowed",
                        file=source,
                        record=record,
                        field="reviewer",
                    )
                if (uid, reviewer) not in assigned:
                    raise InputError(
                        f"{uid!r} is not assigned to {reviewer!r}",
                        file=source,
                        record=record,
                        field="reviewer",
                    )
                seen.add((uid, reviewer))
                previous = release_answer(self.release.by_uid[uid])
                rows.append((uid, reviewer, now, source, *_flat(answer), *_flat(previous)[:4]))
            if not rows:
                return
            con.begin()
            con.executemany(
                "INSERT INTO reviews (uid, reviewer, created_at, source, verdict, risk_source, "
                "failure_mode, real_world_harm, comment, previous_verdict, previous_risk_source,"
                " previous_failure_mode, previous_real_world_harm) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows,
            )
            con.commit()

    def add_adjudication(
        self, uid: str, adjudicator: str, answer: Answer, *, source: str, previous: Answer
    ) -> None:
        """Store a third person's answer to a disagreement; `previous` is what counted
        before it (the release's answer, or an earlier adjudication)."""
        with self._lock, self._connect() as con:
            reviews = [r for r in _recorded(con, "reviews", "reviewer") if r.uid == uid]
            if adjudicator in {r.person for r in reviews}:
                raise InputError(
                    f"{adjudicator!r} reviewed {uid!r} and cannot also adjudicate it",
                    file=source,
                    record=uid,
                    field="adjudicator",
                )
            first_two = reviews[:REVIEWS_PER_TRACE]
            if len(first_two) < REVIEWS_PER_TRACE or first_two[0].answer.same_judgement(
                first_two[1].answer
            ):
                raise InputError(
                    f"{uid!r} has no disagreement to adjudicate: it needs two reviews that "
                    f"differ, and has {len(reviews)} review(s)"
                    + (" that agree" if len(first_two) == REVIEWS_PER_TRACE else ""),
                    file=source,
                    record=uid,
                    field="adjudicator",
                )
            con.execute(
                "INSERT INTO adjudications (uid, adjudicator, created_at, source, verdict, "
                "risk_source, failure_mode, real_world_harm, comment, previous_verdict, "
                "previous_risk_source, previous_failure_mode, previous_real_world_harm) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [uid, adjudicator, datetime.now(UTC), source, *_flat(answer), *_flat(previous)[:4]],
            )


def _column(con: duckdb.DuckDBPyConnection, sql: str, params: Sequence[Any] = ()) -> list[str]:
    return [str(value) for (value,) in con.execute(sql, list(params)).fetchall()]


def _recorded(con: duckdb.DuckDBPyConnection, table: str, person: str) -> list[Recorded]:
    rows = con.execute(
        f"SELECT uid, {person}, created_at, source, verdict, risk_source, failure_mode, "
        "real_world_harm, comment, previous_verdict, previous_risk_source, "
        f"previous_failure_mode, previous_real_world_harm FROM {table} ORDER BY seq"
    ).fetchall()
    return [
        Recorded(
            uid=row[0],
            person=row[1],
            created_at=row[2],
            source=row[3],
            answer=_answer(row[4:8], row[8]),
            previous=_answer(row[9:13], ""),
        )
        for row in rows
    ]


def _flat(answer: Answer) -> tuple[Any, ...]:
    labels = answer.labels
    leaves = [getattr(labels, axis) if labels else None for axis in AXES]
    return (answer.verdict, *leaves, answer.comment)


def _answer(values: Sequence[Any], comment: str) -> Answer:
    verdict, *leaves = values
    # an imported release may hold unsafe rows without labels; they read back as such
    labels = Labels(**dict(zip(AXES, leaves, strict=True))) if all(leaves) else None
    return Answer(verdict=verdict, labels=labels, comment=comment)
