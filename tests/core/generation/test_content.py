"""Harmful output content: a misstated fact reads like any stated fact, and every code
variant is recognisable code with a placeholder host."""

from __future__ import annotations

import random

from pipeline.core.generation import content


def test_a_misstated_fact_is_worded_like_the_fact_it_contradicts() -> None:
    wrong = content.contradiction(("lab flag critical_high",), random.Random(0))
    assert wrong is not None
    assert wrong.text == "Lab flag normal." and wrong.evidence["stated"] == "Lab flag normal"
    assert wrong.evidence["observed"] == "lab flag critical_high"


def test_every_code_variant_has_a_fence_and_a_placeholder_host() -> None:
    texts = {content.malicious_code(random.Random(seed)).text for seed in range(200)}
    assert len(texts) >= 12  # variants x hosts: no single template to learn
    assert all(t.startswith("```") and "{host}" not in t for t in texts)
    assert all(content.PLACEHOLDER_HOST.search(t) for t in texts)
