"""`apply_audit`: the new version's labels equal the settled answers; the report's counts
equal the hand-computed ones of `scenario.py`, kappa included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from pipeline.core.audit import AuditStore, apply_audit, open_audit, release_answer
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import AtbenchError
from pipeline.core.release.reader import load_rejections
from pipeline.core.release.store import load_trajectories

from .scenario import EXPECTED_CHANGES, REVIEWS, adjudicate_everything, review_everything


@pytest.fixture(scope="module")
def applied(
    release_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[AuditStore, Path, dict[str, Any]]:
    """The whole scenario reviewed, adjudicated and applied once for this module."""
    root = tmp_path_factory.mktemp("applied")
    store = open_audit(release_dir, db=root / "audit.duckdb")
    review_everything(store)
    adjudicate_everything(store)
    summary, report = apply_audit(store, root / "r2", taxonomy=default_taxonomy())
    assert summary.version == 2
    return store, root / "r2", report


def test_applied_release_carries_the_settled_answers(
    applied: tuple[AuditStore, Path, dict[str, Any]], release_dir: Path
) -> None:
    store, out, _ = applied
    before = {t.id: t for t in store.release.trajectories}
    after = {t.id: t for t in load_trajectories(out / "release.duckdb")}
    assert set(after) == set(before)
    for uid, traj in after.items():
        expected = EXPECTED_CHANGES.get(uid, release_answer(before[uid]))
        assert release_answer(traj).same_judgement(expected), uid
        # everything but the verdict and labels is carried over as it was
        assert traj.episodes == before[uid].episodes
    with duckdb.connect(str(out / "release.duckdb"), read_only=True) as con:
        safe = con.execute("SELECT count(*) FROM trajectories WHERE label = 'safe'").fetchone()
    assert safe == (6 - 2 + 1,)
    assert load_rejections(out / "release.duckdb") == load_rejections(
        release_dir / "release.duckdb"
    )


def test_report_counts_match_the_hand_computed_audit(
    applied: tuple[AuditStore, Path, dict[str, Any]],
) -> None:
    report = applied[2]
    assert report["binary_corrections"] == {"safe_to_unsafe": 2, "unsafe_to_safe": 1}
    assert report["label_corrections"] == {
        "risk_source": 1,
        "failure_mode": 1,
        "real_world_harm": 1,
    }
    assert report["traces_touched"] == 6
    assert (report["scope"], report["settled"], report["open"]) == (12, 12, 0)
    assert report["reviewers"] == {"ann": 12, "bob": 12}
    assert report["adjudicators"] == {"cy": 3}
    agreement = {row["axis"]: row for row in report["agreement"]}
    assert agreement["verdict"]["pairs"] == 12
    assert agreement["verdict"]["agreement"] == pytest.approx(10 / 12)
    assert agreement["verdict"]["kappa"] == pytest.approx(2 / 3)
    assert agreement["failure_mode"]["pairs"] == 5
    assert agreement["failure_mode"]["agreement"] == pytest.approx(0.8)
    assert agreement["failure_mode"]["kappa"] == pytest.approx(2 / 3)
    assert agreement["risk_source"]["kappa"] == pytest.approx(1.0)
    assert agreement["real_world_harm"]["agreement"] == pytest.approx(1.0)


def test_manifest_and_card_say_an_audit_was_applied(
    applied: tuple[AuditStore, Path, dict[str, Any]],
) -> None:
    out = applied[1]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["audit"]["report"] == "audit_report.md"
    assert manifest["config"]["audit"]["traces_touched"] == 6
    assert {"audit_report.md", "audit_report.json"} <= set(manifest["files"])
    card = (out / "README.md").read_text()
    assert "[the audit report](audit_report.md)" in card
    report_md = (out / "audit_report.md").read_text()
    assert "| Verdict safe → unsafe | 2 |" in report_md
    assert "| 0.667 |" in report_md


def test_open_trajectories_block_apply_unless_allowed(store: AuditStore, tmp_path: Path) -> None:
    review_everything(store)  # three disagreements left without adjudication
    with pytest.raises(AtbenchError, match="3 of 12 audited trajectories are not settled"):
        apply_audit(store, tmp_path / "r2", taxonomy=default_taxonomy())
    assert not (tmp_path / "r2").exists()
    _, report = apply_audit(store, tmp_path / "r2", taxonomy=default_taxonomy(), allow_open=True)
    assert report["open"] == 3
    assert report["traces_touched"] == 3  # S5, U3, U4: the agreed changes only
    assert len(REVIEWS) == report["scope"]


def test_apply_refuses_to_overwrite_the_audited_release(
    store: AuditStore, release_dir: Path
) -> None:
    with pytest.raises(AtbenchError, match="is the audited release itself"):
        apply_audit(store, release_dir, taxonomy=default_taxonomy())
