"""Publish an audited release: the settled answers written back as a new release version.

Only trajectories whose settled answer (adjudicated, or agreed by both reviewers) differs from
the release change; everything else, rejections and the LLM ledger included, is copied as
stored. The audit report goes into the new release as `audit_report.json` and
`audit_report.md`, and its summary into the manifest's `config.audit`, which the dataset card
shows. Publishing is atomic like every release; the source release is never touched.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import ValidationError

from pipeline import __version__
from pipeline.core.audit.agreement import agreement_by_axis
from pipeline.core.audit.answers import Answer, release_answer
from pipeline.core.audit.progress import Progress, read_progress
from pipeline.core.audit.source import AuditedRelease
from pipeline.core.audit.store import AuditStore
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.labels import AXES, leaf_context
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.publish import ReleaseSummary, publish_release
from pipeline.core.release.reader import load_ledger_rows, load_rejections
from pipeline.core.release.store import DB_FILE

REPORT_JSON = "audit_report.json"
REPORT_MD = "audit_report.md"
_OPEN = ("unreviewed", "in_review", "disagreed")


def audit_report(release: AuditedRelease, progress: Progress) -> dict[str, Any]:
    """Counts of what the audit changed and how far reviewers agreed (JSON-ready)."""
    corrections = []
    binary: Counter[str] = Counter()
    per_axis: Counter[str] = Counter()
    for uid, state in progress.states.items():
        settled = state.settled
        before = release_answer(release.by_uid[uid])
        if settled is None or settled.same_judgement(before):
            continue
        if settled.verdict != before.verdict:
            binary[f"{before.verdict}_to_{settled.verdict}"] += 1
        elif settled.labels is not None and before.labels is not None:
            for axis in AXES:
                per_axis[axis] += getattr(settled.labels, axis) != getattr(before.labels, axis)
        adjudication = state.adjudication
        corrections.append(
            {
                "id": uid,
                "public_id": release.public_id[uid],
                "before": _plain(before),
                "after": _plain(settled),
                "settled_by": f"adjudication by {adjudication.person}"
                if adjudication
                else "agreement of both reviewers",
            }
        )
    return {
        "from_version": release.version,
        "from_path": str(release.path),
        "scope": progress.total,
        "settled": sum(progress.by_status[s] for s in ("agreed", "adjudicated")),
        "open": sum(progress.by_status[s] for s in _OPEN),
        "status": {s: progress.by_status[s] for s in sorted(progress.by_status)},
        "binary_corrections": {d: binary[d] for d in ("safe_to_unsafe", "unsafe_to_safe")},
        "label_corrections": {axis: per_axis[axis] for axis in AXES},
        "traces_touched": len(corrections),
        "agreement": [vars(a) for a in agreement_by_axis(progress.states.values())],
        "reviewers": dict(sorted(progress.reviewed_by.items())),
        "adjudicators": dict(sorted(progress.adjudicated_by.items())),
        "corrections": corrections,
        "report": REPORT_MD,
    }


def apply_audit(
    store: AuditStore, out_dir: Path, *, taxonomy: Taxonomy, allow_open: bool = False
) -> tuple[ReleaseSummary, dict[str, Any]]:
    """Publish the corrected release at `out_dir`; refuses while traces are still open."""
    release = store.release
    if out_dir.resolve() == release.path.resolve():
        raise AtbenchError(
            f"--out {out_dir} is the audited release itself; publish the corrections to a new "
            "directory (the audit tables belong to the version they reviewed)"
        )
    progress = read_progress(store)
    if not progress.total:
        raise AtbenchError("nothing is under audit yet: start one with `atbench audit serve`")
    still_open = [uid for uid, s in progress.states.items() if s.status in _OPEN]
    if still_open and not allow_open:
        raise AtbenchError(
            f"{len(still_open)} of {progress.total} audited trajectories are not settled yet "
            f"(first: {still_open[0]!r}, {progress.states[still_open[0]].status}); finish the "
            "reviews and adjudications, or pass --allow-open to publish what is settled"
        )
    report = audit_report(release, progress)
    changed = {c["id"]: progress.states[c["id"]].settled for c in report["corrections"]}
    trajectories = [_corrected(t, changed.get(t.id), taxonomy) for t in release.trajectories]
    summary_keys = ("from_version", "scope", "settled", "traces_touched", "report")
    db = release.path / DB_FILE
    summary = publish_release(
        trajectories,
        load_rejections(db),
        load_ledger_rows(db),
        out_dir,
        taxonomy=taxonomy,
        config={
            **release.manifest.get("config", {}),
            "audit": {k: report[k] for k in summary_keys},
        },
        backend=str(release.manifest.get("backend", "unknown")),
        code_version=__version__,
        follows_version=release.version,
        extra_files={
            REPORT_JSON: json.dumps(report, indent=2, ensure_ascii=False) + "\n",
            REPORT_MD: render_report(report, taxonomy),
        },
    )
    return summary, report


def render_report(report: dict[str, Any], taxonomy: Taxonomy) -> str:
    env = Environment(
        loader=FileSystemLoader(templates_dir() / "audit"),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,  # Markdown for a file, not HTML; cells carry ids and counts only
    )
    axis_names = {a.id: a.name for a in taxonomy.axes} | {"verdict": "Verdict (safe/unsafe)"}
    return env.get_template("report.md.j2").render(report=report, axis_names=axis_names)


def _corrected(traj: Trajectory, answer: Answer | None, taxonomy: Taxonomy) -> Trajectory:
    if answer is None:
        return traj
    data = traj.model_dump()
    data["verdict"] = answer.verdict
    data["labels"] = answer.labels.model_dump() if answer.labels else None
    try:
        return Trajectory.model_validate(data, context=leaf_context(taxonomy))
    except ValidationError as err:
        raise AtbenchError(
            f"trajectory {traj.id!r} cannot take the audited answer {answer.verdict!r}: "
            f"{err.errors(include_url=False)[0]['msg']}"
        ) from None


def _plain(answer: Answer) -> dict[str, str | None]:
    labels = answer.labels
    return {"verdict": answer.verdict} | {
        axis: getattr(labels, axis) if labels else None for axis in AXES
    }
