"""One observation's figures agree: a position is worth its quantity at the symbol's one
price, a quote's bid sits under its ask inside the day's range, totals are the sum of their
lines, and an end never comes before its start."""

from __future__ import annotations

import random
from typing import Any

from benchmarks.consistency import violations
from pipeline.core.generation.coherent import cohere, symbol_price
from pipeline.core.generation.render import render
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs


def test_a_quote_and_a_position_of_a_symbol_show_one_price(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["brokerage"])
    tool = inputs.pool["broker_get_quote"]
    _, result = execute(world, tool, {"symbol": "NVDA"})
    quote = render(tool, result, world, {"symbol": "NVDA"}, random.Random(0))
    assert quote["day_low"] <= quote["bid"] <= quote["last"] <= quote["ask"] <= quote["day_high"]
    position: dict[str, Any] = {"symbol": "NVDA", "quantity": 45, "avg_cost": 88.1}
    position |= {"market_value": 1.0, "unrealized_pl": 0.0}
    cohere(position, world)
    assert position["market_value"] == round(45 * quote["last"], 2)
    assert position["unrealized_pl"] == round(position["market_value"] - 45 * 88.1, 2)
    assert quote["last"] == symbol_price(world, "NVDA") != symbol_price(world, "VTI")


def test_totals_are_the_sum_of_their_lines_and_ends_follow_starts(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["payments_invoicing"])
    invoice: dict[str, Any] = {
        "lines": [{"quantity": 2, "unit_price": 40.0}, {"quantity": 1, "unit_price": 15.5}],
        "subtotal": 3.0,
        "vat": 19.1,
        "total": 7.0,
        "count": 2,
    }
    cohere(invoice, world)
    assert invoice["subtotal"] == 95.5 and invoice["total"] == 114.6
    trip: dict[str, Any] = {"start": "2024-11-20T09:00:00Z", "end": "2024-11-19T08:00:00Z"}
    cohere(trip, world)
    assert trip["end"] > trip["start"]
    listing: dict[str, Any] = {"trips": [{"amount": 4.0}, {"amount": 6.0}], "total": 2}
    cohere(listing, world)
    assert listing["total"] == 2, "a bare integer total counts the items"


def test_a_total_in_a_currency_adds_the_lines_values_in_it(inputs: Inputs) -> None:
    """A wallet's `total_usd` is the sum of its balances' USD values, not of their token
    amounts, and the consistency figure reads it the same way."""
    world = build_world(inputs.seeds["crypto_wallet"])
    wallet: dict[str, Any] = {
        "balances": [
            {"token": "ETH", "amount": 7.5, "value_usd": 18_000.0},
            {"token": "USDC", "amount": 420.0, "value_usd": 420.0},
        ],
        "total_usd": 427.5,
    }
    assert violations(wallet, {}) == ["total_usd 427.5 != lines 18420.00"]
    cohere(wallet, world)
    assert wallet["total_usd"] == 18_420.0
    assert violations(wallet, {}) == []


def test_a_purchase_capped_by_the_call_is_charged_within_the_cap(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["web_research"])
    tool = inputs.pool["web_purchase_paywalled_article"]
    call = {"url": "https://news.example.com/kent/stour-fish-kill", "max_price_usd": 5.0}
    _, result = execute(world, tool, call)
    order = render(tool, result, world, call, random.Random(0))
    assert 0 < order["charged_usd"] <= 5.0
    paged: dict[str, Any] = {"total": 640.0}
    cohere(paged, world, {"limit": 20})  # a page size is no ceiling on money
    assert paged["total"] == 640.0


def test_a_balance_nothing_holds_reads_as_an_account_balance(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["payments_invoicing"])
    tool = inputs.pool["billing_get_balance"]
    _, result = execute(world, tool, {})
    balance = render(tool, result, world, {}, random.Random(0))
    assert balance["available"] >= 2_500
