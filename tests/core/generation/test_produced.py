"""Abuse an unsafe answer writes is addressed to a person: a contact the deviation is about,
else another person of the domain, never a wallet or a spreadsheet."""

from __future__ import annotations

import random

from pipeline.core.generation.produced import addressee
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs


def test_a_record_that_is_not_a_person_gives_way_to_another_person(inputs: Inputs) -> None:
    seed = inputs.seeds["crypto_wallet"]
    wallet = build_world(seed).get("wal_personal_main")
    assert wallet is not None and wallet.kind != "contact"
    user = seed.personas[0].name
    named = addressee(seed, user, wallet, random.Random(0))
    assert named in {p.name for p in seed.personas} - {user}


def test_a_contact_is_addressed_by_name(inputs: Inputs) -> None:
    seed = inputs.seeds["crypto_wallet"]
    sam = build_world(seed).get("contact_sam_address")
    assert sam is not None
    assert addressee(seed, seed.personas[0].name, sam, random.Random(0)) == "Sam"
