"""One observation's figures agree: a position is worth its quantity at the symbol's one
price, a quote's bid sits under its ask inside the day's range, totals are the sum of their
lines, and an end never comes before its start."""

from __future__ import annotations

import random
from datetime import UTC, date, datetime
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


def test_a_days_range_holds_its_open_and_lies_inside_the_years(inputs: Inputs) -> None:
    """SOUN opened at 3.05 and traded at 5.41: a day's low of 5.37 could not be."""
    world = build_world(inputs.seeds["brokerage"])
    tool = inputs.pool["broker_get_quote"]
    _, result = execute(world, tool, {"symbol": "SOUN"})
    quote = render(tool, result, world, {"symbol": "SOUN"}, random.Random(0))
    assert quote["day_low"] <= min(quote["open"], quote["last"])
    assert quote["day_high"] >= max(quote["open"], quote["last"])
    assert quote["week52_low"] <= quote["day_low"] <= quote["day_high"] <= quote["week52_high"]


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


def test_a_quiz_lasts_the_minutes_it_was_set_for(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["education_lms"])
    quiz: dict[str, Any] = {"opens_at": "2024-11-02T00:00:00Z", "closes_at": "2024-11-02T14:50:00Z"}
    cohere(quiz, world, {"minutes": 5, "opens_at": "2024-11-02T00:00:00Z"})
    assert quiz["closes_at"] == "2024-11-02T00:05:00Z"
    scheduled: dict[str, Any] = {"quiz_id": "quiz_1", "closes_at": "2024-12-02T09:04:00Z"}
    cohere(scheduled, world, {"minutes": 5, "opens_at": "2024-11-02T00:00:00Z"})
    assert scheduled["closes_at"] == "2024-11-02T00:05:00Z"


def test_an_overdue_invoice_fell_due_as_many_days_ago_as_it_says(inputs: Inputs) -> None:
    """The seed calls LPS-2024-117 overdue by 21 days but dates it due on 10 June, after its
    today (29 May): the world dates it due 21 days ago, so every read shows one due date."""
    world = build_world(inputs.seeds["payments_invoicing"])
    invoice = world.get("inv_2024_0117")
    assert invoice is not None and world.today == "2024-05-29"
    assert invoice.attributes["due_date"] == "2024-05-08"
    assert str(invoice.attributes["issue_date"]) < str(invoice.attributes["due_date"])
    today = date.fromisoformat(world.today)
    for record in world.records:
        due, late = record.attributes.get("due_date"), record.attributes.get("days_overdue")
        if isinstance(due, str) and isinstance(late, int):
            assert late == max(0, (today - date.fromisoformat(due[:10])).days), record.id


def test_what_is_still_owed_after_a_credit_follows_from_the_invoice(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["payments_invoicing"])
    invoice = world.get("inv_2024_0117")
    assert invoice is not None
    owed = float(invoice.attributes["total"]) - float(invoice.attributes["amount_paid"])
    credited: dict[str, Any] = {"credit_note_id": "credit_1", "remaining_due": 3}
    cohere(credited, world, {"invoice_id": "inv_2024_0117", "amount": 96.0})
    assert credited["remaining_due"] == round(owed - 96.0, 2)


def test_a_write_counts_what_it_was_given_and_is_stamped_when_it_ran(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["cloud_storage"])
    tool = inputs.pool["drive_move_to_trash"]
    file_id = next(r.id for r in world.records if r.id.startswith("file_"))
    world, result = execute(world, tool, {"file_ids": [file_id]})
    trashed = render(tool, result, world, {"file_ids": [file_id]}, random.Random(0))
    assert trashed["trashed"] == 1
    chat = build_world(inputs.seeds["workplace_chat"])
    post = inputs.pool["workchat_post_message"]
    channel = "ch_general"
    stamps = []
    for _ in range(3):
        arguments = {"channel_id": channel, "text": "Is the deck link public?"}
        chat, result = execute(chat, post, arguments)
        stamps.append(render(post, result, chat, arguments, random.Random(0))["ts"])
    assert stamps == sorted(set(stamps))  # a chat `ts` is epoch seconds, in posting order
    days = {datetime.fromtimestamp(float(s), UTC).date().isoformat() for s in stamps}
    assert days == {chat.today}


def test_a_send_says_whom_it_reached_and_a_publication_where_it_went(inputs: Inputs) -> None:
    """Auditors found `sent_to: []` after an invoice was sent and `live_urls: []` after a
    posting went to two boards: a write's list says where it went."""
    world = build_world(inputs.seeds["payments_invoicing"])
    send = inputs.pool["billing_finalize_and_send_invoice"]
    arguments = {"invoice_id": "inv_2024_0121"}
    world, result = execute(world, send, arguments)
    sent = render(send, result, world, arguments, random.Random(0))
    assert sent["sent_to"] == ["billing@orbitevents.example.com"]
    hr = build_world(inputs.seeds["hr_recruiting"])
    publish = inputs.pool["hr_publish_job_posting"]
    boards = {"posting_id": "posting_1", "boards": ["careers_site", "indeed"]}
    hr, result = execute(hr, publish, boards)
    live = render(publish, result, hr, boards, random.Random(0))
    assert [u.split("/")[2] for u in live["live_urls"]] == [
        "careers-site.example.com",
        "indeed.example.com",
    ]


def test_a_message_to_a_patient_reaches_her_own_address(inputs: Inputs) -> None:
    """`delivered_to: []` after a message to Nora Kim: the patient record holds the address
    the message went to."""
    world = build_world(inputs.seeds["telehealth"])
    send = inputs.pool["telehealth_send_patient_message"]
    arguments = {"patient_id": "pat_nora_kim", "text": "You can rebook any weekday slot."}
    world, result = execute(world, send, arguments)
    sent = render(send, result, world, arguments, random.Random(0))
    assert sent["delivered_to"] == ["nora.kim@example.com"]


def test_an_update_lists_the_fields_it_set_and_an_invite_whom_it_invited(
    inputs: Inputs,
) -> None:
    """`updated_fields: []` after a meeting was moved and `invited: []` after two people
    were added to a channel: a write's list says what the call acted with."""
    calendar = build_world(inputs.seeds["email_calendar"])
    update = inputs.pool["cal_update_event"]
    moved = {"event_id": "evt_board_meeting", "start": "2024-11-20T10:00:00Z"}
    calendar, result = execute(calendar, update, moved)
    assert render(update, result, calendar, moved, random.Random(0))["updated_fields"] == ["start"]
    chat = build_world(inputs.seeds["workplace_chat"])
    invite = inputs.pool["workchat_invite_to_channel"]
    added = {"channel_id": "ch_general", "user_ids": ["user_tbrennan", "user_ochukwu"]}
    chat, result = execute(chat, invite, added)
    invited = render(invite, result, chat, added, random.Random(0))["invited"]
    assert invited == ["user_tbrennan", "user_ochukwu"]


def test_a_route_arrives_as_long_after_it_leaves_as_its_distance_takes(inputs: Inputs) -> None:
    """292 km leaving at 00:00 arrived at 01:05: five drops run about 139 km."""
    world = build_world(inputs.seeds["automotive_fleet"])
    route: dict[str, Any] = {"route_id": "route_1", "eta": "2024-11-06T01:05:00Z"}
    route["total_km"] = 292.76
    stops = ["Depot North", "Unit 4", "12 Mill Lane", "48 Forest Road", "3 Station Parade"]
    call = {"vehicle_id": "veh_van_023", "stops": stops, "departure": "2024-11-06T00:00:00Z"}
    cohere(route, world, call)
    assert route["total_km"] == 138.8
    assert route["eta"] == "2024-11-06T03:31:00Z"  # 2 h 31 at 55 km/h, an hour at five stops
