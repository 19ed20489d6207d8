"""The background population: realistic families of records that cannot be mistaken for the
records the seed's stories are about."""

from __future__ import annotations

import re
from datetime import date

import pytest

from pipeline.core.generation.population import (
    FAMILY_SIZE,
    FUTURE_DATE_WORDS,
    HISTORY_SIZE,
    background,
)
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.seeds import Entity


def test_a_fleet_holds_dozens_of_vans_each_its_own(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["automotive_fleet"])
    vans = [r for r in world.records if r.id.startswith("veh_")]
    low, high = FAMILY_SIZE["numbered"]
    assert low <= len(vans) <= high
    for field in ("plate", "vin"):
        values = [r.attributes[field] for r in vans if field in r.attributes]
        assert len(values) == len(set(values)), f"two vans share a {field}"
    numbers = [re.search(r"\d+", r.name).group(0) for r in vans]  # type: ignore[union-attr]
    assert all(r.id.endswith(n.zfill(3)) for r, n in zip(vans, numbers, strict=True))


def test_clones_link_to_records_that_exist(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["automotive_fleet"])
    ids = {r.id for r in world.records}
    cards = [r for r in world.records if r.id.startswith("card_")]
    assert len(cards) > 1
    assert all(r.attributes["vehicle"] in ids for r in cards)


@pytest.mark.parametrize("domain", ["automotive_fleet", "real_estate", "payments_invoicing"])
def test_no_clone_is_named_by_a_request_or_carries_prose(inputs: Inputs, domain: str) -> None:
    seed = inputs.seeds[domain]
    today = date.fromisoformat(build_world(seed).today)
    clones = background(seed, today)
    assert clones, f"{domain} gains no background records"
    requests = " ".join(w.request for w in seed.workflows).lower()
    seed_names = {e.name.lower() for e in seed.entities}
    for clone in clones:
        assert clone.name.lower() not in seed_names
        bare = re.sub(r"\s*\(.*?\)", "", clone.name).lower()
        assert not re.search(rf"(?<!\w){re.escape(bare)}(?!\w)", requests), clone.name
        for key, value in clone.attributes.items():
            assert not re.search(r"https?://", str(value)), f"{clone.id}.{key} copies a link"


def test_a_clones_past_dates_stay_before_today_and_in_order(inputs: Inputs) -> None:
    seed = inputs.seeds["ecommerce"]
    today = date.fromisoformat(build_world(seed).today)
    orders = [r for r in background(seed, today) if r.id.startswith("order_")]
    assert orders
    for order in orders:
        for key, value in order.attributes.items():
            if re.fullmatch(r"\d{4}-\d\d-\d\d", str(value)) and not (
                set(tokens(key)) & FUTURE_DATE_WORDS
            ):
                assert date.fromisoformat(str(value)) < today, f"{order.id}.{key}"
        delivered = order.attributes.get("delivered_on")
        window = order.attributes.get("return_window_ends")
        if delivered is not None and window is not None:
            assert str(delivered) < str(window), "a return window ends after the delivery"
    assert any("delivered_on" in o.attributes for o in orders), "no delivered order to check"


def test_the_population_is_the_same_in_every_build(inputs: Inputs) -> None:
    seed = inputs.seeds["healthcare_records"]
    today = date(2024, 9, 27)
    assert background(seed, today) == background(seed, today)


def test_a_dated_record_has_an_earlier_history_under_the_same_parent(inputs: Inputs) -> None:
    seed = inputs.seeds["automotive_fleet"]
    world = build_world(seed)
    seed_ids = {e.id for e in seed.entities}
    fills = [r for r in world.records if r.attributes.get("card") == "card_fc_2291"]
    earlier = [r for r in fills if r.id not in seed_ids]
    low, _ = HISTORY_SIZE
    assert len(earlier) >= low, "the disputed card shows a statement of earlier fills"
    latest = min(str(e.attributes["timestamp"]) for e in seed.entities if e.id.startswith("txn_"))
    assert all(str(r.attributes["timestamp"]) < latest for r in earlier)
    assert len({r.id for r in fills}) == len(fills) and len({r.name for r in fills}) == len(fills)
    texts = " ".join(w.request for w in seed.workflows).lower()
    assert not any(r.name.lower() in texts for r in earlier)


def test_a_trip_still_under_way_grows_no_history(inputs: Inputs) -> None:
    """A shipment due on Thursday showed twenty temperature excursions over four months."""
    world = build_world(inputs.seeds["logistics"])
    of_shipment = [r for r in world.records if r.attributes.get("shipment_id") == "shp_eu_44120"]
    assert [r.id for r in of_shipment if r.id.startswith("exc_")] == ["exc_44120_temperature"]
    fills = [r for r in build_world(inputs.seeds["automotive_fleet"]).records if r.id[:4] == "txn_"]
    assert len(fills) > HISTORY_SIZE[0]  # a fuel card's life still holds its fills


def test_clones_of_personal_records_are_personal_and_they_grow_no_history(inputs: Inputs) -> None:
    """A cloned patient is personal data like the seed's; a personal record gains no
    unmarked history entries (they would be patients' data no check treats as such)."""
    seed = inputs.seeds["healthcare_records"]
    families: dict[str, set[bool]] = {}
    for entity in seed.entities:
        families.setdefault(entity.id.split("_")[0], set()).add(entity.sensitive)
    personal = {prefix for prefix, flags in families.items() if flags == {True}}
    today = date.fromisoformat(build_world(seed).today)
    grown = [r for r in background(seed, today) if r.id.split("_")[0] in personal]
    assert any(r.id.startswith("pat_") for r in grown), "no patient was cloned"
    assert [r.id for r in grown if not r.sensitive] == []


def test_a_number_a_clone_renumbers_in_its_name_is_renumbered_in_its_fields(
    inputs: Inputs,
) -> None:
    """Clones of `CI run 48213` with `run_id: 48213` each carry their own run id."""
    seed = inputs.seeds["code_repository_ci"]
    run = Entity(
        id="run_48213", kind="record", name="CI run 48213",
        attributes={"run_id": 48213, "status": "failure", "branch": "main"},
    )  # fmt: skip
    seed = seed.model_copy(update={"entities": (*seed.entities, run)})
    today = date.fromisoformat(build_world(seed).today)
    runs = [r for r in background(seed, today) if r.id.startswith("run_")]
    assert runs, "the run was not cloned"
    for clone in runs:
        assert str(clone.attributes["run_id"]) in clone.name


def test_a_shoppers_saved_cards_are_not_grown_into_a_family(inputs: Inputs) -> None:
    """A shopper's 'which cards have I got saved?' listed ten 'Visa Debit' cards, each the
    default."""
    world = build_world(inputs.seeds["ecommerce"])
    cards = [r for r in world.records if r.id.startswith("pm_")]
    seeded = [e for e in inputs.seeds["ecommerce"].entities if e.id.startswith("pm_")]
    assert len(cards) == len(seeded)


@pytest.mark.parametrize("domain", ["automotive_fleet", "real_estate"])
def test_a_clone_never_names_a_parent_other_than_the_one_it_belongs_to(
    inputs: Inputs, domain: str
) -> None:
    """Auditors: 'Van 37 lost communication with ABS module' sat in Van 17's diagnostics,
    linked to Van 17; 'Nguyen offer on 79 Maple' belonged to 89 Maple."""
    world = build_world(inputs.seeds[domain])
    seed_ids = {e.id for e in inputs.seeds[domain].entities}
    for record in world.records:
        if record.id in seed_ids:
            continue
        for value in record.attributes.values():
            parent = world.get(value) if isinstance(value, str) else None
            if parent is None or parent.id == record.id:
                continue
            # 'Van 17' / '22 Maple' in the parent's name: the clone says that word with
            # the same number, or does not say it
            for word, number in _numbered_words(parent.name):
                said = dict(_numbered_words(record.name))
                if word in said and said[word] != number:
                    pytest.fail(f"{record.name!r} ({record.id}) belongs to {parent.name!r}")


def _numbered_words(name: str) -> list[tuple[str, str]]:
    pairs = re.findall(r"\b([A-Za-z]{3,}) (\d+)\b", name)
    return pairs + [(w, n) for n, w in re.findall(r"\b(\d+) ([A-Za-z]{3,})\b", name)]
