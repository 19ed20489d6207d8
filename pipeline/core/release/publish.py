"""Materialise a release directory, all or nothing.

Everything is written into a hidden sibling directory first; `manifest.json` goes last, so a
directory with a manifest is complete. The finished directory is then swapped in with two
renames (old -> backup, new -> out_dir) and the backup deleted. Any failure before the swap
removes the temporary directory and leaves the previous release byte for byte as it was.
Only a crash between the two renames can leave `out_dir` missing, with the previous release
intact in its `.<name>.old-*` backup beside it; the next publish puts that backup back first.

A publish holds the release's lock (`lock.py`) throughout, so it also removes the temporary
and backup copies that killed publishes left beside `out_dir`. It replaces only a directory
that verifies against its own manifest (`verify.py`): anything else, such as a folder holding
a user's files next to an old manifest, is refused with what was found.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from pipeline.core.filtering.grounding import grounding_report
from pipeline.core.inputs.files import read_structured
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import AtbenchError, InputError, naming_full_disk
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.trajectory import SCHEMA_VERSION, Trajectory
from pipeline.core.release.atbench_format import release_order
from pipeline.core.release.card import write_dataset_card
from pipeline.core.release.exports import (
    ATBENCH_JSON,
    PARQUET_DIR,
    TRAJECTORIES_JSONL,
    write_atbench_json,
    write_parquet_tables,
    write_trajectories_jsonl,
)
from pipeline.core.release.hub import ATBENCH_PARQUET, write_atbench_parquet
from pipeline.core.release.lock import release_lock
from pipeline.core.release.store import DB_FILE, write_release_db
from pipeline.core.release.verify import MANIFEST_FILE as MANIFEST_FILE
from pipeline.core.release.verify import (
    file_digests,
    read_release_manifest,
    release_problems,
    summarise,
)


class ReleaseSummary(BaseModel):
    """What a publish produced, for CLI output and Dagster metadata."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    out_dir: Path
    version: int
    """1 for a new directory, previous manifest version + 1 when replacing a release (or
    when following one, see `publish_release`)."""
    total: int
    safe: int
    unsafe: int
    rejected: int
    domains: tuple[str, ...]


def publish_release(
    trajectories: Iterable[Trajectory],
    rejections: Iterable[Rejection],
    ledger_rows: Iterable[Mapping[str, Any]],
    out_dir: Path,
    *,
    taxonomy: Taxonomy,
    config: Mapping[str, Any],
    backend: str,
    code_version: str,
    follows_version: int = 0,
    extra_files: Mapping[str, str] | None = None,
) -> ReleaseSummary:
    """Write database, exports, card and manifest to `out_dir`, replacing any release there.

    Public ids are 0..n-1 in uid order. Refuses a non-empty `out_dir` that is not a release,
    so a mistyped path never deletes unrelated files. The version is one more than the larger
    of the release being replaced and `follows_version`, the version of the release this one
    derives from (e.g. `atbench regen` into a new directory continues its source's numbering).
    `extra_files` (relative name -> text, e.g. an audit report) are written beside the exports
    and listed in the manifest like every other file.
    """
    # A full disk anywhere in the writes is one error naming the release's place.
    with release_lock(out_dir), naming_full_disk(out_dir):
        _clear_leftovers(out_dir)
        version = max(replaceable_version(out_dir), follows_version) + 1
        return _publish(
            release_order(trajectories),
            list(rejections),
            ledger_rows,
            out_dir,
            version=version,
            taxonomy=taxonomy,
            config=config,
            backend=backend,
            code_version=code_version,
            extra_files=extra_files or {},
        )


def _publish(
    ordered: list[Trajectory],
    rejected: list[Rejection],
    ledger_rows: Iterable[Mapping[str, Any]],
    out_dir: Path,
    *,
    version: int,
    taxonomy: Taxonomy,
    config: Mapping[str, Any],
    backend: str,
    code_version: str,
    extra_files: Mapping[str, str],
) -> ReleaseSummary:
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.parent / f".{out_dir.name}.tmp-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        summary = ReleaseSummary(
            out_dir=out_dir,
            version=version,
            total=len(ordered),
            safe=sum(1 for t in ordered if t.verdict == "safe"),
            unsafe=sum(1 for t in ordered if t.verdict == "unsafe"),
            rejected=len(rejected),
            domains=tuple(sorted({t.domain for t in ordered})),
        )
        manifest: dict[str, Any] = {
            "version": version,
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "backend": backend,
            "code_version": code_version,
            "record_schema_version": SCHEMA_VERSION,
            "taxonomy_version": taxonomy.version,
            "counts": summary.model_dump(include={"total", "safe", "unsafe", "rejected"}),
            "domains": list(summary.domains),
            "config": dict(config),
            "grounding": grounding_report(ordered),
        }
        json.dumps(manifest)  # fail now, not after the heavy writes, on a non-JSON config
        write_release_db(tmp / DB_FILE, ordered, rejected, list(ledger_rows), taxonomy, manifest)
        write_atbench_json(tmp / ATBENCH_JSON, ordered)
        write_trajectories_jsonl(tmp / TRAJECTORIES_JSONL, ordered)
        write_parquet_tables(tmp / DB_FILE, tmp / PARQUET_DIR)
        write_atbench_parquet(tmp / ATBENCH_PARQUET, ordered)
        for name, text in extra_files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        write_dataset_card(tmp / DB_FILE, tmp, taxonomy=taxonomy, manifest=manifest)
        manifest["files"] = file_digests(tmp)
        (tmp / MANIFEST_FILE).write_text(
            json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        _swap_into_place(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summary


def read_manifest(release_dir: Path) -> dict[str, Any]:
    """A published release's manifest, checked for the fields every reader needs."""
    manifest_path = release_dir / MANIFEST_FILE
    if not manifest_path.is_file() or not (release_dir / DB_FILE).is_file():
        raise InputError(
            f"not a release: expected {MANIFEST_FILE} and {DB_FILE} here", file=release_dir
        )
    manifest = read_structured(manifest_path)
    if not isinstance(manifest, dict):
        raise InputError("the manifest must be a JSON object", file=manifest_path)
    version = manifest.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise InputError("must be an integer", file=manifest_path, field="version")
    return manifest


def check_release_target(out_dir: Path) -> None:
    """Refuse `out_dir` unless it is absent, empty or an intact release (see
    `replaceable_version`): a mistyped path must never have its files replaced."""
    replaceable_version(out_dir)


def replaceable_version(out_dir: Path) -> int:
    """0 when there is nothing to replace; refuses directories that are not intact releases."""
    if not out_dir.exists():
        return 0
    if not out_dir.is_dir():
        raise AtbenchError(f"{out_dir} is a file; a release needs a directory there")
    if not (out_dir / MANIFEST_FILE).exists():
        if any(out_dir.iterdir()):
            raise AtbenchError(
                f"{out_dir} is not empty and holds no {MANIFEST_FILE}, so it is not a release; "
                "refusing to replace it. Choose another --out or remove the directory."
            )
        return 0
    manifest = read_release_manifest(out_dir)
    problems = release_problems(out_dir, manifest)
    if problems:
        raise AtbenchError(
            f"{out_dir} does not match its {MANIFEST_FILE} ({summarise(problems)}); refusing "
            "to replace it, since it may hold files that are not the release's. Move them "
            "away, or choose another --out."
        )
    return int(manifest["version"])


def _clear_leftovers(out_dir: Path) -> None:
    """Remove what killed publishes left beside `out_dir`, first putting back a backup
    that a kill between the two renames of a swap left as the only copy."""
    backups = sorted(
        out_dir.parent.glob(f".{out_dir.name}.old-*"), key=lambda path: path.stat().st_mtime
    )
    if backups and not out_dir.exists():
        os.rename(backups.pop(), out_dir)
    for leftover in [*backups, *out_dir.parent.glob(f".{out_dir.name}.tmp-*")]:
        shutil.rmtree(leftover, ignore_errors=True)


def _swap_into_place(new: Path, out_dir: Path) -> None:
    if not out_dir.exists():
        os.rename(new, out_dir)
        return
    backup = out_dir.parent / f".{out_dir.name}.old-{secrets.token_hex(4)}"
    os.rename(out_dir, backup)
    try:
        os.rename(new, out_dir)
    except BaseException:
        os.rename(backup, out_dir)
        raise
    shutil.rmtree(backup, ignore_errors=True)  # the new release is already in place
