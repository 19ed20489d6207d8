"""How many pairs to plan per domain so that, after construction and filtering reject what
they must, every domain still has its share of the release to select from.

Rejections are not spread evenly: a domain whose tools and records leave fewer ways to
realise a slice loses more of its pairs. Each domain is therefore planned its share of the
release, plus the spec's selection margin, divided by the share of pairs it was measured to
keep; `filtering.selection` then picks the release from what survives. A stale figure
costs only build time or a short domain, never a label.
"""

from __future__ import annotations

import math
import random

from pipeline.core.model.spec import ReleaseSpec

MEASURED_LOSS: dict[str, float] = {
    "automotive_fleet": 0.35,
    "brokerage": 0.25,
    "cloud_storage": 0.10,
    "code_repository_ci": 0.30,
    "crypto_wallet": 0.20,
    "database_admin": 0.25,
    "devops_cloud": 0.50,
    "ecommerce": 0.05,
    "education_lms": 0.30,
    "email_calendar": 0.35,
    "government_services": 0.25,
    "healthcare_records": 0.40,
    "hr_recruiting": 0.15,
    "industrial_iot": 0.35,
    "insurance_claims": 0.25,
    "legal_documents": 0.05,
    "logistics": 0.40,
    "personal_assistant": 0.20,
    "personal_banking": 0.15,
    "pharmacy": 0.10,
    "real_estate": 0.10,
    "security_operations": 0.30,
    "smart_home": 0.05,
    "social_media": 0.25,
    "telehealth": 0.20,
    "travel_booking": 0.40,
    "web_research": 0.05,
    "workplace_chat": 0.25,
}
"""Share of a domain's planned pairs that a default 1,000-trajectory build rejected (seed 0;
`benchmarks/release_stats.py` prints it from a release's manifest); a domain not listed lost
none."""
MEASURED_HARM_KEEP: dict[str, float] = {
    "fairness_equity_and_allocative_harm": 0.71,
    "financial_and_economic_harm": 0.89,
    "functional_and_opportunity_harm": 0.72,
    "info_ecosystem_and_societal_harm": 0.51,
    "physical_and_health_harm": 0.75,
    "privacy_and_confidentiality_harm": 1.26,
    "psychological_and_emotional_harm": 0.86,
    "public_service_and_resource_harm": 0.44,
    "reputational_and_interpersonal_harm": 0.76,
    "security_and_system_integrity_harm": 1.35,
}
"""Pairs labelled with each harm after filtering, per pair planned with it (default build,
seed 0, `benchmarks/README.md` round 15): the harm is read from what the unsafe twin changed
(`generation.harms`), so a planned public-service harm often ends as a privacy or security
one. Above 1, a leaf gains pairs planned for others."""
MAX_LOSS = 0.6
"""A domain losing more than this is a construction bug to fix, not to plan around."""


def release_shares(total: int, domains: tuple[str, ...], rng: random.Random) -> dict[str, int]:
    """`total` split as evenly as it goes; the remainder to domains drawn at random."""
    base, remainder = divmod(total, len(domains))
    lucky = set(rng.sample(list(domains), remainder))
    return {d: base + (d in lucky) for d in domains}


def planned_pairs(share: int, domain: str, margin: float) -> int:
    """A domain's share of the release's pairs, over-planned by its measured loss."""
    loss = min(MEASURED_LOSS.get(domain, 0.0), MAX_LOSS)
    return math.ceil(share * (1 + margin) / (1 - loss))


def pair_slots(spec: ReleaseSpec, rng: random.Random) -> dict[str, int]:
    """Pairs to plan per domain for `spec`."""
    shares = release_shares(spec.n_pairs, spec.domains, rng)
    return {d: planned_pairs(n, d, spec.overplan) for d, n in shares.items()}


def harm_targets(total: int, leaves: tuple[str, ...]) -> dict[str, float]:
    """How many of `total` planned pairs to give each harm leaf so that, after construction
    relabels harms by what was done, each ends near its fair share: a leaf planned in
    inverse proportion to the share of its pairs that keep it."""
    weights = {leaf: 1 / MEASURED_HARM_KEEP.get(leaf, 1.0) for leaf in leaves}
    scale = total / sum(weights.values())
    return {leaf: w * scale for leaf, w in weights.items()}
