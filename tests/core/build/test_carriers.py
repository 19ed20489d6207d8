"""The planner's carrier workflows worked out over forked processes are the ones it would find
itself, each remembered for its own domain."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from pipeline.core.build.carriers import plan_carriers
from pipeline.core.generation import feasibility
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.spec import ReleaseSpec

DOMAINS = ("email_calendar", "brokerage", "ecommerce")


def test_carriers_from_two_processes_are_each_domains_own(
    inputs: Inputs, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy of the pool has another identity, so the memo has seen none of its answers.
    fresh = dataclasses.replace(inputs, pool=pickle.loads(pickle.dumps(inputs.pool)))
    monkeypatch.setenv("ATBENCH_PROCESSES", "2")
    before = len(feasibility._CARRIERS)
    plan_carriers(ReleaseSpec(size=12, domains=DOMAINS), fresh)
    assert len(feasibility._CARRIERS) == before + len(DOMAINS)
    for domain in DOMAINS:
        seed = inputs.seeds[domain]
        remembered = feasibility.carrier_workflows(seed, fresh.pool)
        assert remembered == feasibility.carrier_workflows(seed, inputs.pool)
        assert set(remembered) <= {w.id for w in seed.workflows}
    differing = {tuple(feasibility.carrier_workflows(inputs.seeds[d], fresh.pool)) for d in DOMAINS}
    assert len(differing) == len(DOMAINS)  # no domain was handed another's answer
