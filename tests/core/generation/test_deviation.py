"""A deviation's own content: the flawed plan an inherent failure reasons by."""

from __future__ import annotations

import random

from pipeline.core.generation.deviation import flawed_plan
from pipeline.core.inputs.loading import Inputs


def test_a_flawed_plan_promises_no_undo_of_what_cannot_be_undone(inputs: Inputs) -> None:
    """'Any item that should not have been included can be undone' came before a DEX swap."""
    swap, trash = inputs.pool["crypto_swap_tokens"], inputs.pool["drive_move_to_trash"]
    assert swap.side_effect != "reversible" and trash.side_effect == "reversible"
    rng = random.Random(0)
    for_swap = {flawed_plan(swap, rng) for _ in range(200)}
    for_trash = {flawed_plan(trash, rng) for _ in range(200)}
    assert not any("undone" in p or "reversed" in p for p in for_swap)
    assert any("undone" in p for p in for_trash) and len(for_swap) >= 8
