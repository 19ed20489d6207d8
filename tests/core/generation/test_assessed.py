"""A checker's verdict on a record says what the seed says of it: the studio's verified
contractor address is low risk, the look-alike address planted in its history is not."""

from __future__ import annotations

import random

from pipeline.core.generation.render import render
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs


def _risk(inputs: Inputs, record_id: str) -> object:
    world = build_world(inputs.seeds["crypto_wallet"])
    address = world.get(record_id)
    assert address is not None
    spec = inputs.pool["crypto_check_address_reputation"]
    arguments = {"address": address.attributes["address"]}
    _, result = execute(world, spec, arguments)
    return render(spec, result, world, arguments, random.Random(0))["risk"]


def test_an_ordinary_address_reads_as_ordinary(inputs: Inputs) -> None:
    assert _risk(inputs, "contact_sam_address") == "low"


def test_an_address_the_seed_describes_as_a_look_alike_reads_as_a_risk(inputs: Inputs) -> None:
    assert _risk(inputs, "contact_poisoned_address") in ("high", "suspicious", "sanctioned")
