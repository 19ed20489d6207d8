"""Assigning imported OpenAPI operations to domains by a reviewable mapping file.

The mapping (`tool_pool/openapi_domains.toml`) lists, per domain, keywords to look for in an
operation's and its API's text, and which domains the directory's categories point to; its
header explains the scoring. It is checked against the domain ids before any document is read,
so a typo or a forgotten domain is an error naming it.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Collection, Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from pipeline.core.inputs.files import validate_model
from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.common import category_key

MAPPING_NAME = "openapi_domains.toml"
"""File name of the mapping inside a pool directory."""
OPERATION_WEIGHT = 3
API_WEIGHT = 1
CATEGORY_WEIGHT = 2
MAX_SECONDARY = 2
"""Further domains a tool may join when its own text names them (a drug-interaction lookup
in a health-record API is a pharmacy tool too)."""


class DomainMapping(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    categories: dict[str, tuple[str, ...]]
    """Directory category -> domains it suggests."""
    keywords: dict[str, tuple[str, ...]]
    """Domain -> words or phrases that place an operation there, in tie-break order."""
    apis: dict[str, tuple[str, ...]] = {}
    """Provider or document (`stripe.com`, `googleapis.com/drive`) -> the only domains its
    operations may join, where its text misleads the keywords; empty: the API serves none."""


class DomainScorer:
    """Scores text against every domain's keywords with one regular-expression scan."""

    def __init__(self, mapping: DomainMapping) -> None:
        self.order = {domain: rank for rank, domain in enumerate(mapping.keywords)}
        self.categories = {category_key(k): v for k, v in mapping.categories.items()}
        self.apis = mapping.apis
        self.domains_of: dict[str, set[str]] = {}
        for domain, words in mapping.keywords.items():
            for word in words:
                self.domains_of.setdefault(_plain(word), set()).add(domain)
        alternatives = sorted(self.domains_of, key=lambda word: (-len(word), word))
        self.pattern = re.compile(
            r"\b(" + "|".join(re.escape(word) for word in alternatives) + r")(?:e?s)?\b"
        )

    def hits(self, text: str) -> dict[str, int]:
        """Distinct keywords found in `text`, counted per domain."""
        found = {match.group(1) for match in self.pattern.finditer(_plain(text))}
        counts: dict[str, int] = {}
        for word in found:
            for domain in self.domains_of[word]:
                counts[domain] = counts.get(domain, 0) + 1
        return counts

    def category_domains(self, categories: Iterable[str]) -> set[str]:
        return {
            d for category in categories for d in self.categories.get(category_key(category), ())
        }

    def fixed_domains(self, document: str) -> set[str] | None:
        """The domains the mapping fixes for a document (its own entry, else its
        provider's), or None when it leaves them to the scores."""
        for key in (document, document.split("/", 1)[0]):
            if key in self.apis:
                return set(self.apis[key])
        return None

    def rank(
        self, operation_hits: dict[str, int], api_hits: dict[str, int], suggested: set[str]
    ) -> dict[str, int]:
        """The domains an operation belongs to, with their scores, best first: the winner,
        then up to MAX_SECONDARY others its own text names. Empty when no domain scores."""
        scores = {
            domain: OPERATION_WEIGHT * operation_hits.get(domain, 0)
            + API_WEIGHT * api_hits.get(domain, 0)
            + CATEGORY_WEIGHT * (domain in suggested)
            for domain in self.order
        }
        ordered = sorted(scores, key=lambda d: (-scores[d], self.order[d]))
        if scores[ordered[0]] == 0:
            return {}
        others = [d for d in ordered[1:] if operation_hits.get(d)][:MAX_SECONDARY]
        return {domain: scores[domain] for domain in (ordered[0], *others)}


def _plain(text: str) -> str:
    """Lower case, with camelCase split and anything but letters and digits as one space."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def load_domain_mapping(path: Path, domains: Collection[str]) -> DomainMapping:
    """The mapping file, checked against the known `domains`."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror}", file=path) from None
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"invalid TOML: {err}", file=path) from None
    mapping = validate_model(DomainMapping, data, file=path)
    unknown = sorted(set(mapping.keywords) - set(domains))
    if unknown:
        raise InputError("not a domain (no seed file has this id)", file=path, record=unknown[0])
    for section, table in (("categories", mapping.categories), ("apis", mapping.apis)):
        for key, listed in table.items():
            for domain in listed:
                if domain not in domains:
                    raise InputError(
                        f"not a domain: {domain!r}", file=path, record=key, field=section
                    )
    for domain in sorted(domains):
        if not mapping.keywords.get(domain):
            raise InputError(
                "domain has no keywords, so no tool could be assigned to it",
                file=path,
                record=domain,
                field="keywords",
            )
    return mapping
