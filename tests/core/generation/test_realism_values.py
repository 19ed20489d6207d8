"""Values a real system returns beside the others (issue 12 point 6), on real seed data: a news
read shows news, a temperature log holds the readings and the excursion its logger reports, a
release that went through says it was released, a location is a place, a consensus has
analysts behind it, a query is echoed, an order falls back to whole shares."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.realism import (
    denies_itself,
    odd_values,
    repeats_a_field,
    zero_count_beside_verdict,
)
from pipeline.core.generation.coherent import cohere
from pipeline.core.generation.render import ranked, render
from pipeline.core.generation.request_values import unsourced
from pipeline.core.generation.spoken import described, labelled, spoken
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.world import World


def _observe(inputs: Inputs, seed: str, tool: str, arguments: dict[str, Any]) -> Any:
    world = build_world(inputs.seeds[seed])
    _, result = execute(world, inputs.pool[tool], arguments)
    return render(inputs.pool[tool], result, world, arguments, random.Random(0))


def test_a_news_read_shows_news_not_the_open_order_on_the_same_symbol(inputs: Inputs) -> None:
    items = _observe(inputs, "brokerage", "broker_get_market_news", {"symbol": "NVDA"})["items"]
    assert items, "the NVDA earnings item is news about NVDA"
    assert all("order" not in item["headline"].lower() for item in items)
    assert all("order_stop" not in item.get("url", "") for item in items)


def test_a_consensus_has_analysts_behind_it(inputs: Inputs) -> None:
    shown = _observe(inputs, "brokerage", "broker_research_stock", {"symbol": "NVDA"})
    assert shown["analyst_count"] >= 1
    assert not zero_count_beside_verdict(shown)
    assert zero_count_beside_verdict({"analyst_consensus": "sell", "analyst_count": 0})


def test_a_temperature_log_holds_readings_and_the_reported_excursion(inputs: Inputs) -> None:
    log = _observe(
        inputs, "logistics", "logistics_get_temperature_log", {"shipment_id": "shp_eu_44120"}
    )
    readings = log["readings"]
    assert len(readings) >= 8
    times = [r["t"] for r in readings]
    assert times == sorted(times), "a log reads in time order"
    assert {"t": "2024-11-05T22:10:00Z", "c": 11.2} in readings, "the logger's own excursion"
    normal = [r["c"] for r in readings if r["t"] != "2024-11-05T22:10:00Z"]
    assert all(2 <= c <= 8 for c in normal), "inside the consignment's 2-8 °C range"


def test_a_release_that_went_through_says_released_and_a_place_is_a_place(
    inputs: Inputs,
) -> None:
    world = build_world(inputs.seeds["logistics"])
    tool = inputs.pool["logistics_release_shipment_from_hold"]
    arguments = {"shipment_id": "shp_eu_44120", "release_reason": "QA sign-off by Kees"}
    world, result = execute(world, tool, arguments)
    answer = render(tool, result, world, arguments, random.Random(0))
    assert answer["released"] is True
    assert not denies_itself(tool, answer)
    assert denies_itself(tool, {**answer, "released": False})
    track = _observe(
        inputs, "logistics", "logistics_track_shipment", {"shipment_id": "shp_eu_44120"}
    )
    assert track["last_location"] not in ("Vaccine consignment", "n/a")
    assert "consignment" not in track["last_location"].lower()


def test_a_checks_query_is_echoed_beside_its_findings(inputs: Inputs) -> None:
    asked = {"party_name": "Brightwater Estates Ltd"}
    shown = _observe(inputs, "legal_documents", "legal_run_conflict_check", asked)
    assert shown["party_name"] == "Brightwater Estates Ltd"


def test_an_order_with_no_stated_quantity_falls_back_to_one_whole_share(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["brokerage"])
    tool = inputs.pool["broker_place_order"]
    schema = tool.parameters["properties"]["quantity"]
    assert schema.get("minimum", 1) < 1, "the schema allows fractions"
    value, _ = unsourced("quantity", schema, "", world, tool)
    assert value == 1


def test_facts_name_their_record_and_say_the_field_in_words() -> None:
    assert spoken("price_usd", 287) == "price 287 USD"
    assert spoken("sla_due", "2024-11-07") == "SLA due 2024-11-07"
    assert spoken("setpoint_c", 21.0) == "setpoint 21.0 °C"
    assert spoken("amount", 1450.0) == "amount 1,450.00"  # money to the cent
    assert spoken("market_cap", 2280000000) == "market cap 2,280,000,000"
    assert spoken("quantity", 32.0) == "quantity 32"
    assert spoken("year", 20240) == "year 20240"  # a code is said as written
    assert labelled({"symbol": "VTI", "market_value": 1.0}, several=True) == ("symbol", "VTI")
    assert labelled({"order_id": "ord_1", "qty": 2}, several=True) == ("order_id", "ord_1")
    assert labelled({"order_id": "ord_1", "qty": 2}, several=False) == ("", "")
    fields = {"market value"}
    assert repeats_a_field("Market value 746.88. Market value 669.25.", fields)
    assert not repeats_a_field("VTI: market value 746.88. NVDA: market value 669.25.", fields)


def test_a_listing_ranks_its_items_where_they_stand_and_a_subtotal_nets_its_tax() -> None:
    assert [i["rank"] for i in ranked([{"rank": 12}, {"rank": 3}])] == [1, 2]
    invoice: dict[str, Any] = {"subtotal": 15, "vat": 20.0, "total": 2129.6, "lines": []}
    cohere(invoice, World(today="2024-06-01", records=()))
    assert invoice["subtotal"] == 2109.6
    assert not list(odd_values(invoice))
    assert [k for k, _ in odd_values({"subtotal": 15, "vat": 0, "total": 2129.6})] == [
        "subtotals_off_total"
    ]


def test_a_resume_file_is_a_file_and_a_claims_type_is_not_the_catch_all_kind(
    inputs: Inputs,
) -> None:
    resume = _observe(
        inputs, "hr_recruiting", "hr_read_resume", {"candidate_id": "cand_amara_okoye"}
    )
    assert "." in resume["file_name"], "a CV's file name, not the candidate's name"
    world = build_world(inputs.seeds["insurance_claims"])
    tool = inputs.pool["insurance_search_claims_history"]
    asked = {"query": "Bodily injury claim - rear-end collision"}
    _, found = execute(world, tool, asked)
    claims = render(tool, found, world, asked, random.Random(0))["claims"]
    assert claims and all(c.get("loss_type") != "record" for c in claims)
    assert not [k for c in claims for k, _ in odd_values(c)]


def test_an_item_without_a_name_in_view_is_called_what_it_is_not_its_id() -> None:
    """106 answers opened an item with a raw id ('alg_ruiz_penicillin: reaction …')."""
    allergy = {"allergy_id": "alg_ruiz_penicillin", "allergen": "Penicillin", "reaction": "Rash"}
    assert described(allergy) == "Penicillin"
    grant = {"permission_id": "perm_1", "grantee": "rob@alderfinch.example.com", "role": "owner"}
    assert described(grant) == "rob@alderfinch.example.com"
    state = {"exception_id": "exc_1", "status": "open", "opened": "2024-11-05T22:51:00Z"}
    assert described(state) == ""  # a state word or a moment says nothing of what it is


def test_a_flag_whose_opposite_the_user_said_is_off(inputs: Inputs) -> None:
    """Auditors: 'a public channel called proj-arm-v3' was created with `is_private: true`
    (the tool's own word 'channel' in the request had set every required flag)."""
    tool = inputs.pool["workchat_create_channel"]
    world = build_world(inputs.seeds["workplace_chat"])
    schema = tool.parameters["properties"]["is_private"]
    public = "Create a public channel called proj-arm-v3 and invite Oluwaseun."
    assert unsourced("is_private", schema, public, world, tool) == (False, "request")
    private = "Create a private channel called proj-arm-v3."
    assert unsourced("is_private", schema, private, world, tool) == (True, "request")
