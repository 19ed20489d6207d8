"""The audit tables: assignment, blind double review, refusals, append-only, release untouched."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from pipeline.core.audit import Answer, AuditStore, audit_db_path, open_audit, read_progress
from pipeline.core.model.errors import AtbenchError, InputError

from .scenario import SAFE, uid, unsafe


def _digests(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in folder.rglob("*")
        if p.is_file()
    }


def test_each_trajectory_gets_two_distinct_reviewers(store: AuditStore) -> None:
    ann = store.assign("ann", 100)
    bob = store.assign("bob", 100)
    assert ann == bob == store.scope()
    assert store.assign("cy", 100) == []  # every trajectory already has its two reviewers
    assert all(len(people) == 2 for people in store.assignments().values())


def test_open_assignments_come_back_before_new_ones(store: AuditStore) -> None:
    first = store.assign("ann", 2)
    store.add_reviews([(first[0], "ann", SAFE)], source="test", where=["form"])
    again = store.assign("ann", 2)
    assert again[0] == first[1]
    assert again[1] not in first


def test_a_second_review_by_the_same_person_is_refused(store: AuditStore) -> None:
    target = store.assign("ann")[0]
    store.add_reviews([(target, "ann", SAFE)], source="web", where=[target])
    with pytest.raises(InputError, match="has already reviewed") as err:
        store.add_reviews([(target, "ann", unsafe(0))], source="web", where=[target])
    assert (err.value.record, err.value.field) == (target, "reviewer")
    assert [r.answer for r in store.reviews()] == [SAFE]


def test_a_batch_with_one_bad_row_stores_nothing(store: AuditStore) -> None:
    given = store.assign("ann", 3)
    rows = [(u, "ann", SAFE) for u in given] + [("nope-0000-safe", "ann", SAFE)]
    with pytest.raises(InputError, match="unknown trajectory id 'nope-0000-safe'") as err:
        store.add_reviews(rows, source="sheet.csv", where=["line 2", "line 3", "line 4", "line 5"])
    assert err.value.record == "line 5"
    assert store.reviews() == []


def test_reviewing_what_was_not_assigned_is_refused(store: AuditStore) -> None:
    with pytest.raises(InputError, match="is not assigned to 'ann'"):
        store.add_reviews([(uid(0, "safe"), "ann", SAFE)], source="web", where=["form"])


def test_reviewers_cannot_adjudicate_their_own_trajectory(store: AuditStore) -> None:
    target = store.assign("ann")[0]
    store.add_reviews([(target, "ann", SAFE)], source="web", where=[target])
    with pytest.raises(InputError, match="cannot also adjudicate"):
        store.add_adjudication(target, "ann", SAFE, source="web", previous=SAFE)


def test_only_a_disagreement_can_be_adjudicated(store: AuditStore) -> None:
    target = uid(0, "safe")
    with pytest.raises(InputError, match=r"no disagreement to adjudicate.*has 0 review"):
        store.add_adjudication(target, "cy", SAFE, source="web", previous=SAFE)
    for person in ("ann", "bob"):
        store.assign(person, 100)
        store.add_reviews([(target, person, SAFE)], source="web", where=[target])
    with pytest.raises(InputError, match=r"has 2 review\(s\) that agree"):
        store.add_adjudication(target, "cy", unsafe(0), source="web", previous=SAFE)
    assert store.adjudications() == []


def test_adjudications_are_appended_and_the_latest_counts(store: AuditStore) -> None:
    target = uid(0, "unsafe")
    for person, answer in (("ann", SAFE), ("bob", unsafe(0))):
        store.assign(person, 100)
        store.add_reviews([(target, person, answer)], source="web", where=[target])
    assert read_progress(store).states[target].status == "disagreed"
    store.add_adjudication(target, "cy", SAFE, source="web", previous=unsafe(0))
    store.add_adjudication(target, "dee", unsafe(0), source="web", previous=SAFE)
    kept = store.adjudications()
    assert [(a.person, a.answer.verdict, a.previous.verdict) for a in kept] == [
        ("cy", "safe", "unsafe"),
        ("dee", "unsafe", "safe"),
    ]
    state = read_progress(store).states[target]
    assert state.status == "adjudicated"
    assert state.settled == unsafe(0)


def test_reviews_record_who_when_and_the_release_value(store: AuditStore) -> None:
    target = uid(1, "unsafe")
    store.assign("ann", 100)
    store.add_reviews(
        [(target, "ann", Answer(verdict="safe", comment="the agent refused"))],
        source="web",
        where=[target],
    )
    (review,) = store.reviews()
    assert (review.person, review.source, review.answer.comment) == (
        "ann",
        "web",
        "the agent refused",
    )
    assert review.previous == unsafe(1)
    assert review.created_at.tzinfo is not None


def test_the_release_is_never_modified(release_dir: Path, tmp_path: Path) -> None:
    before = _digests(release_dir)
    store = open_audit(release_dir, db=tmp_path / "audit.duckdb")
    target = store.assign("ann")[0]
    store.add_reviews([(target, "ann", SAFE)], source="web", where=[target])
    assert _digests(release_dir) == before
    assert audit_db_path(release_dir) == release_dir.parent / "r1.audit.duckdb"


def test_audit_tables_refuse_a_different_release(release_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    open_audit(release_dir, db=db)
    other = tmp_path / "r2"
    shutil.copytree(release_dir, other)
    manifest = json.loads((other / "manifest.json").read_text())
    (other / "manifest.json").write_text(json.dumps({**manifest, "version": 2}))
    with pytest.raises(AtbenchError, match="belongs to release version 1"):
        open_audit(other, db=db)


def test_the_scope_cannot_change_once_planned(release_dir: Path, tmp_path: Path) -> None:
    db = tmp_path / "audit.duckdb"
    store = open_audit(release_dir, db=db, sample=4, seed=1)
    assert len(store.scope()) == 4
    assert open_audit(release_dir, db=db, sample=4, seed=1).scope() == store.scope()
    with pytest.raises(AtbenchError, match="its scope cannot change"):
        open_audit(release_dir, db=db, sample=6, seed=1)


def test_tables_are_readable_while_no_request_is_running(store: AuditStore) -> None:
    store.assign("ann")
    # a second process (atbench audit stats) opens the file read-only between requests
    with duckdb.connect(str(store.path), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM assignments").fetchone() == (1,)
