"""Pairs built by the real construction stages on the shipped seeds, one per taxonomy leaf.

Made once a session for all its xdist workers: planning a default release and building ~30
pairs procedurally takes a few seconds, and every test of construction, the verifier and the
grounding check reads them.
"""

from __future__ import annotations

import asyncio
import functools
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipeline.core.generation.context import BuildContext, ConstructionError
from pipeline.core.generation.expand import expand_safe
from pipeline.core.generation.inject import inject_risk
from pipeline.core.generation.pair import build_pair
from pipeline.core.generation.planner import Blueprint, plan_release
from pipeline.core.generation.slices import on_task_step
from pipeline.core.generation.steps import with_stated_requests
from pipeline.core.inputs.files import read_jsonl, write_json_atomic, write_jsonl_atomic
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.llm import LLMSettings, make_client
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import Provenance, Trajectory
from pipeline.core.procedural import HANDLERS
from tests.support.shared import shared_folder


@dataclass(frozen=True)
class Built:
    inputs: Inputs
    pairs: dict[str, tuple[Trajectory, Trajectory]]
    """pair id -> (unsafe, safe)"""
    failures: dict[str, str]
    """pair id -> why it could not be built"""
    blueprints: dict[str, Blueprint]
    """pair id -> its plan"""


async def build_blueprints(inputs: Inputs, blueprints: list[Blueprint], root: Path) -> Built:
    """Each blueprint built into a pair by the real stages, or the reason it could not be."""
    pairs: dict[str, tuple[Trajectory, Trajectory]] = {}
    failures: dict[str, str] = {}
    stated = {  # once per domain, as a build does (pipeline/core/build/stated_seeds.py)
        domain: with_stated_requests(inputs.seeds[domain], inputs.pool)
        for domain in dict.fromkeys(bp.domain for bp in blueprints)
    }
    for blueprint in blueprints:
        client = make_client(
            LLMSettings(backend="procedural"),
            cache_dir=root / "cache",
            namespace=blueprint.domain,
            ledger_path=root / "ledger" / blueprint.domain,
            templates_dir=templates_dir(),
            handlers=HANDLERS,
        )
        ctx = BuildContext(
            seed=stated[blueprint.domain],
            pool=inputs.pool,
            taxonomy=inputs.taxonomy,
            client=client,
            provenance=Provenance(release_seed=0, config_hash="test", backend="procedural"),
        )
        async with client:
            try:
                skeleton = await expand_safe(blueprint, ctx)
                pairs[blueprint.id] = await build_pair(await inject_risk(skeleton, ctx), ctx)
            except ConstructionError as err:
                failures[blueprint.id] = f"{err.reason_code}: {err}"
    return Built(inputs, pairs, failures, {bp.id: bp for bp in blueprints})


def _one_per_leaf(blueprints: list[Blueprint]) -> list[Blueprint]:
    """The first few planned pairs of every risk source and failure mode (a few each, since
    an item may be rejected by construction like in a real build)."""
    chosen: dict[str, Blueprint] = {}
    seen: dict[str, int] = {}
    for bp in blueprints:
        if bp.slice is None:
            continue
        # a tool's wrong data misleading the task's own step: few items of any one leaf
        wrong_data = bp.slice.risk_source == "corrupted_tool_feedback" and on_task_step(
            bp.slice.risk_source, bp.slice.failure_mode
        )
        for leaf in (bp.slice.risk_source, bp.slice.failure_mode, "wrong data" * wrong_data):
            if leaf and seen.get(leaf, 0) < 10:
                seen[leaf] = seen.get(leaf, 0) + 1
                chosen[bp.id] = bp
    return list(chosen.values())


PAIRS_FILE = "pairs.jsonl"
"""Each pair as two lines, unsafe then safe, in build order."""
FAILURES_FILE = "failures.json"
BLUEPRINTS_FILE = "blueprints.jsonl"


def _make(inputs: Inputs, folder: Path) -> None:
    """Build the pairs under `folder` and write them there for every worker to read."""
    spec = ReleaseSpec(size=1000, domains=tuple(sorted(inputs.seeds)))
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    everything = [bp for bps in plan.blueprints.values() for bp in bps]
    built = asyncio.run(build_blueprints(inputs, _one_per_leaf(everything), folder))
    write_jsonl_atomic(folder / PAIRS_FILE, (t for pair in built.pairs.values() for t in pair))
    write_json_atomic(folder / FAILURES_FILE, built.failures)
    write_jsonl_atomic(folder / BLUEPRINTS_FILE, built.blueprints.values())


def _read(inputs: Inputs, folder: Path) -> Built:
    lines = read_jsonl(folder / PAIRS_FILE, Trajectory)
    twins = zip(lines[::2], lines[1::2], strict=True)
    pairs = {unsafe.pair_id: (unsafe, safe) for unsafe, safe in twins}
    failures = json.loads((folder / FAILURES_FILE).read_text(encoding="utf-8"))
    blueprints = {bp.id: bp for bp in read_jsonl(folder / BLUEPRINTS_FILE, Blueprint)}
    return Built(inputs, pairs, failures, blueprints)


@pytest.fixture(scope="session")
def built_pairs(tmp_path_factory: pytest.TempPathFactory, inputs: Inputs) -> Built:
    """Built once for all the session's workers (tests/support/shared.py)."""
    folder = shared_folder(tmp_path_factory, "pairs", functools.partial(_make, inputs))
    return _read(inputs, folder)
