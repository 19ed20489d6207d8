"""Regenerate one domain of a published release, leaving every other domain's rows as they are.

The release's manifest says what built it (`config.spec`, the `ReleaseSpec` with the full domain
list), so the domain is rebuilt under that same spec: the same plan slice, the same work folder
and the same response cache, with whatever seeds, tools and templates are current. This module
reads the old release and writes the release candidate; the release gates and `publish_stage`
(the `release` asset and its blocking checks) take it from there, as for any build. Rows of the
other domains (trajectories, rejections, ledger) are copied from the old release's DuckDB file,
not from any work folder, so they are identical whatever happened to the work folder since.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pipeline.core.build.stages import Candidate, write_candidate
from pipeline.core.build.stamps import release_ledger
from pipeline.core.build.workspace import StageReport, Workspace
from pipeline.core.filtering.selection import select_release
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import InputError
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.publish import read_manifest
from pipeline.core.release.reader import load_ledger_rows, load_rejections
from pipeline.core.release.store import DB_FILE, load_trajectories
from pipeline.core.release.verify import MANIFEST_FILE, release_problems, summarise


@dataclass(frozen=True)
class SourceRelease:
    """What `regen` needs from the release it starts from."""

    path: Path
    version: int
    backend: str
    spec: ReleaseSpec
    config: dict[str, Any]


def read_source_release(release_dir: Path) -> SourceRelease:
    """Read and check the manifest; errors name the file and the field at fault."""
    manifest_path = release_dir / MANIFEST_FILE
    manifest = read_manifest(release_dir)
    version = manifest["version"]
    config = manifest.get("config")
    if not isinstance(config, dict) or config.get("spec") is None:
        raise InputError(
            f"no build spec: this release was not built by `atbench build` (backend "
            f"{manifest.get('backend')!r}), so there is nothing to regenerate",
            file=manifest_path,
            field="config.spec",
        )
    try:
        spec = ReleaseSpec.model_validate(config["spec"])
    except ValidationError as err:
        located = InputError.from_validation(err, file=manifest_path)
        raise InputError(
            located.message, file=manifest_path, field=f"config.spec.{located.field}"
        ) from None
    if not isinstance(manifest.get("files"), dict):
        raise InputError(
            "no file listing to verify the release by", file=manifest_path, field="files"
        )
    problems = release_problems(release_dir, manifest)
    if problems:
        raise InputError(
            f"the release does not match its manifest: {summarise(problems)}", file=manifest_path
        )
    return SourceRelease(
        path=release_dir,
        version=version,
        backend=str(manifest.get("backend", spec.backend)),
        spec=spec,
        config=dict(config),
    )


def check_domain(source: SourceRelease, domain: str) -> None:
    """Refuse, before anything is rebuilt, a domain the release does not have."""
    if domain not in source.spec.domains:
        raise InputError(
            f"domain {domain!r} is not in this release; it has: {', '.join(source.spec.domains)}",
            file=source.path / MANIFEST_FILE,
            field="config.spec.domains",
        )


def regen_candidate(source_dir: Path, domain: str, ws: Workspace) -> StageReport:
    """The release candidate of a regeneration: `domain` as rebuilt in `ws`, every other
    domain's rows exactly as `source_dir` stores them; it continues the source's versions."""
    source = read_source_release(source_dir)
    check_domain(source, domain)
    kept, kept_rejections, kept_ledger = _other_domains(source_dir / DB_FILE, domain)
    fresh, selection = _selected(source, domain, ws.read("filtered", domain, Trajectory))
    ledger = kept_ledger + release_ledger(ws, [domain])
    regeneration = _regeneration(source, domain, len(fresh))
    if selection is not None:
        regeneration["selection"] = selection
    history = [*source.config.get("regenerations", []), regeneration]
    return write_candidate(
        ws,
        kept + fresh,
        kept_rejections + ws.rejections(domain),
        ledger,
        Candidate(
            # Not the source's build digest: this release was not made by that build alone.
            config={
                **{k: v for k, v in source.config.items() if k != "build_digest"},
                "regenerations": history,
            },
            backend=source.backend,
            follows_version=source.version,
        ),
    )


def _selected(
    source: SourceRelease, domain: str, fresh: list[Trajectory]
) -> tuple[list[Trajectory], dict[str, Any] | None]:
    """The rebuilt domain cut to the share the source release selected for it: its build
    over-plans like any, and the release keeps its domain balance (`filtering.selection`)."""
    selected = source.config.get("selection", {}).get("per_domain", {}).get(domain, {})
    if "selected" not in selected:
        return fresh, None
    chosen = select_release(fresh, selected["selected"], default_taxonomy(), {})
    return chosen.kept, chosen.record


def _other_domains(
    db_path: Path, domain: str
) -> tuple[list[Trajectory], list[Rejection], list[dict[str, Any]]]:
    """Every row of the old release that does not belong to `domain`, exactly as stored."""
    trajectories = [t for t in load_trajectories(db_path) if t.domain != domain]
    return (
        trajectories,
        load_rejections(db_path, except_domain=domain),
        load_ledger_rows(db_path, except_domain=domain),
    )


def _regeneration(source: SourceRelease, domain: str, written: int) -> dict[str, Any]:
    return {
        "domain": domain,
        "from_version": source.version,
        "from_path": str(source.path),
        "trajectories": written,
    }
