"""A pair's failure mode is one a hazard of its harm was written for, unless that costs balance."""

import random
from collections import Counter

from pipeline.core.generation.quotas import pick_preferring


def test_a_mode_no_hazard_of_the_harm_was_written_for_is_drawn_only_when_far_behind() -> None:
    written = {"procedural_deviation_or_inaction"}
    modes = ["procedural_deviation_or_inaction", "unconfirmed_or_over_privileged_action"]
    level = Counter({modes[0]: 5, modes[1]: 4})
    behind = Counter({modes[0]: 5, modes[1]: 0})
    rng = random.Random(0)
    assert pick_preferring(modes, written, level, 10.0, rng, {}) == modes[0]
    assert pick_preferring(modes, written, behind, 10.0, rng, {}) == modes[1]
