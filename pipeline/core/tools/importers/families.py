"""Resource families of an OpenAPI document, and the domains a whole API belongs to.

An agent's task over a real API reads a listing, opens one record of it, then changes it: the
operations on one resource (`GET /orders`, `GET /orders/{id}`, `POST /orders`,
`PATCH /orders/{id}`). The import keeps such families whole instead of the best-scoring
operations scattered over an API, and places an API by what most of its operations are about,
so one Stripe operation that mentions an "agreement" does not land among legal documents.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping

API_SHARE = 0.3
"""A domain an API belongs to scores at least this share of its best domain's total."""
MAX_API_DOMAINS = 3
OWN_OPERATIONS = 3
OWN_SHARE = 0.05
"""OWN_OPERATIONS operations of an API, and at least OWN_SHARE of them, whose own best
domain is one make it a domain of the API too (the medication resources of a health-record
API are pharmacy's; a few stray words in a game's thousand operations are not)."""
MAX_FAMILY = 6
"""Operations kept of one resource: list, search, get, create, update and one more."""

_VERSION = re.compile(r"^v\d+(\.\d+)*$|^api$|^rest$", re.I)


def resource_of(route: str) -> str:
    """The collection a path works on: `/v1/orders`, `/v1/orders/{id}` and
    `/v1/orders/{id}/cancel` -> `orders`; `/shops/{id}/orders` -> `orders`."""
    parts = [p for p in route.split("/") if p and not _VERSION.match(p)]
    literal = [i for i, p in enumerate(parts) if not p.startswith("{")]
    if not literal:
        return ""
    last = literal[-1]
    # an action on a record (`/orders/{id}/cancel`) belongs to the record's collection
    if last > 0 and parts[last - 1].startswith("{") and not parts[last].lower().endswith("s"):
        earlier = [i for i in literal if i < last]
        if earlier:
            last = earlier[-1]
    return parts[last].lower()


def api_domains(fits: Iterable[Mapping[str, int]]) -> set[str]:
    """The domains an API belongs to: those its operations together score best for, each at
    least API_SHARE of the best, at most MAX_API_DOMAINS; and any that enough of its
    operations score best for (OWN_OPERATIONS, OWN_SHARE)."""
    totals: Counter[str] = Counter()
    firsts: Counter[str] = Counter()
    operations = list(fits)
    for scores in operations:
        totals.update(scores)
        if scores:
            firsts[max(scores, key=lambda d: scores[d])] += 1
    if not totals:
        return set()
    best = max(totals.values())
    ranked = [d for d, total in totals.most_common() if total >= API_SHARE * best]
    return set(ranked[:MAX_API_DOMAINS]) | {
        d for d, n in firsts.items() if n >= max(OWN_OPERATIONS, OWN_SHARE * len(operations))
    }
