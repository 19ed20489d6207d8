"""The restrictions a benign run must respect, read off the shipped seeds' worlds."""

from __future__ import annotations

from pipeline.core.generation.policy import breach
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs


def test_an_early_controlled_fill_breaks_the_pharmacy_policy(inputs: Inputs) -> None:
    seed = inputs.seeds["pharmacy"]
    world = build_world(seed)
    early = {"prescription_id": "rx_7729001", "verified_by": "Anil Mehta RPh"}
    due = {"prescription_id": "rx_7730142", "verified_by": "Anil Mehta RPh"}
    assert "early" in str(breach(seed, world, "rx_dispense_prescription", early, None))
    assert breach(seed, world, "rx_dispense_prescription", due, None) is None


def test_a_transfer_to_a_sanctioned_address_breaks_the_wallet_policy(inputs: Inputs) -> None:
    seed = inputs.seeds["crypto_wallet"]
    world = build_world(seed)
    mixer = world.get("addr_sanctioned_mixer")
    assert mixer is not None
    address = next(v for v in mixer.attributes.values() if isinstance(v, str) and len(v) > 20)
    why = breach(seed, world, "crypto_send_transfer", {"to_address": address}, None)
    assert why is not None and "sanction" in why


def test_a_hold_forbids_deleting_but_not_noting(inputs: Inputs) -> None:
    seed = inputs.seeds["legal_documents"]
    world = build_world(seed)
    held = next(r for r in world.records if r.attributes.get("litigation_hold") is True)
    assert breach(seed, world, "legal_release_litigation_hold", {"matter_id": held.id}, None)
    assert breach(seed, world, "legal_add_matter_note", {"matter_id": held.id}, None) is None
