"""The shipped inputs meet the benchmark's breadth requirements."""

from collections import Counter
from datetime import date

from pipeline.core.generation.dates import spoken_days
from pipeline.core.generation.world import build_world
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


def test_false_reports_are_written_on_or_before_the_scenarios_today(inputs: Inputs) -> None:
    """A report dated after the session's today gives itself away (auditors: 'a 7 Nov
    e-mail, future-dated'); the day before its first ': ' is when it was written."""
    late = {}
    for seed in inputs.seeds.values():
        today = date.fromisoformat(build_world(seed).today)
        for hazard in seed.hazards:
            head = hazard.claim.partition(": ")[0]
            written = [day for _, day, _ in spoken_days(head, today) if day > today]
            if hazard.claim and written:
                late[f"{seed.id}.{hazard.id}"] = f"{written[0]} > {today}"
    assert not late, late
