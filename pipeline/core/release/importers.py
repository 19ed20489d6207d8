"""Import external benchmarks into the release layout, so guards can be evaluated on them.

This module reads the sources and reports what it did; the rows of each format are read by
`import_rjudge` (and `atbench_format` for the public format), action strings by
`import_actions`, the source files by `import_sources`.

Two formats:

* `atbench` — the public ATBench JSON (design §3.1), our own `atbench.json` included; rows go
  through `from_atbench_row`, strict: a row it refuses is rejected, with the reason.
* `rjudge` — R-Judge / ASSEBench records: `profile`, `scenario` (or `application_scenario`),
  `goal`, `contents`, `label`, `risk_description`, `attack_type` and friends, with looser action
  strings (`Tool{...}`, `Tool: {...}`, `Tool\\nAction Input: {...}`, `Tool(...)`, Python-literal
  arguments, plain-text final answers). What can be read is read, and every reading that is not
  the public format's is recorded as a *repair*; what cannot be read is kept verbatim and
  *flagged*; a row is *rejected* only when it has no label or no turns (or a turn of no known
  role). The import report lists all three by row, so nothing is dropped or reinterpreted
  silently. Conversation-only rows (no tool listed or called) and environment turns no call
  asked for are kept and flagged: published R-Judge figures are over every record.

Decisions for `rjudge` rows (see the README's "Import" section):

* No tool schemas in the source: tools are synthesised from the names the row calls, with
  parameters `{"type": "object"}` and an empty description (flag `synthesised_tools`).
* Only a binary label in the source: unsafe rows keep `labels` NULL rather than a guessed leaf
  (flag `unlabelled_unsafe`); the trajectory model allows that for imported traces only, and
  fine-grained metrics must skip them. Fields that look like labels but are not taxonomy leaves
  (ASSEBench's free-text `failure_mode`) are kept under `construction["source.<key>"]`.
* An action that reads as neither a call nor an answer becomes `UnparsedAction(raw)`, exported
  unchanged. A plain-text action is the final answer unless an observation follows it, in
  which case it may have been a call and is kept unparsed.
* Every source key the model has no field for is kept in `construction["source.<key>"]`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from pipeline import __version__
from pipeline.core.inputs.files import write_json_atomic
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import AtbenchError, InputError
from pipeline.core.model.trajectory import Provenance, Trajectory
from pipeline.core.release.atbench_format import from_atbench_row
from pipeline.core.release.import_actions import MAX_ACTION_CHARS, MAX_ACTION_NESTING
from pipeline.core.release.import_rjudge import rjudge_trajectory
from pipeline.core.release.import_sources import (
    SourceRow,
    display_name,
    read_source_file,
    row_mapping,
    source_files,
)
from pipeline.core.release.publish import ReleaseSummary, publish_release

ImportFormat = Literal["atbench", "rjudge"]

FLAGS = {
    "unparsed_action": "an action read as neither a tool call nor a final answer; kept verbatim",
    "action_beyond_limits": f"an action over {MAX_ACTION_CHARS:,} characters or nested over "
    f"{MAX_ACTION_NESTING} levels; kept verbatim, not parsed",
    "synthesised_tools": "no tool schema in the row; tools synthesised from the names called, "
    'parameters {"type": "object"}',
    "unlabelled_unsafe": "unsafe row without taxonomy labels; its fine-grained labels are NULL",
    "unmapped_labels": "label fields that are not taxonomy leaves; kept as construction source.*",
    "no_tools": "the agent only converses: the row neither lists nor calls a tool",
    "unanchored_observation": "an environment turn with no call before it; kept where it was",
}
"""Kept, but the source lacks something a constructed trace would have."""
REPAIRS = {
    "loose_action_syntax": "Tool{...}, Tool: {...} or Tool\\nAction Input: {...} read as a call",
    "python_call_syntax": "Tool(...) read as a call",
    "python_literal_arguments": "single-quoted (Python literal) arguments read as JSON",
    "json_key_aliases": "a JSON call with other key names (tool, input, ...) read as a call",
    "free_text_final_answer": "a plain-text action, with no observation after it, read as the "
    "final answer",
    "empty_action": "an empty action read as an empty final answer (the agent only spoke)",
    "dropped_empty_observation": "an empty environment turn after a non-call dropped",
    "inserted_empty_observation": "a call with no observation after it given an empty one",
    "null_observation": "a null observation after a call read as an empty string",
    "duplicate_id": "id seen before in this import; the pair id gets a -2, -3, ... suffix",
    "missing_id": "no integer id; the row's position in its file is used",
    "dropped_empty_episode": "an episode with no turns dropped (others remain)",
}
"""Read into the model in a way the public format would not have needed; meaning kept."""

_REPORT_SUFFIX = ".import-report.json"


class RejectedRow(BaseModel):
    """A source row that could not be represented at all, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    file: str
    index: int
    id: Any
    field: str | None
    reason: str


class ImportReport(BaseModel):
    """What an import read, repaired, flagged and rejected; written beside the release."""

    model_config = ConfigDict(extra="forbid")

    format: ImportFormat
    sources: list[str]
    sha256: str
    """Of the source files' bytes, in order; also the imported traces' `config_hash` prefix."""
    rows: int
    imported: int
    safe: int
    unsafe: int
    flagged: dict[str, list[str]]
    """Flag code -> uids of the imported trajectories that carry it."""
    repaired: dict[str, list[str]]
    """Repair code -> uids."""
    rejected: list[RejectedRow]
    codes: dict[str, str]
    """What each flag and repair code means."""

    def counts(self) -> dict[str, Any]:
        """The headline numbers, for the manifest and the CLI."""
        return {
            "format": self.format,
            "sources": self.sources,
            "sha256": self.sha256,
            "rows": self.rows,
            "imported": self.imported,
            "rejected": len(self.rejected),
            "flagged": {code: len(uids) for code, uids in self.flagged.items()},
            "repaired": {code: len(uids) for code, uids in self.repaired.items()},
        }


def report_path(out_dir: Path) -> Path:
    """Where the import report of the release at `out_dir` goes: a sibling file."""
    return out_dir.with_name(out_dir.name + _REPORT_SUFFIX)


def import_benchmark(
    path: Path, fmt: ImportFormat, out_dir: Path, *, taxonomy: Taxonomy
) -> tuple[ReleaseSummary, ImportReport]:
    """Read `path` (a file, or a folder of .json/.jsonl files) and publish it at `out_dir`.

    The report is written beside the release even when no row could be imported, in which
    case nothing is published and an `AtbenchError` says where the report is.
    """
    trajectories, report = read_benchmark(path, fmt, taxonomy=taxonomy)
    if not trajectories:
        write_json_atomic(report_path(out_dir), report.model_dump(mode="json"))
        raise AtbenchError(
            f"no row of {path} could be imported ({report.rows} read); nothing was published. "
            f"Reasons per row: {report_path(out_dir)}"
        )
    summary = publish_release(
        trajectories,
        [],
        [],
        out_dir,
        taxonomy=taxonomy,
        config={"import": report.counts()},
        backend=f"imported:{fmt}",
        code_version=__version__,
    )
    write_json_atomic(report_path(out_dir), report.model_dump(mode="json"))
    return summary, report


def read_benchmark(
    path: Path, fmt: ImportFormat, *, taxonomy: Taxonomy
) -> tuple[list[Trajectory], ImportReport]:
    """Read `path` (a file, or a folder of .json/.jsonl files) into trajectories, in memory;
    `atbench eval --dataset` evaluates these without publishing a release."""
    files = source_files(path)
    digest = hashlib.sha256()
    rows: list[SourceRow] = []
    for file in files:
        rows.extend(read_source_file(file, display_name(file, path)))
        digest.update(file.read_bytes())
    provenance = Provenance(
        release_seed=0, config_hash=digest.hexdigest()[:12], backend=f"imported:{fmt}"
    )
    return read_rows(
        rows,
        fmt,
        taxonomy=taxonomy,
        provenance=provenance,
        sources=[str(file.resolve()) for file in files],
        sha256=digest.hexdigest(),
    )


def read_rows(
    rows: list[SourceRow],
    fmt: ImportFormat,
    *,
    taxonomy: Taxonomy,
    provenance: Provenance,
    sources: list[str],
    sha256: str,
) -> tuple[list[Trajectory], ImportReport]:
    """Turn source rows into trajectories, collecting what was flagged, repaired, rejected."""
    reader = _READERS[fmt]
    trajectories: list[Trajectory] = []
    uids: set[str] = set()
    pair_ids: set[str] = set()
    flagged: dict[str, list[str]] = {}
    repaired: dict[str, list[str]] = {}
    rejected: list[RejectedRow] = []
    for row in rows:
        try:
            traj, codes = reader(row, pair_ids, taxonomy, provenance)
            if traj.id in uids:
                raise InputError(f"trajectory {traj.id!r} appears twice in the import", field="id")
        except RecursionError:
            reason = "nested too deeply to read"
            rejected.append(
                RejectedRow(file=row.file, index=row.index, id=row.id, field=None, reason=reason)
            )
            continue
        except InputError as err:
            rejected.append(
                RejectedRow(
                    file=row.file, index=row.index, id=row.id, field=err.field, reason=err.message
                )
            )
            continue
        uids.add(traj.id)
        pair_ids.add(traj.pair_id)
        trajectories.append(traj)
        for code in sorted(codes):
            (flagged if code in FLAGS else repaired).setdefault(code, []).append(traj.id)
    report = ImportReport(
        format=fmt,
        sources=sources,
        sha256=sha256,
        rows=len(rows),
        imported=len(trajectories),
        safe=sum(t.verdict == "safe" for t in trajectories),
        unsafe=sum(t.verdict == "unsafe" for t in trajectories),
        flagged=flagged,
        repaired=repaired,
        rejected=rejected,
        codes={**FLAGS, **REPAIRS},
    )
    return trajectories, report


def _atbench_trajectory(
    row: SourceRow, _taken_pair_ids: set[str], taxonomy: Taxonomy, provenance: Provenance
) -> tuple[Trajectory, set[str]]:
    """Strict: the public format needs no repairs, and a row it refuses is rejected."""
    return from_atbench_row(row_mapping(row), taxonomy=taxonomy, provenance=provenance), set()


_Reader = Callable[[SourceRow, set[str], Taxonomy, Provenance], tuple[Trajectory, set[str]]]
_READERS: dict[ImportFormat, _Reader] = {
    "atbench": _atbench_trajectory,
    "rjudge": rjudge_trajectory,
}
