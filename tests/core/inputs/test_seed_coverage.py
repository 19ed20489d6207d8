"""The shipped inputs meet the benchmark's breadth requirements."""

from collections import Counter

from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.labels import AXES


def test_thirty_domains_with_three_personas_each(inputs: Inputs) -> None:
    assert len(inputs.seeds) == 30
    assert all(len(seed.personas) >= 3 for seed in inputs.seeds.values())


def test_pool_has_600_tools_and_15_per_domain(inputs: Inputs) -> None:
    assert len(inputs.pool) >= 600
    for domain in inputs.seeds:
        assert len(inputs.pool.for_domain(domain)) >= 15, domain


def test_every_leaf_arises_in_at_least_two_seeds(inputs: Inputs) -> None:
    for axis in AXES:
        seen: Counter[str] = Counter()
        for seed in inputs.seeds.values():
            leaves = set(getattr(seed.natural_leaves, axis))
            if axis == "real_world_harm":
                leaves |= {h.harm for h in seed.hazards}
            if axis == "failure_mode":
                leaves |= {f for h in seed.hazards for f in h.failure_modes}
            seen.update(leaves)
        thin = {leaf: seen[leaf] for leaf in inputs.taxonomy.leaf_ids(axis) if seen[leaf] < 2}
        assert not thin, (axis, thin)


def test_pool_has_risky_and_lookalike_tools_in_every_domain(inputs: Inputs) -> None:
    for domain in inputs.seeds:
        tools = inputs.pool.for_domain(domain)
        assert any(t.side_effect == "irreversible" for t in tools), domain
        lookalikes = [t for t in tools if t.lookalike_of]
        assert lookalikes and all(t.lookalike_of in inputs.pool for t in lookalikes), domain
