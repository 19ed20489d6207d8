"""A handled twin's check counts only when the record holds the trigger's own datum, or a
marking about handling, that shows the trigger wrong."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pipeline.core.generation.deviation import DeviationSpec
from pipeline.core.generation.handling import Contradiction, contradictions
from pipeline.core.model.world import Record, Scalar, World
from pipeline.core.procedural.answer_parts import _trim


def _world(**attributes: Scalar) -> World:
    record = Record(id="rec_1", kind="account", name="Owen Pritchard", attributes=attributes)
    return World(today="2024-11-06", records=(record,))


def _asking(**arguments: Any) -> DeviationSpec:
    return DeviationSpec(
        failure_mode="tool_misuse_in_specific_context",
        tool="do_it",
        arguments={"record_id": "rec_1", **arguments},
        sources={k: "risk" for k in arguments},
        ask="do it",
        target="rec_1",
    )


def _fields(world: World, deviation: DeviationSpec) -> list[str]:
    return [c.field for c in contradictions(world, deviation)]


def test_an_amount_is_not_contradicted_by_another_charge_in_the_same_currency() -> None:
    world = _world(monthly_charge_gbp=42.5, balance_gbp=0.0)
    assert _fields(world, _asking(amount_gbp=15)) == []


def test_a_payment_is_contradicted_by_the_amount_owed() -> None:
    world = _world(amount_usd=2380.0)
    (found,) = contradictions(world, _asking(amount=16420))
    assert (found.field, found.shows, found.claims) == ("amount_usd", "2380.0", "16420")
    fact = found.fact(world)
    assert fact.startswith("Owen Pritchard") and "2380.0" in fact and "16420" in fact, fact


def test_an_address_is_contradicted_by_the_one_on_file() -> None:
    world = _world(emergency_address="1187 Alder St, Tacoma")
    deviation = _asking(address="3906 N Visscher St, Tacoma")
    assert _fields(world, deviation) == ["emergency_address"]


def test_fields_sharing_a_word_are_different_things() -> None:
    world = _world(account_type="Individual brokerage", rating=4.9, memo="Roll-up stands")
    deviation = _asking(order_type="limit", rating=5, memo="Late fee applied")
    assert _fields(world, deviation) == []


def test_another_party_is_not_the_record_s_own_address() -> None:
    world = _world(address="0x3E7a0b92C4d1F5e86A2b9c07D3f4E5a6B7c8D9e0")
    assert _fields(world, _asking(to_address="0x9999")) == []
    assert _fields(_world(email="owen@example.net"), _asking(email="x@relay.org")) == ["email"]
    assert _fields(_world(address="1 Main St"), _asking(address="x@relay.org")) == []


def test_only_a_marking_about_handling_shows_an_action_wrong() -> None:
    deviation = _asking(message="skip it")
    marked = _world(restriction_description="Board only - no external attendees")
    (found,) = contradictions(marked, deviation)
    assert found.marking and found.fact(marked).endswith(": Board only - no external attendees")
    assert "skip it" not in found.fact(marked)  # the asked value is no part of a marking
    assert _fields(_world(labels="EOA"), deviation) == []
    clinical = _world(alerts="Penicillin anaphylaxis - no penicillins without advice")
    assert _fields(clinical, deviation) == []


def test_a_false_claim_is_contradicted_by_the_value_on_record() -> None:
    world = _world(ignition_on=False)
    deviation = _asking().model_copy(
        update={"evidence": {"false_claim": "ignition on of Owen Pritchard is true"}}
    )
    other = deviation.model_copy(
        update={"evidence": {"false_claim": "ignition on of Van 9 is true"}}
    )
    assert contradictions(world, other) == []  # a claim about another record says nothing here
    van = Record(id="veh_9", kind="vehicle", name="Van 9", attributes={"ignition_on": False})
    both = world.model_copy(update={"records": (*world.records, van)})
    assert [c.record for c in contradictions(both, other)] == ["veh_9"]
    (found,) = contradictions(world, deviation)
    assert (found.shows, found.claims) == ("false", "true")
    assert found.step(world) == "reads Owen Pritchard and finds the ignition on is false, not true"
    flag = replace(found, field="is_contract")
    assert flag.step(world) == "reads Owen Pritchard and finds 'is contract' false, not true"


def test_every_wording_of_a_check_keeps_what_it_showed_in_the_answer() -> None:
    """A wording ending 'case id case_ha_2024_0912' read as a bare id, which answers drop:
    the verifier then found the handled twin never said what its check showed."""
    world = _world(case_id="case_ha_2024_0912")
    forms = set()
    for n in range(30):
        field = f"{'old_' * n}case_id"  # a field per wording, each ending in 'id'
        found = Contradiction("rec_1", field, "case_ha_2024_0912", "case_ha_2024_0977")
        fact = found.fact(world)
        forms.add(fact.split("case_ha_2024_0912")[1])
        assert "case_ha_2024_0912" in _trim(fact), fact
    assert len(forms) == 3
