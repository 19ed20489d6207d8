"""What an evaluation reads: a release folder, or an external file read in memory.

Both are checked before any work: `check_*` raise an `InputError` naming the option, the path
and what was expected; loading never writes anything (a release is opened read-only).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast, get_args

from pipeline.core.evaluation.records import EvalSource
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import InputError
from pipeline.core.release.importers import ImportFormat, read_benchmark
from pipeline.core.release.store import DB_FILE, load_trajectories
from pipeline.core.release.verify import (
    MANIFEST_FILE,
    read_release_manifest,
    release_problems,
    summarise,
)

DATASET_FORMATS: tuple[str, ...] = get_args(ImportFormat)


def check_release(path: Path, option: str = "--release") -> None:
    """A release whose files match its manifest: a damaged one must not be scored."""
    if not (path / MANIFEST_FILE).is_file() or not (path / DB_FILE).is_file():
        raise InputError(
            f"{option}: not a release (expected {MANIFEST_FILE} and {DB_FILE})", file=path
        )
    problems = release_problems(path, read_release_manifest(path))
    if problems:
        raise InputError(
            f"{option}: the release does not match its {MANIFEST_FILE}: {summarise(problems)}",
            file=path,
        )


def parse_dataset(value: str) -> tuple[ImportFormat, Path]:
    """`FORMAT:PATH`, FORMAT one of the import formats, PATH a readable file or folder."""
    fmt, sep, path = value.partition(":")
    if not sep or fmt not in DATASET_FORMATS:
        raise InputError(
            f"--dataset must be FORMAT:PATH with FORMAT one of {', '.join(DATASET_FORMATS)}; "
            f"got {value!r}"
        )
    target = Path(path)
    if not (target.is_dir() or (target.is_file() and _readable(target))):
        raise InputError("--dataset: no readable file or folder here", file=target)
    return cast(ImportFormat, fmt), target


def _readable(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            handle.read(1)
    except OSError:
        return False
    return True


def load_release(path: Path) -> EvalSource:
    check_release(path)
    manifest = json.loads((path / MANIFEST_FILE).read_text(encoding="utf-8"))
    return EvalSource(
        name=path.resolve().name,
        kind="release",
        path=path.resolve(),
        trajectories=load_trajectories(path / DB_FILE),
        details={"version": manifest.get("version"), "backend": manifest.get("backend")},
    )


def load_dataset(fmt: ImportFormat, path: Path, taxonomy: Taxonomy) -> EvalSource:
    trajectories, report = read_benchmark(path, fmt, taxonomy=taxonomy)
    if not trajectories:
        raise InputError(
            f"--dataset: none of its {report.rows} rows could be read "
            f"(first reason: {report.rejected[0].reason if report.rejected else 'no rows'})",
            file=path,
        )
    return EvalSource(
        name=f"{fmt}:{path.resolve().name}",
        kind="dataset",
        path=path.resolve(),
        trajectories=trajectories,
        details=report.counts(),
    )
