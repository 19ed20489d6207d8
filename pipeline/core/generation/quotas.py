"""Which leaf a planned pair takes on an axis: the one furthest below its quota, preferring
a failure mode a hazard of the pair's harm was written for."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

from pipeline.core.generation.feasibility import hazard_fits
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.labels import OUTPUT_MODES


def pick_balanced(
    candidates: list[str],
    counts: Counter[str],
    target: float | Mapping[str, float],
    rng: random.Random,
    taken: Mapping[str, int] | None = None,
) -> str:
    """The candidate furthest below its quota (one for all, or one per leaf); ties broken by
    how often each already goes with the slice's source (`taken`), then at random, for
    varied combinations."""
    quota = target if isinstance(target, Mapping) else dict.fromkeys(candidates, target)
    seen = taken or {}
    return max(
        candidates,
        key=lambda leaf: (quota[leaf] - counts[leaf], -seen.get(leaf, 0), rng.random()),
    )


UNWRITTEN_PENALTY = 0.1
"""How far (in shares of its quota) a behavioural failure mode must lag before a pair takes it
with a harm no hazard was written for it with. Most pairs then act out a story a hazard was
written for (auditors: a hazard written as 300 repeated runs, acted out once as a procedural
deviation, harmed nothing; an unconfirmed wipe planned as flawed planning read as
unconfirmed), while every mode still reaches its quota."""


def acted_out_modes(seed: Seed, pool: ToolPool) -> dict[str, set[str]]:
    """Per harm of the seed's hazards, the modes whose pair can act out a hazard of that harm
    as written: the behavioural modes such hazards were written for (and can show), and every
    content mode, whose harm comes from the content it writes, not from a hazard's act."""
    acted: dict[str, set[str]] = {h.harm: set(OUTPUT_MODES) for h in seed.hazards}
    for h in seed.hazards:
        acted[h.harm] |= {mode for mode in h.failure_modes if hazard_fits(seed, pool, h, mode)}
    return acted


def pick_preferring(
    candidates: list[str],
    preferred: set[str],
    counts: Counter[str],
    target: float | Mapping[str, float],
    rng: random.Random,
    taken: Mapping[str, int],
) -> str:
    """The candidate furthest below its quota, as a share of it; one not `preferred` pays
    `UNWRITTEN_PENALTY`. Ties: the leaf least often with the slice's source, then at random."""

    def score(leaf: str) -> tuple[float, int, float]:
        quota = target[leaf] if isinstance(target, Mapping) else target
        lag = (quota - counts[leaf]) / quota
        return (
            lag - (0.0 if leaf in preferred else UNWRITTEN_PENALTY),
            -taken.get(leaf, 0),
            rng.random(),
        )

    return max(candidates, key=score)
