"""Whether a stage's output is current: made by this code from these inputs and settings.

Beside each stage file goes a stamp: a digest of everything that shaped it (stage, domain,
spec, LLM fingerprint, the project's code and versioned inputs, the files the stage read) and
the stage's report. A rebuild that finds every stamp current does no work at all: no Dagster
run, no cache lookup, no event-log writes. A stage killed midway has no stamp (it is written
after the stage file), so its rerun redoes it from the response cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
from collections.abc import Callable, Coroutine, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, ParamSpec

import pipeline
from pipeline.core.build.workspace import StageReport, Workspace
from pipeline.core.inputs.files import write_json_atomic
from pipeline.core.inputs.paths import seeds_dir, taxonomy_dir, templates_dir, tool_pool_dir
from pipeline.core.llm import LLMSettings
from pipeline.core.llm.ledger import read_ledger
from pipeline.core.model.spec import ReleaseSpec

STAMP_DIR = "stamps"
_READS = {
    "plan": (),
    "skeletons": ("plan",),
    "injected": ("skeletons",),
    "paired": ("injected", "skeletons"),
    "filtered": ("paired",),
}
"""The stage files each stage reads, for its stamp."""


def project_digest() -> str:
    """sha256 over the pipeline's code and its versioned inputs: any edit to a generator, a
    judge, a rule, a template, a seed or a tool makes every stamp stale. Files are read again
    only when one's path, size or mtime differs from the last call's."""
    if _held:
        return _held[-1]
    code = Path(pipeline.__file__).resolve().parent
    roots = [code, templates_dir(), seeds_dir(), tool_pool_dir(), taxonomy_dir()]
    files = [
        (f"{root.name}/{path.relative_to(root)}", path)
        for root in roots
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc")
    ]
    stats = tuple((name, *_mtime_and_size(path)) for name, path in files)
    if stats not in _project_digests:
        digest = hashlib.sha256()
        for name, path in files:
            digest.update(f"{name}\0".encode())
            digest.update(path.read_bytes())
        _project_digests[stats] = digest.hexdigest()
    return _project_digests[stats]


_project_digests: dict[tuple[tuple[str, int, int], ...], str] = {}
_held: list[str] = []


def _mtime_and_size(path: Path) -> tuple[int, int]:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@contextlib.contextmanager
def project_held() -> Iterator[None]:
    """Within the block `project_digest` is worked out once: checking every stage's stamp
    (150 of a default release) would otherwise list and stat the checkout 150 times."""
    _held.append(project_digest())
    try:
        yield
    finally:
        _held.pop()


def files_digest(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"{path.parent.name}/{path.name}\0".encode())
        digest.update(path.read_bytes() if path.exists() else b"\0missing")
    return digest.hexdigest()


def _digest(stage: str, domain: str, settings: dict[str, Any], read: Sequence[Path]) -> str:
    """The digest a current stamp of (`stage`, `domain`) carries; `settings` holds the spec
    and the LLM fingerprint, `read` the files the stage reads."""
    blob = json.dumps([stage, domain, settings, project_digest(), files_digest(read)])
    return hashlib.sha256(blob.encode()).hexdigest()


def stamp_path(root: Path, stage: str, domain: str) -> Path:
    return root / STAMP_DIR / stage / f"{domain}.json"


def _stamp(root: Path, stage: str, domain: str) -> dict[str, Any] | None:
    try:
        stamp = json.loads(stamp_path(root, stage, domain).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) else None


def _saved_report(root: Path, stage: str, domain: str, digest: str) -> dict[str, Any] | None:
    """The stage's saved report when its stamp carries `digest`, else None."""
    stamp = _stamp(root, stage, domain)
    if stamp is None or stamp.get("digest") != digest:
        return None
    report: dict[str, Any] = stamp["report"]
    return report


def write_stamp(root: Path, stage: str, domain: str, digest: str, report: dict[str, Any]) -> None:
    write_json_atomic(stamp_path(root, stage, domain), {"digest": digest, "report": report})


def release_digest(spec: ReleaseSpec, settings: LLMSettings, ws: Workspace) -> str:
    """What a published release was made from: every domain's kept traces, rejections and
    ledger, with the spec, the LLM fingerprint and the project's code and inputs."""
    reads = [
        path
        for domain in spec.domains
        for path in (
            ws.stage_file("filtered", domain),
            *sorted((ws.root / "rejections").glob(f"*/{domain}.jsonl")),
            *sorted(ws.ledger_dir(domain).glob("*.jsonl")),
        )
    ]
    settings_blob = {"spec": spec.model_dump(mode="json"), "llm": settings.fingerprint()}
    return _digest("release", "*", settings_blob, reads)


def release_ledger(ws: Workspace, domains: Iterable[str]) -> list[dict[str, Any]]:
    """Every call in the ledger of `domains`, marked `in_build` when a stage run whose file
    the release is made of wrote it (its stamp names the segment); the calls of killed or
    superseded runs stay, as the work folder's history."""
    rows = []
    for domain in domains:
        built = _built_segments(ws, domain)
        for path in sorted(ws.ledger_dir(domain).glob("*.jsonl")):
            mark = {"in_build": path.name in built}
            rows += [entry.model_dump(mode="json") | mark for entry in read_ledger([path])]
    return rows


def _built_segments(ws: Workspace, domain: str) -> set[str]:
    names: set[str] = set()
    for stage in _READS:
        stamp = _stamp(ws.root, stage, domain)
        if stamp is not None:
            names.update(StageReport.model_validate(stamp["report"]).ledger_segments)
    return names


def current_release(out_dir: Path, digest: str) -> dict[str, Any] | None:
    """The manifest of the release at `out_dir` when it was published from inputs with
    `digest` and every file it lists is still there at its size; else None."""
    try:
        manifest = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("config", {}).get("build_digest") != digest:
        return None
    for name, entry in manifest.get("files", {}).items():
        path = out_dir / name
        if not path.is_file() or path.stat().st_size != entry.get("size"):
            return None
    return manifest


def stage_digest(
    stage: str, spec: ReleaseSpec, settings: LLMSettings | None, ws: Workspace, domain: str
) -> str:
    fingerprint = settings.fingerprint() if settings is not None else None
    reads = [ws.stage_file(read, domain) for read in _READS[stage]]
    return _digest(stage, domain, {"spec": spec.model_dump(mode="json"), "llm": fingerprint}, reads)


def current_report(
    stage: str, spec: ReleaseSpec, settings: LLMSettings | None, ws: Workspace, domain: str
) -> StageReport | None:
    """The report of the stage's last run when its file is current (see `stamps`), else None."""
    if not ws.stage_file(stage, domain).exists():
        return None
    digest = stage_digest(stage, spec, settings, ws, domain)
    saved = _saved_report(ws.root, stage, domain, digest)
    return StageReport.model_validate(saved) if saved is not None else None


P = ParamSpec("P")


StageRun = Callable[P, Coroutine[Any, Any, StageReport]]


def stamped(stage: str) -> Callable[[StageRun[P]], StageRun[P]]:
    """Skip the stage when its file is current; stamp it after a run. The stage function
    takes `spec`, `domain`, `ws` and `settings` (an `LLMSettings`) among its arguments."""

    def wrap(run: StageRun[P]) -> StageRun[P]:
        signature = inspect.signature(run)

        @functools.wraps(run)
        async def stamped(*args: P.args, **kwargs: P.kwargs) -> StageReport:
            given = signature.bind(*args, **kwargs).arguments
            spec, domain, ws, settings = (given[k] for k in ("spec", "domain", "ws", "settings"))
            done = current_report(stage, spec, settings, ws, domain)
            if done is not None:
                return done
            digest = stage_digest(stage, spec, settings, ws, domain)
            report = await run(*args, **kwargs)
            write_stamp(ws.root, stage, domain, digest, report.model_dump(mode="json"))
            return report

        return stamped

    return wrap
