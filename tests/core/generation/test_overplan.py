"""Over-planning: each domain's share of the release, plus the selection margin, divided by
the share of its pairs it was measured to keep."""

from pipeline.core.generation.overplan import (
    MAX_LOSS,
    MEASURED_LOSS,
    pair_slots,
    planned_pairs,
    release_shares,
)
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.spec import ReleaseSpec


def test_a_lossy_domain_is_planned_more() -> None:
    lossy = max(MEASURED_LOSS, key=lambda d: MEASURED_LOSS[d])
    assert planned_pairs(10, "no_such_domain", 0.0) == 10
    assert planned_pairs(10, "no_such_domain", 0.2) == 12
    assert planned_pairs(10, lossy, 0.2) > 12
    assert planned_pairs(10, lossy, 0.2) <= round(12 / (1 - MAX_LOSS))


def test_release_shares_split_evenly_and_sum_to_the_total() -> None:
    shares = release_shares(500, ("a", "b", "c"), seeded_rng(0, "plan"))
    assert sum(shares.values()) == 500
    assert max(shares.values()) - min(shares.values()) <= 1


def test_every_domain_is_planned_at_least_its_share_and_margin(inputs: Inputs) -> None:
    spec = ReleaseSpec(size=1000, domains=tuple(sorted(inputs.seeds)))
    slots = pair_slots(spec, seeded_rng(spec.seed, "plan"))
    base = spec.n_pairs // len(spec.domains)
    assert all(n >= base * (1 + spec.overplan) for n in slots.values())
    assert sum(slots.values()) < 2 * spec.n_pairs  # a bounded cost, not a doubled build
