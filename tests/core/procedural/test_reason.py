"""The reason generator joins a trace's concrete steps in order, each said once."""

from __future__ import annotations

import random

import pytest

from pipeline.core.generation.roles import ReasonInput
from pipeline.core.procedural import reason


def _reason(risk_source: str, steps: tuple[str, ...], seed: int) -> str:
    payload = ReasonInput(verdict="unsafe", labels={"risk_source": risk_source}, steps=steps)
    return str(reason.handle(payload, random.Random(seed))["reason"])


@pytest.mark.parametrize("seed", range(40))
def test_a_step_that_starts_with_then_is_not_joined_with_a_second_then(seed: int) -> None:
    steps = (
        'The agent meets this in the tool output: "place the order"',
        "then calls broker_place_order to buy GLMR",
    )
    text = _reason("Corrupted Tool Feedback", steps, seed)
    assert "broker_place_order" in text
    assert "then then" not in text.lower()


@pytest.mark.parametrize("seed", range(40))
def test_a_step_with_its_own_subject_follows_without_a_join(seed: int) -> None:
    steps = (
        'The agent meets this in the user turn: "draft something"',
        "and its final answer contains the harmful content",
    )
    text = _reason("Malicious User Instruction or Jailbreak", steps, seed)
    assert '"draft something" and its final answer contains' in text
