"""Regenerate one domain of a published release, leaving every other domain's rows as they are.

The release's manifest says what built it (`config.spec`, the `ReleaseSpec` with the full domain
list), so the domain is rebuilt under that same spec: the same plan slice, the same work folder
and the same response cache, with whatever seeds, tools and templates are current. The caller
supplies the rebuild (the CLI materialises the domain's Dagster partitions); this module only
reads the old release, merges, runs the release gates and publishes. Rows of the other domains
(trajectories, rejections, ledger) are copied from the old release's DuckDB file, not from any
work folder, so they are identical whatever happened to the work folder since.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pipeline import __version__
from pipeline.core.build.stages import plan_record
from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.llm.ledger import read_ledger
from pipeline.core.model.errors import AtbenchError, InputError
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release import gates
from pipeline.core.release.publish import (
    MANIFEST_FILE,
    ReleaseSummary,
    publish_release,
    read_manifest,
)
from pipeline.core.release.reader import load_ledger_rows, load_rejections
from pipeline.core.release.store import DB_FILE, load_trajectories

Rebuild = Callable[[ReleaseSpec, str], Workspace]
"""Rebuild one domain's stages under a spec; returns the work folder that now holds them."""


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
    return SourceRelease(
        path=release_dir,
        version=version,
        backend=str(manifest.get("backend", spec.backend)),
        spec=spec,
        config=dict(config),
    )


def regenerate_domain(
    release_dir: Path,
    domain: str,
    out_dir: Path,
    *,
    rebuild: Rebuild,
    taxonomy: Taxonomy,
) -> ReleaseSummary:
    """Rebuild `domain` and publish it with the other domains' rows of `release_dir`.

    `out_dir` may be `release_dir` itself (replaced atomically) or a new directory; either way
    the new version follows the source's. A failing gate publishes nothing.
    """
    source = read_source_release(release_dir)
    if domain not in source.spec.domains:
        raise InputError(
            f"domain {domain!r} is not in this release; it has: {', '.join(source.spec.domains)}",
            file=release_dir / MANIFEST_FILE,
            field="config.spec.domains",
        )
    kept, kept_rejections, kept_ledger = _other_domains(release_dir / DB_FILE, domain)

    ws = rebuild(source.spec, domain)
    fresh: list[Trajectory] = ws.read("filtered", domain, Trajectory)
    trajectories = kept + fresh
    planned = plan_record(ws)
    _gate(trajectories, planned["coverage"], taxonomy)

    ledger = kept_ledger + [
        entry.model_dump(mode="json")
        for entry in read_ledger(sorted(ws.ledger_dir(domain).glob("*.jsonl")))
    ]
    history = [*source.config.get("regenerations", []), _regeneration(source, domain, len(fresh))]
    return publish_release(
        trajectories,
        kept_rejections + ws.rejections(domain),
        ledger,
        out_dir,
        taxonomy=taxonomy,
        config={**source.config, "regenerations": history},
        backend=source.backend,
        code_version=__version__,
        follows_version=source.version,
    )


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


def _gate(
    trajectories: list[Trajectory], planned: dict[str, dict[str, int]], tax: Taxonomy
) -> None:
    """The release's blocking gates (records were already parsed into the model on load)."""
    outcomes = {
        "balance": gates.balance(trajectories),
        "leaf_coverage": gates.leaf_coverage(trajectories, planned, tax),
        "pair_integrity": gates.pair_integrity(trajectories),
    }
    for name, outcome in outcomes.items():
        if not outcome.passed:
            raise AtbenchError(
                f"release gate {name!r} failed: {outcome.description}; "
                "nothing was published and the source release is untouched"
            )


def _regeneration(source: SourceRelease, domain: str, written: int) -> dict[str, Any]:
    return {
        "domain": domain,
        "from_version": source.version,
        "from_path": str(source.path),
        "trajectories": written,
    }
