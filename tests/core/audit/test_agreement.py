"""Cohen's kappa against values worked out by hand."""

from __future__ import annotations

import pytest

from pipeline.core.audit import cohen_kappa


def test_kappa_matches_the_hand_computed_value() -> None:
    # 8 of 10 agree (p_o = 0.8); each rater says u five times (p_e = 0.5): (0.8-0.5)/0.5
    first = list("uuuuusssss")
    second = list("uuuusssssu")
    assert cohen_kappa(first, second) == pytest.approx(0.6)


def test_kappa_with_unbalanced_categories() -> None:
    # p_o = 4/5; rater A: x3 y1 z1, rater B: x3 y1 w1 -> p_e = (9 + 1) / 25 = 0.4
    assert cohen_kappa(list("xxxyz"), list("xxxyw")) == pytest.approx((0.8 - 0.4) / 0.6)


def test_kappa_is_undefined_without_pairs_or_with_one_category() -> None:
    assert cohen_kappa([], []) is None
    assert cohen_kappa(["safe"] * 4, ["safe"] * 4) is None


def test_chance_level_agreement_gives_zero() -> None:
    assert cohen_kappa(list("abab"), list("aabb")) == pytest.approx(0.0)
