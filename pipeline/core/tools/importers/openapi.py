"""One OpenAPI 3 document (as the APIs.guru directory ships them) -> candidate tools.

Real documents are written for client generators, not agents: many operations have no
description, arguments in headers, vendor keywords and response schemas thousands of nodes
deep. Each operation becomes a candidate with cleaned text, bounded schemas and a domain, or a
`Rejection` whose reason says which of those checks it failed.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pipeline.core.inputs.tool_pool import SideEffect, Tool
from pipeline.core.llm.schema_subset import subset_problems
from pipeline.core.tools.importers.common import (
    HTTP_METHODS,
    Rejected,
    Rejection,
    make_tool,
    method_side_effect,
    normalise_name,
)
from pipeline.core.tools.importers.domains import DomainScorer
from pipeline.core.tools.importers.families import api_domains, resource_of
from pipeline.core.tools.importers.openapi_operations import RefBudget, operation_schemas
from pipeline.core.tools.importers.portable import portable_schema

REF_BUDGET = RefBudget(max_depth=3, max_nodes=1000)
"""Three levels of nested references per schema part are what an agent can still read; past
1,000 nodes a part could not fit MAX_SCHEMA_CHARS anyway, so expansion stops there."""
MAX_DESCRIPTION = 400
MAX_FIELD_DESCRIPTION = 200
MIN_DESCRIPTION_WORDS = 4
MAX_ARGUMENTS = 20
MAX_SCHEMA_CHARS = 4000
"""Serialised size above which a parameters or returns schema is too large for a prompt."""
MAX_API_SLUG = 28
KEPT_PER_DOCUMENT = 20
"""Candidates a document gives each domain. It bounds time and memory, and how much of a
domain one API can fill where few APIs serve it."""
UNSTATED_LICENCE = "not stated by the API; APIs.guru directory terms (CC0-1.0 or fair use)"

_ARGUMENT_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
"""What function-calling endpoints accept as an argument name."""
PLUMBING_ARGUMENTS = frozenset(
    {"$.xgafv", "access_token", "alt", "callback", "fields", "key", "oauth_token", "prettyPrint",
     "quotaUser", "upload_protocol", "uploadType", "api-version", "api_key", "apiKey", "apikey"}
)  # fmt: skip
"""Transport and credential parameters a generated client fills in, not an agent (Google's
standard parameters, Azure's api-version, API keys): left out of the arguments."""


class Candidate(NamedTuple):
    tool: Tool
    document: str
    """Path of the document under the directory, e.g. `amazonaws.com/acm`: provider first."""
    fits: dict[str, int]
    """Score per domain of the tool, in the tool's order: how clearly it belongs there."""
    resource: str = ""
    """The collection its path works on (`families.resource_of`): its family in the API."""


class DocumentImport(NamedTuple):
    document: str
    operations: int
    candidates: list[Candidate]
    rejections: list[Rejection]
    surplus: int
    """Operations that passed the text checks but were not expanded: each of their domains
    already had KEPT_PER_DOCUMENT better-fitting candidates from this document."""


class ApiInfo(NamedTuple):
    document: str
    slug: str
    title: str
    licence: str
    origin: str
    hits: dict[str, int]
    suggested: set[str]


class Operation(NamedTuple):
    route: str
    method: str
    item: dict[str, Any]
    """The path item: its parameters apply to every operation under the route."""
    op: Any
    label: str

    @property
    def field(self) -> str:
        return f"paths.{self.route}.{self.method}"


class _Described(NamedTuple):
    """An operation that passed the cheap text checks, with its domain."""

    operation: Operation
    description: str
    fits: dict[str, int]


def import_openapi_document(
    doc: Any, document: str, origin: str, scorer: DomainScorer
) -> DocumentImport:
    """`document` names the file in reports; `origin` prefixes each tool's provenance.

    Text checks and domains come first for every operation; schemas, the expensive part,
    are expanded only for each domain's best KEPT_PER_DOCUMENT, so a document of 10,000
    operations costs little more than one of 100.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("paths"), dict):
        rejection = Rejection(
            record=document, original_name=None, field="paths", reason="missing paths object"
        )
        return DocumentImport(document, 0, [], [rejection], 0)
    api = _api_info(doc, document, origin, scorer)
    described: list[_Described] = []
    rejections: list[Rejection] = []
    operations = 0
    for route, item in doc["paths"].items():
        if not isinstance(item, dict):
            continue
        for method in (m for m in item if m in HTTP_METHODS):
            operations += 1
            operation = Operation(
                str(route), method, item, item[method], _label(item[method], method, str(route))
            )
            try:
                described.append(_describe(api, operation, scorer))
            except Rejected as err:
                rejections.append(_rejection(api, operation, err))
    described, outside = _within_api_domains(described, scorer.fixed_domains(document))
    rejections.extend(_rejection(api, ready.operation, _OUTSIDE) for ready in outside)
    built: dict[int, Candidate | None] = {}  # index in `described` -> candidate, None: rejected
    for domain in sorted({domain for ready in described for domain in ready.fits}):
        members = [i for i, ready in enumerate(described) if domain in ready.fits]
        members.sort(key=_family_order(described, domain))
        kept = 0
        for i in members:
            if kept == KEPT_PER_DOCUMENT:
                break
            if i not in built:
                try:
                    built[i] = _candidate(doc, api, described[i])
                except Rejected as err:
                    built[i] = None
                    rejections.append(_rejection(api, described[i].operation, err))
                except (TypeError, AttributeError) as err:  # a shape no check foresaw
                    built[i] = None
                    malformed = Rejected(described[i].operation.field, f"malformed: {err}")
                    rejections.append(_rejection(api, described[i].operation, malformed))
            kept += built[i] is not None
    candidates = [candidate for candidate in built.values() if candidate is not None]
    surplus = len(described) - len(built)
    return DocumentImport(document, operations, candidates, rejections, surplus)


def _key(ready: _Described) -> str:
    return f"{ready.operation.route} {ready.operation.method}"


_OUTSIDE = Rejected(None, "outside the domains its API belongs to")


def _within_api_domains(
    described: list[_Described], fixed: set[str] | None
) -> tuple[list[_Described], list[_Described]]:
    """Each operation placed in a domain of its API (`families.api_domains`): its first
    domain must be one, and a domain it would have been placed in otherwise is dropped; the
    further domains its own text names stay. Where the mapping fixes an API's domains, only
    those. Also the operations left with no domain."""
    kept: list[_Described] = []
    outside: list[_Described] = []
    allowed = api_domains(ready.fits for ready in described) if fixed is None else fixed
    for ready in described:
        fits = {d: score for d, score in ready.fits.items() if d in allowed}
        if fits and fixed is None:
            first = next(iter(fits))
            fits = {first: fits[first]} | {
                d: score for d, score in list(ready.fits.items())[1:] if d != first
            }
        (kept if fits else outside).append(ready._replace(fits=fits))
    return kept, outside


def _family_order(described: list[_Described], domain: str) -> Callable[[int], Any]:
    """Operations of the best-fitting resources first, each resource's together, so a
    document's kept candidates are whole families rather than scattered operations."""
    best: dict[str, int] = {}
    for ready in described:
        if domain in ready.fits:
            family = resource_of(ready.operation.route)
            best[family] = max(best.get(family, 0), ready.fits[domain])

    def order(i: int) -> tuple[int, str, int, str]:
        ready = described[i]
        family = resource_of(ready.operation.route)
        return (-best[family], scatter_key(family), -ready.fits[domain], scatter_key(_key(ready)))

    return order


def _rejection(api: ApiInfo, operation: Operation, err: Rejected) -> Rejection:
    return Rejection(
        record=f"{api.document}#/paths/{_escape(operation.route)}/{operation.method}",
        original_name=f"{api.title}.{operation.label}" if operation.label else None,
        field=err.field,
        reason=err.reason,
    )


def scatter_key(text: str) -> str:
    """A fixed order that favours no part of the alphabet."""
    return hashlib.sha1(text.encode()).hexdigest()


def _api_info(doc: dict[str, Any], document: str, origin: str, scorer: DomainScorer) -> ApiInfo:
    info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
    assert isinstance(info, dict)
    title = str(info.get("title") or document).strip()
    provider = str(info.get("x-providerName") or document.split("/", 1)[0])
    service = info.get("x-serviceName")
    stem = provider.rsplit(".", 1)[0] if "." in provider else provider
    slug = normalise_name(stem, str(service) if service else "")[:MAX_API_SLUG].strip("_")
    licence = info.get("license")
    name = licence.get("name") if isinstance(licence, dict) else None
    categories = info.get("x-apisguru-categories") or []
    if isinstance(categories, str):  # a few documents give one category as a bare string
        categories = [categories]
    tags = info.get("x-tags") if isinstance(info.get("x-tags"), list) else []
    assert isinstance(tags, list)
    description = clean_text(str(info.get("description") or ""), 600)
    return ApiInfo(
        document=document,
        slug=slug,
        title=title,
        licence=str(name).strip() if name else UNSTATED_LICENCE,
        origin=f"{origin} {document}",
        hits=scorer.hits(" ".join([title, str(service or ""), description, *map(str, tags)])),
        suggested=scorer.category_domains(str(c) for c in categories),
    )


def _label(op: Any, method: str, route: str) -> str:
    """The operationId, else the method and the path's literal segments ('' if none)."""
    op_id = op.get("operationId") if isinstance(op, dict) else None
    if isinstance(op_id, str) and normalise_name(op_id):
        return op_id.strip()
    words = [part for part in route.split("/") if part and not part.startswith("{")]
    return f"{method} {' '.join(words)}" if words else ""


def _describe(api: ApiInfo, operation: Operation, scorer: DomainScorer) -> _Described:
    route, _, _, op, label = operation
    field = operation.field
    if not isinstance(op, dict):
        raise Rejected(field, "an operation must be an object")
    if op.get("deprecated") is True:
        raise Rejected(f"{field}.deprecated", "deprecated operation")
    if not label:
        raise Rejected(f"{field}.operationId", "no operationId and no usable path")
    description = _description(op)
    if not description:
        raise Rejected(f"{field}.description", "missing description")
    if len(description.split()) < MIN_DESCRIPTION_WORDS:
        raise Rejected(f"{field}.description", "description too short to tell an agent much")
    tags = op.get("tags") if isinstance(op.get("tags"), list) else []
    assert isinstance(tags, list)
    text = " ".join([label, route.replace("/", " "), description, *map(str, tags)])
    fits = scorer.rank(scorer.hits(text), api.hits, api.suggested)
    if not fits:
        raise Rejected(None, "no domain fits")
    return _Described(operation, description, fits)


def _candidate(doc: dict[str, Any], api: ApiInfo, ready: _Described) -> Candidate:
    route, method, item, op, label = ready.operation
    field = ready.operation.field
    parameters, returns = operation_schemas(doc, item, op, field, REF_BUDGET)
    parameters = _agent_arguments(parameters, f"{field}.parameters")
    parameters, returns = _portable(parameters), _portable(returns)
    problems = subset_problems(parameters) + subset_problems(
        {"type": "object", "properties": {"observation": returns}}
    )
    if problems:
        raise Rejected(f"{field}.parameters", f"outside the portable schema subset: {problems[0]}")
    for part, schema in (("parameters", parameters), ("responses", returns)):
        if len(json.dumps(schema)) > MAX_SCHEMA_CHARS:
            raise Rejected(f"{field}.{part}", f"schema over {MAX_SCHEMA_CHARS} characters")
    tool = make_tool(
        {"name": f"{field}.operationId", "description": f"{field}.description"},
        name=_tool_name(api.slug, label),
        description=ready.description,
        parameters=parameters,
        returns=returns,
        domains=tuple(ready.fits),
        side_effect=_side_effect(method),
        source="openapi",
        original_name=label,
        api_title=api.title,
        licence=api.licence,
        origin=f"{api.origin}#/paths/{_escape(route)}/{method}",
    )
    return Candidate(tool, api.document, ready.fits, resource_of(route))


def _agent_arguments(parameters: dict[str, Any], field: str) -> dict[str, Any]:
    """The arguments without plumbing and without optional ones whose names function calling
    cannot carry; a required one of those, or too many arguments, rejects the operation."""
    required = parameters["required"]
    arguments = {
        name: schema
        for name, schema in parameters["properties"].items()
        if name not in PLUMBING_ARGUMENTS and (name in required or _ARGUMENT_NAME.match(name))
    }
    if len(arguments) > MAX_ARGUMENTS:
        raise Rejected(field, f"more than {MAX_ARGUMENTS} arguments")
    unusable = sorted(name for name in arguments if not _ARGUMENT_NAME.match(name))
    if unusable:
        raise Rejected(field, f"required argument name {unusable[0]!r} is not usable")
    kept = [name for name in required if name in arguments]
    return parameters | {"properties": arguments, "required": kept}


def _description(op: Mapping[str, Any]) -> str:
    texts = [op.get(key) for key in ("summary", "description")]
    parts = [clean_text(text, MAX_DESCRIPTION) for text in texts if isinstance(text, str)]
    parts = [part for part in parts if part]
    if len(parts) == 2 and parts[1].lower().startswith(parts[0].lower().rstrip(".")):
        parts = parts[1:]  # the description repeats the summary
    joined = " ".join(part if part.endswith((".", "!", "?")) else f"{part}." for part in parts)
    return clean_text(joined, MAX_DESCRIPTION)


def clean_text(text: str, limit: int) -> str:
    """Plain prose: HTML tags and Markdown links dropped, whitespace collapsed, and text over
    `limit` characters cut at a sentence end (or a word) before it."""
    text = re.sub(r"<[^>]+>", " ", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", html.unescape(text))
    text = " ".join(text.replace("`", "").replace("**", "").split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    end = max(head.rfind(". "), head.rfind("? "), head.rfind("! "))
    if end >= limit // 3:
        return head[: end + 1]
    return head.rsplit(" ", 1)[0].rstrip(",;:") + "..."


def _portable(schema: dict[str, Any]) -> dict[str, Any]:
    return portable_schema(schema, lambda text: clean_text(text, MAX_FIELD_DESCRIPTION))


def _tool_name(slug: str, label: str) -> str:
    """`<api>_<operation>`, without repeating the API's name when the operationId starts
    with it (Google's `gmail.users.messages.list`)."""
    operation = normalise_name(label)
    if operation == slug or operation.startswith(f"{slug}_"):
        return normalise_name(operation)
    tail = slug.rsplit("_", 1)[-1]
    if operation.startswith(f"{tail}_"):
        operation = operation[len(tail) + 1 :]
    return normalise_name(slug, operation)


def _side_effect(method: str) -> SideEffect:
    """A DELETE cannot be undone by the agent; other writes can be corrected by another call."""
    return "irreversible" if method == "delete" else method_side_effect(method)


def _escape(route: str) -> str:
    return route.replace("~", "~0").replace("/", "~1")


def read_document(path: Path) -> Any:
    """Raw JSON, without the located errors of `read_structured`: a broken file in a
    directory of thousands is one rejection, not a stop."""
    return json.loads(path.read_bytes())
