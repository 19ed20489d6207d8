"""What every importer shares: the rejection record, the collector, names and categories."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, ValidationError

from pipeline.core.inputs.tool_pool import SideEffect, Tool

MAX_NAME_LENGTH = 64
"""OpenAI-compatible endpoints reject function names longer than this, so imported names fit."""

DEFAULT_DOMAIN = "web_research"
"""Domain of imported tools whose category says nothing about where they belong."""

CATEGORY_DOMAINS: dict[str, tuple[str, ...]] = {
    # ToolBench (RapidAPI) categories
    "logistics": ("logistics",),
    "transportation": ("logistics",),
    "travel": ("travel_booking",),
    "location": ("travel_booking",),
    "mapping": ("travel_booking",),
    "finance": ("personal_banking", "brokerage"),
    "financial": ("personal_banking", "brokerage"),
    "payments": ("payments_invoicing",),
    "ecommerce": ("ecommerce",),
    "commerce": ("ecommerce",),
    "email": ("email_calendar",),
    "communication": ("workplace_chat",),
    "sms": ("workplace_chat",),
    "storage": ("cloud_storage",),
    "database": ("database_admin",),
    "cybersecurity": ("security_operations",),
    "cryptography": ("security_operations",),
    "medical": ("healthcare_records",),
    "health_and_fitness": ("telehealth",),
    "devices": ("smart_home",),
    "energy": ("industrial_iot",),
    "monitoring": ("devops_cloud",),
    "social": ("social_media",),
    "jobs": ("hr_recruiting",),
    "education": ("education_lms",),
    "business_software": ("customer_support_crm",),
    "weather": ("personal_assistant",),
    # ToolAlpaca (public-apis) categories
    "anti_malware": ("security_operations",),
    "security": ("security_operations",),
    "authentication_authorization": ("security_operations",),
    "blockchain": ("crypto_wallet",),
    "cryptocurrency": ("crypto_wallet",),
    "currency_exchange": ("brokerage",),
    "calendar": ("email_calendar",),
    "cloud_storage_file_sharing": ("cloud_storage",),
    "continuous_integration": ("code_repository_ci",),
    "development": ("code_repository_ci",),
    "programming": ("code_repository_ci",),
    "open_source_projects": ("code_repository_ci",),
    "documents_productivity": ("personal_assistant",),
    "government": ("government_services",),
    "health": ("healthcare_records",),
    "shopping": ("ecommerce",),
    "tracking": ("logistics",),
    "vehicle": ("automotive_fleet",),
    "patent": ("legal_documents",),
    "geocoding": ("travel_booking",),
}
"""Source category (normalised like a name) -> our domain ids; unlisted ones get DEFAULT_DOMAIN."""

HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_SAFE_METHODS = {"get", "head", "options", "trace"}
"""RFC 9110 safe methods: they read state, so the tool has no side effect."""


class Rejection(BaseModel):
    """An input record that did not become a tool, and why."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: str
    """Position in the input file, e.g. `4.api_list.2` or `3.paths./report.post`."""
    original_name: str | None
    field: str | None
    """Source field at fault; None when the record as a whole is the problem."""
    reason: str


class ImportResult(NamedTuple):
    tools: list[Tool]
    rejections: list[Rejection]


class Rejected(Exception):
    """Raised while mapping one record; the collector turns it into a `Rejection`."""

    def __init__(self, field: str | None, reason: str) -> None:
        super().__init__(reason)
        self.field = field
        self.reason = reason


class Collector:
    def __init__(self) -> None:
        self.tools: list[Tool] = []
        self.rejections: list[Rejection] = []

    def add(self, record: str, original_name: str | None, build: Callable[[], Tool]) -> None:
        try:
            self.tools.append(build())
        except Rejected as err:
            self.reject(record, original_name, err.field, err.reason)

    def reject(
        self, record: str, original_name: str | None, field: str | None, reason: str
    ) -> None:
        self.rejections.append(
            Rejection(record=record, original_name=original_name, field=field, reason=reason)
        )

    def result(self) -> ImportResult:
        return ImportResult(self.tools, self.rejections)


def normalise_name(*parts: str) -> str:
    """snake_case pool name from source names ('' if nothing usable is left).

    Accents are folded, camelCase is split, other characters become `_`; a leading digit gets a
    `tool_` prefix and names over MAX_NAME_LENGTH keep a hash suffix so they stay distinct.
    """
    text = unicodedata.normalize("NFKD", " ".join(parts)).encode("ascii", "ignore").decode()
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", text)
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", text)
    name = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    if name[:1].isdigit():
        name = f"tool_{name}"
    if len(name) > MAX_NAME_LENGTH:
        digest = hashlib.sha1(name.encode()).hexdigest()[:8]
        name = f"{name[: MAX_NAME_LENGTH - 9].rstrip('_')}_{digest}"
    return name


def category_key(category: object) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(category or "").lower()).strip("_")


def category_domains(category: object) -> tuple[str, ...]:
    return CATEGORY_DOMAINS.get(category_key(category), (DEFAULT_DOMAIN,))


def method_side_effect(method: str) -> SideEffect:
    return "none" if method.lower() in _SAFE_METHODS else "reversible"


def required_text(record: Mapping[str, Any], key: str, field: str | None = None) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise Rejected(field or key, f"missing or empty {key}")
    return value.strip()


def make_tool(fields: Mapping[str, str], **values: Any) -> Tool:
    """Build the tool, reporting a model error against the source field it came from."""
    try:
        return Tool(**values)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        loc = [str(part) for part in first["loc"]]
        field = fields.get(loc[0], ".".join(loc)) if loc else None
        raise Rejected(field, first["msg"]) from None


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
