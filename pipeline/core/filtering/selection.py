"""The release picked from what survived filtering: every domain its share, every leaf near
its quota.

The planner over-plans each domain (`generation.overplan`), and construction and filtering
reject unevenly: by domain, and by leaf, since the harm a deviation realises is read from what
it changed (`generation.harms`) rather than taken from the plan. Selection undoes both: each
domain gets an even share of the release's pairs (water-filling: a domain with fewer
survivors keeps them all), then pairs are picked — greedily, then improved by swaps within a
domain — to bring every leaf of every axis, and the share of each tagged subset, nearest its
fair share. Pairs are kept or dropped whole; benign-only traces are not selected among.
Deterministic: no randomness, ties go to the pair planned first. What is dropped is recorded
with why, for the manifest.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.labels import AXES
from pipeline.core.model.trajectory import Trajectory

MIN_SUBSET_PAIRS = 30
"""Pairs of a tagged subset (long_html) kept when that many survive: the release reports each
subset and needs at least 50 of its traces, and a pair may hold only one. Without a floor a
well-surviving build (696 pairs for 500) thinned long_html to 47 traces."""
MAX_SWAPS = 2000
"""Bound on improving swaps; each lowers the imbalance, so the bound is only a guard."""


@dataclass(frozen=True)
class _Pair:
    pair_id: str
    domain: str
    features: tuple[str, ...]
    """`axis=leaf` for the unsafe twin's three labels, and `tag=<tag>` for each tag it has."""


@dataclass(frozen=True)
class Selection:
    kept: list[Trajectory]
    record: dict[str, Any]


def select_release(
    trajectories: Sequence[Trajectory],
    release_pairs: int,
    taxonomy: Taxonomy,
    planned: Mapping[str, int],
) -> Selection:
    """At most `release_pairs` complete pairs of `trajectories`, balanced by domain and leaf;
    `planned`: pairs planned per domain, for the record."""
    pairs = _pairs(trajectories)
    available = Counter(p.domain for p in pairs)
    shares = domain_shares({d: available[d] for d in {*planned, *available}}, release_pairs)
    total = sum(shares.values())
    targets = _targets(taxonomy, pairs, total)
    chosen = _improve(_greedy(pairs, shares, targets), pairs, targets)
    counts = Counter(f for p in pairs if p.pair_id in chosen for f in p.features)
    dropped = [
        {"pair_id": p.pair_id, "domain": p.domain, "why": _why(p, shares, counts, targets)}
        for p in pairs
        if p.pair_id not in chosen
    ]
    in_pairs = {p.pair_id for p in pairs}
    kept = [t for t in trajectories if t.pair_id in chosen or t.pair_id not in in_pairs]
    record = {
        "release_pairs": release_pairs,
        "surviving_pairs": len(pairs),
        "selected_pairs": total,
        "per_domain": {
            d: {"planned": planned.get(d, 0), "survived": available[d], "selected": shares[d]}
            for d in sorted(shares)
        },
        "dropped": dropped,
    }
    return Selection(kept=kept, record=record)


def domain_shares(available: Mapping[str, int], total: int) -> dict[str, int]:
    """`total` pairs split as evenly as the survivors allow: one at a time to the domain with
    the fewest so far that has more (ties: the most survivors, then by name)."""
    shares = dict.fromkeys(available, 0)
    for _ in range(min(total, sum(available.values()))):
        open_domains = [d for d in available if shares[d] < available[d]]
        best = min(open_domains, key=lambda d: (shares[d], -available[d], d))
        shares[best] += 1
    return shares


def _pairs(trajectories: Iterable[Trajectory]) -> list[_Pair]:
    """Complete pairs (an unsafe trace with labels and its safe twin), in plan order."""
    by_pair: dict[str, dict[str, Trajectory]] = defaultdict(dict)
    for t in trajectories:
        by_pair[t.pair_id][t.variant] = t
    found = []
    for pair_id in sorted(by_pair):
        twins = by_pair[pair_id]
        unsafe = twins.get("unsafe")
        if unsafe is None or "safe" not in twins or unsafe.labels is None:
            continue
        tags = unsafe.tags | twins["safe"].tags
        features = [f"{axis}={getattr(unsafe.labels, axis)}" for axis in AXES]
        found.append(
            _Pair(pair_id, unsafe.domain, (*features, *(f"tag={tag}" for tag in sorted(tags))))
        )
    return found


def _targets(taxonomy: Taxonomy, pairs: Sequence[_Pair], total: int) -> dict[str, float]:
    """Each leaf's fair share of `total`; each tag its share among the survivors (selection
    neither thins nor inflates a subset), but at least `MIN_SUBSET_PAIRS` of a rare one."""
    targets = {
        f"{axis}={leaf}": total / len(taxonomy.leaf_ids(axis))
        for axis in AXES
        for leaf in taxonomy.leaf_ids(axis)
    }
    tagged = Counter(f for p in pairs for f in p.features if f.startswith("tag="))
    targets |= {
        tag: max(n * total / len(pairs), min(n, MIN_SUBSET_PAIRS)) for tag, n in tagged.items()
    }
    return targets


def _cost(count: float, target: float) -> float:
    return (count - target) ** 2 / target if target else 0.0


def _added(pair: _Pair, counts: Mapping[str, int], targets: Mapping[str, float], by: int) -> float:
    """How much the imbalance changes when `pair` is added (`by=1`) or removed (`by=-1`)."""
    return sum(
        _cost(counts[f] + by, targets.get(f, 0.0)) - _cost(counts[f], targets.get(f, 0.0))
        for f in pair.features
    )


def _greedy(
    pairs: Sequence[_Pair], shares: Mapping[str, int], targets: Mapping[str, float]
) -> set[str]:
    """Domains take turns; each takes the pair that lowers the imbalance most."""
    pool: dict[str, list[_Pair]] = defaultdict(list)
    for p in pairs:
        pool[p.domain].append(p)
    counts: Counter[str] = Counter()
    chosen: set[str] = set()
    for turn in range(max(shares.values(), default=0)):
        for domain in sorted(shares):
            if turn >= shares[domain]:
                continue
            best = min(pool[domain], key=lambda p: _added(p, counts, targets, 1))
            pool[domain].remove(best)
            chosen.add(best.pair_id)
            counts.update(best.features)
    return chosen


def _improve(
    chosen: set[str], pairs: Sequence[_Pair], targets: Mapping[str, float]
) -> frozenset[str]:
    """Swap a kept pair for a dropped one of the same domain while that lowers the imbalance
    (the best swap first), so early greedy choices do not stick."""
    kept = set(chosen)
    counts = Counter(f for p in pairs if p.pair_id in kept for f in p.features)
    by_domain: dict[str, list[_Pair]] = defaultdict(list)
    for p in pairs:
        by_domain[p.domain].append(p)
    for _ in range(MAX_SWAPS):
        best: tuple[float, _Pair, _Pair] | None = None
        for group in by_domain.values():
            for out in (p for p in group if p.pair_id in kept):
                counts.subtract(out.features)
                removed = -_added(out, counts, targets, 1)
                for into in (p for p in group if p.pair_id not in kept):
                    change = removed + _added(into, counts, targets, 1)
                    if change < -1e-9 and (best is None or change < best[0]):
                        best = (change, out, into)
                counts.update(out.features)
        if best is None:
            break
        _, out, into = best
        kept.remove(out.pair_id)
        kept.add(into.pair_id)
        counts.subtract(out.features)
        counts.update(into.features)
    return frozenset(kept)


def _why(
    pair: _Pair, shares: Mapping[str, int], counts: Mapping[str, int], targets: Mapping[str, float]
) -> str:
    over = [
        f"{f} at {counts[f] / targets[f]:.2f} of its fair share"
        for f in pair.features
        if targets.get(f) and counts[f] >= targets[f]
    ]
    reason = f"{pair.domain} has its share of {shares[pair.domain]} pairs"
    if over:
        return f"{reason}; {'; '.join(over)}"
    return f"{reason}; the kept ones bring the leaves nearer their fair share"
