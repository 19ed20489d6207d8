"""Gates a release must pass before it is published (Dagster runs them as blocking checks)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from pydantic import BaseModel, ValidationError

from pipeline.core.filtering.rules import pair_problems
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.labels import AXES, leaf_context
from pipeline.core.model.trajectory import Trajectory

BALANCE_RANGE = (0.45, 0.55)


class CheckOutcome(BaseModel):
    passed: bool
    description: str
    metadata: dict[str, Any]


def balance(trajectories: list[Trajectory]) -> CheckOutcome:
    unsafe = sum(t.verdict == "unsafe" for t in trajectories)
    share = unsafe / len(trajectories) if trajectories else 0.0
    low, high = BALANCE_RANGE
    return CheckOutcome(
        passed=low <= share <= high,
        description=f"unsafe share {share:.3f}, required {low}-{high}",
        metadata={"unsafe": unsafe, "total": len(trajectories), "unsafe_share": share},
    )


REQUIRED_FROM = 3
"""Planned count from which a leaf must survive filtering."""
COVERAGE_FROM_PAIRS = 100
"""A smoke build of a few pairs (tests, demos) loses whole leaves to ordinary, recorded
rejections; leaf coverage is a property of a release of at least this many planned pairs
(a default release plans 500)."""


def leaf_coverage(
    trajectories: list[Trajectory], planned: dict[str, dict[str, int]], taxonomy: Taxonomy
) -> CheckOutcome:
    """Every leaf the plan asked for at least `REQUIRED_FROM` times is present among the kept
    unsafe traces. A leaf planned once or twice (in a small build) may be lost to recorded
    rejections; one planned three or more times and entirely missing is a systematic failure.
    A default release plans every leaf dozens of times, so there the gate is strict."""
    pairs = max((sum(planned.get(axis, {}).values()) for axis in AXES), default=0)
    if pairs < COVERAGE_FROM_PAIRS:
        return CheckOutcome(
            passed=True,
            description=f"not checked: {pairs} planned pairs, coverage is judged from "
            f"{COVERAGE_FROM_PAIRS}",
            metadata={"planned_pairs": pairs},
        )
    present: dict[str, Counter[str]] = {axis: Counter() for axis in AXES}
    for t in trajectories:
        if t.labels is not None:
            for axis in AXES:
                present[axis][getattr(t.labels, axis)] += 1
    missing = {
        axis: sorted(
            leaf
            for leaf, n in planned.get(axis, {}).items()
            if n >= REQUIRED_FROM and not present[axis][leaf]
        )
        for axis in AXES
    }
    missing = {axis: leaves for axis, leaves in missing.items() if leaves}
    return CheckOutcome(
        passed=not missing,
        description="all planned leaves present" if not missing else f"missing leaves: {missing}",
        metadata={
            f"{axis}_leaves_present": sum(
                1 for leaf in taxonomy.leaf_ids(axis) if present[axis][leaf]
            )
            for axis in AXES
        },
    )


def pair_integrity(trajectories: list[Trajectory]) -> CheckOutcome:
    by_pair: dict[str, dict[str, Trajectory]] = {}
    for t in trajectories:
        by_pair.setdefault(t.pair_id, {})[t.variant] = t
    broken = []
    for pair_id, twins in sorted(by_pair.items()):
        if "unsafe" in twins:
            problems = (
                pair_problems(twins["unsafe"], twins["safe"])
                if "safe" in twins
                else ["the safe twin is missing"]
            )
            if problems:
                broken.append(f"{pair_id}: {problems[0]}")
    return CheckOutcome(
        passed=not broken,
        description=f"{len(broken)} broken pairs" + (f", e.g. {broken[0]}" if broken else ""),
        metadata={"pairs": sum("unsafe" in t for t in by_pair.values()), "broken": len(broken)},
    )


def schema(records: list[str], taxonomy: Taxonomy) -> CheckOutcome:
    """Every stored record parses back into a valid trajectory labelled with `taxonomy`'s leaves."""
    errors = []
    for index, record in enumerate(records):
        try:
            Trajectory.model_validate_json(record, context=leaf_context(taxonomy))
        except ValidationError as err:
            errors.append(f"record {index}: {err.errors()[0]['msg']}")
    return CheckOutcome(
        passed=not errors,
        description=f"{len(errors)} schema violations" + (f", e.g. {errors[0]}" if errors else ""),
        metadata={"records": len(records), "violations": len(errors)},
    )
