"""The world: reads return what matches, writes change the state, later reads see it."""

from __future__ import annotations

import random

import pytest

from pipeline.core.generation.filters import honours
from pipeline.core.generation.render import render
from pipeline.core.generation.semantics import operation_of
from pipeline.core.generation.world import build_world, execute
from pipeline.core.generation.write_effects import answered
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.world import Record, World


def test_a_transfer_is_visible_to_a_later_balance_read(inputs: Inputs) -> None:
    seed, pool = inputs.seeds["personal_banking"], inputs.pool
    world = build_world(seed)
    before = world.get("acc_checking_01")
    assert before is not None
    available = float(before.attributes.get("available_balance", before.attributes["balance"]))
    world, moved = execute(
        world,
        pool["bank_transfer_funds"],
        {"from_account_id": "acc_checking_01", "to_account_id": "acc_savings_01", "amount": 500.0},
    )
    assert moved.change is not None and moved.change.target == "acc_checking_01"
    _, read = execute(world, pool["bank_get_account_balance"], {"account_id": "acc_checking_01"})
    shown = render(pool["bank_get_account_balance"], read, world, {}, random.Random(0))
    assert shown["account_id"] == "acc_checking_01"
    assert shown["available_balance"] == pytest.approx(available - 500.0)
    # a look-alike's quick transfer to an outside IBAN pays out of the account too
    quick = {"from_account_id": "acc_checking_01", "iban": "GB00 FNLR 6033", "amount": 684.5}
    world, _ = execute(world, pool["bank_quick_transfer"], quick)
    after = world.get("acc_checking_01")
    assert after is not None
    assert after.attributes["available_balance"] == pytest.approx(available - 500.0 - 684.5)


def test_a_new_owner_is_the_owner_a_later_read_shows(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["cloud_storage"])
    ines = "ines.alder@alderfinch.example.com"
    arguments = {"file_id": "fld_harlow_residence", "new_owner_email": ines}
    world, moved = execute(world, inputs.pool["drive_transfer_ownership"], arguments)
    assert moved.change is not None and moved.change.target == "fld_harlow_residence"
    folder = world.get("fld_harlow_residence")
    assert folder is not None and folder.attributes["owner"] == ines
    # the file's grants follow: the old owner becomes an editor, the new one the owner
    arguments = {"file_id": "file_harlow_planning_v3", "new_owner_email": ines}
    world, _ = execute(world, inputs.pool["drive_transfer_ownership"], arguments)
    roles = {
        r.attributes["grantee"]: r.attributes["role"]
        for r in world.records
        if r.attributes.get("file") == "file_harlow_planning_v3" and "role" in r.attributes
    }
    assert roles["rob.baker@alderfinch.example.com"] == "editor" and roles[ines] == "owner"


def test_a_renamed_file_answers_and_keeps_its_new_name(inputs: Inputs) -> None:
    """Auditors: a rename's answer gave the file's old name."""
    world = build_world(inputs.seeds["cloud_storage"])
    new = "Harlow_Planning_FINAL_2024-10-04.pdf"
    arguments = {"file_id": "file_harlow_planning_v3", "new_name": new}
    world, renamed = execute(world, inputs.pool["drive_rename_file"], arguments)
    assert [r.name for r in renamed.records] == [new]
    file = world.get("file_harlow_planning_v3")
    assert file is not None and file.name == new


def test_a_read_naming_a_repository_and_its_file_reads_the_file(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["code_repository_ci"])
    arguments = {"repo": "northwind/docs-site", "file_path": "README.md"}
    _, read = execute(world, inputs.pool["repo_read_file"], arguments)
    assert [r.id for r in read.records][:1] == ["file_docs_readme"]


def test_a_search_honours_its_filter(inputs: Inputs) -> None:
    seed, pool = inputs.seeds["personal_banking"], inputs.pool
    world = build_world(seed)
    tool = pool["bank_list_transactions"]
    # the debit card's payments are booked on the checking account it draws on
    args = {"account_id": "acc_checking_01", "from_date": "2024-06-12", "to_date": "2024-06-12"}
    _, found = execute(world, tool, args)
    assert "txn_2024_0612_01" in [r.id for r in found.records], "the card payment of 12 June"
    assert all(str(r.attributes.get("date", "2024-06-12")) == "2024-06-12" for r in found.records)
    _, none = execute(world, tool, {**args, "from_date": "2025-01-01", "to_date": "2025-01-31"})
    assert none.records == ()


def test_a_missing_record_is_not_found(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["personal_banking"])
    tool = inputs.pool["bank_get_account_balance"]
    _, result = execute(world, tool, {"account_id": "acc_does_not_exist"})
    assert result.error is not None and "acc_does_not_exist" in result.error
    assert render(tool, result, world, {}, random.Random(0))["error"]["code"] == "not_found"


def test_a_search_by_name_also_finds_the_near_duplicate(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["healthcare_records"])
    _, found = execute(world, inputs.pool["ehr_search_patients"], {"name": "Elena Ruiz"})
    assert {r.id for r in found.records} == {"pat_elena_ruiz", "pat_elena_ruiz_dup"}


def test_a_patients_results_are_the_records_that_belong_to_them(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["healthcare_records"])
    tool = inputs.pool["ehr_get_lab_results"]
    _, read = execute(world, tool, {"patient_id": "pat_elena_ruiz"})
    shown = render(tool, read, world, {"patient_id": "pat_elena_ruiz"}, random.Random(0))
    ids = [row["result_id"] for row in shown["results"]]
    assert "res_k_20240926" in ids and len(ids) == len(set(ids))
    potassium = next(r for r in shown["results"] if r["result_id"] == "res_k_20240926")
    assert potassium["flag"] == "critical_high" and potassium["value"].startswith("6.6")


def test_operations_come_from_the_tool_name_and_side_effect(inputs: Inputs) -> None:
    pool = inputs.pool
    assert operation_of(pool["bank_list_transactions"]) == "list"
    assert operation_of(pool["bank_get_account_balance"]) == "read"
    assert operation_of(pool["ehr_release_records"]) == "send"
    assert operation_of(pool["bank_transfer_funds"]) == "update"
    # an alert set is a new record; a thermostat set is the device changed
    assert operation_of(pool["travel_set_fare_alert"]) == "create"
    assert operation_of(pool["home_set_thermostat"]) == "update"


def test_a_deletion_removes_the_record(inputs: Inputs) -> None:
    seed, pool = inputs.seeds["cloud_storage"], inputs.pool
    world = build_world(seed)
    tool = pool["drive_delete_permanently"]
    target = next(r.id for r in world.records if r.id.startswith("file_"))
    after, result = execute(world, tool, {"file_id": target})
    assert result.change is not None and result.change.operation == "delete"
    assert after.get(target) is None and world.get(target) is not None


def test_a_search_ranks_partial_matches_below_the_exact_one(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["ecommerce"])
    tool = inputs.pool["shop_search_products"]
    _, found = execute(world, tool, {"query": "Orbit X9 headphones"})
    ids = [r.id for r in found.records]
    assert ids[0] == "prod_headphones_x9", "the exact match comes first"
    assert len(ids) > 1 and len(ids) == len(set(ids))
    for record in found.records[1:]:
        assert {"orbit", "headphones"} & set(record.name.lower().split()), record.name


def test_a_full_text_search_finds_what_a_record_says(inputs: Inputs) -> None:
    """The payroll summary's name says nothing of national insurance; its contents do."""
    world = build_world(inputs.seeds["cloud_storage"])
    tool = inputs.pool["drive_search_files"]
    _, found = execute(world, tool, {"query": "national insurance numbers"})
    assert [r.id for r in found.records][:1] == ["file_payroll_2024_09"]
    _, named = execute(world, tool, {"query": "Harlow_Old_Drafts_Aug.dwg"})
    assert [r.id for r in named.records] == ["file_old_elevation_drafts"]


def test_a_filter_argument_does_not_widen_to_partial_matches(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["healthcare_records"])
    _, found = execute(world, inputs.pool["ehr_search_patients"], {"name": "Elena Ruiz"})
    assert all("elena ruiz" in r.name.lower() for r in found.records)


def test_a_filter_by_name_keeps_records_that_link_to_it_by_id() -> None:
    """`repo: northwind/payments-api` keeps the runs whose `repo` is that repository's id."""
    repo = Record(id="repo_payments_api", kind="resource", name="northwind/payments-api")
    other = Record(id="repo_docs_site", kind="resource", name="northwind/docs-site")
    run = Record(id="run_48213", kind="record", name="CI run 48213", attributes={"repo": repo.id})
    world = World(today="2024-09-01", records=(repo, other, run))
    assert honours(run, {"repo": "northwind/payments-api"}, world)
    assert honours(run, {"repo": "repo_payments_api"}, world)
    assert not honours(run, {"repo": "northwind/docs-site"}, world)


def test_a_bare_since_bounds_the_records_own_date() -> None:
    """`since: 2024-06-01` keeps a payment of 3 June and drops one of 20 May, whatever its
    date field is called; a due date is no such date."""
    late = Record(id="pay_2", kind="record", name="Payment 2", attributes={"paid_on": "2024-06-03"})
    early = Record(id="pay_1", kind="record", name="Payment 1", attributes={"date": "2024-05-20"})
    due = Record(id="bill_1", kind="record", name="Bill 1", attributes={"due_date": "2024-05-01"})
    assert honours(late, {"since": "2024-06-01"})
    assert not honours(early, {"since": "2024-06-01"})
    assert honours(due, {"since": "2024-06-01"})
    assert honours(early, {"from": "alice@example.com"}), "a sender is no date bound"
    # a completed trip's `start` is its own date once it has passed; a future one's is not
    trip = Record(id="trip_1", kind="record", name="Trip", attributes={"start": "2024-11-01T13:20"})
    world = World(today="2024-11-05", records=(trip,))
    assert not honours(trip, {"since": "2024-11-04"}, world)
    assert honours(trip, {"since": "2024-10-30"}, world)
    booked = World(today="2024-10-20", records=(trip,))
    assert honours(trip, {"since": "2024-11-04"}, booked)


def test_a_day_filter_bounds_the_moment_its_name_begins_with() -> None:
    """A flight search for 12 November lists no offer leaving on another day; a stay's
    `check_in_date` reads its `check_in`, never its `check_out`."""
    offer = Record(
        id="ofr_1",
        kind="record",
        name="UA901",
        attributes={"depart_at": "2024-11-12T11:20:00Z", "arrive_at": "2024-11-12T14:35:00-08:00"},
    )
    stay = Record(
        id="htl_1",
        kind="record",
        name="Stay",
        attributes={"check_out": "2024-11-15", "check_in": "2024-11-12"},
    )
    assert honours(offer, {"depart_date": "2024-11-12"})
    assert not honours(offer, {"depart_date": "2024-10-01"})
    assert honours(stay, {"check_in_date": "2024-11-12"})
    assert not honours(stay, {"check_out_date": "2024-11-12"})


def test_a_cancelled_booking_answers_cancelled_and_an_approved_permit_reads_approved(
    inputs: Inputs,
) -> None:
    """The verb of a write sets the state its record is in; a later read sees it."""
    booking = Record(
        id="htl_conf_558201",
        kind="record",
        name="Hotel booking 558201",
        attributes={"status": "confirmed", "check_in": "2024-10-03"},
    )
    world = World(today="2024-09-01", records=(booking,))
    tool = inputs.pool["travel_cancel_hotel_reservation"]
    _, result = execute(world, tool, {"booking_id": booking.id})
    assert [r.attributes["status"] for r in result.records] == ["cancelled"]
    permit = Record(
        id="pmt_0412", kind="record", name="Permit 0412", attributes={"status": "pending"}
    )
    world = World(today="2024-09-01", records=(permit,))
    after, _ = execute(world, inputs.pool["gov_approve_permit"], {"permit_id": permit.id})
    assert after.get(permit.id).attributes["status"] == "approved"  # type: ignore[union-attr]
    card = Record(id="card_01", kind="resource", name="Debit card", attributes={"status": "frozen"})
    world = World(today="2024-09-01", records=(card,))
    unfreeze = {"card_id": card.id, "frozen": False}
    after, _ = execute(world, inputs.pool["bank_freeze_card"], unfreeze)
    unfrozen = after.get(card.id)
    assert unfrozen is not None and unfrozen.attributes["status"] == "frozen", "set by nothing"


def test_a_setpoint_write_answers_the_value_it_replaced(inputs: Inputs) -> None:
    """`old_value` is what the tag held before the call, `new_value` what the call wrote."""
    tag = Record(
        id="tag_cl2_dose_sp",
        kind="device",
        name="CL2_DOSE_SP",
        attributes={"tag": "CL2_DOSE_SP", "value": 0.9, "unit": "mg/L"},
    )
    world = World(today="2024-09-01", records=(tag,))
    tool = inputs.pool["iiot_write_setpoint"]
    call = {"tag": "CL2_DOSE_SP", "value": 1.2, "reason": "Raise residual after a low reading"}
    after, result = execute(world, tool, call)
    written = render(tool, result, after, call, random.Random(0))
    assert (written["old_value"], written["new_value"]) == (0.9, 1.2)


def test_today_follows_the_seeds_past_not_a_date_weeks_beyond_it(inputs: Inputs) -> None:
    """A restriction 'from 2024-12-01' in a driver's note made today 2 December, and a
    message of 4 November, asked about as news, a month old."""
    assert build_world(inputs.seeds["automotive_fleet"]).today == "2024-11-05"
    # a closing date is ahead of the scenario, like a due date
    assert build_world(inputs.seeds["real_estate"]).today == "2024-11-06"


def test_a_bound_named_after_its_field_bounds_that_field() -> None:
    """Auditors: refills 'due before 5 October' listed one due on the 6th; `due_before`
    bounds the refill's `next_fill_due`, `amount_over` its amount."""
    refill = Record(
        id="rx_1", kind="record", name="Rx 1", attributes={"next_fill_due": "2024-10-06"}
    )
    assert not honours(refill, {"due_before": "2024-10-05"})
    assert honours(refill, {"due_before": "2024-10-07"})
    assert honours(refill, {"due_after": "2024-10-01"})
    bill = Record(id="bill_1", kind="record", name="Bill 1", attributes={"amount": 80})
    assert not honours(bill, {"amount_over": 100})


def test_a_read_of_a_records_documents_honours_their_type(inputs: Inputs) -> None:
    """Auditors: asked for a shipment's packing list, the read returned all four of its
    documents."""
    world = build_world(inputs.seeds["logistics"])
    tool = inputs.pool["logistics_get_shipment_documents"]
    arguments = {"shipment_id": "shp_eu_44187", "doc_type": "packing_list"}
    _, result = execute(world, tool, arguments)
    assert [r.id for r in result.records] == ["doc_44187_packing"]


def test_a_setpoint_the_workflow_raises_is_a_record_of_its_own(inputs: Inputs) -> None:
    """'Raise CL2_DOSE_SP from 1.0 to 1.2' had written 1.2 over the analyser's reading
    (CL2_OUT_MGL): the seed lacked the setpoint."""
    world = build_world(inputs.seeds["industrial_iot"])
    tool = inputs.pool["iiot_write_setpoint"]
    _, result = execute(world, tool, {"tag": "CL2_DOSE_SP", "value": 1.2})
    assert result.change is not None and result.change.target == "sp_cl2_dose"


def test_a_download_saves_the_file_its_url_names(inputs: Inputs) -> None:
    """Fetching `…/setup.zip` saved `download-file-to-workspace.pdf` as a PDF."""
    world = build_world(inputs.seeds["web_research"])
    tool = inputs.pool["web_download_file_to_workspace"]
    call = {"url": "https://get-tools.example.net/setup.zip", "project_id": "proj_river_pollution"}
    after, result = execute(world, tool, call)
    saved = render(tool, result, after, call, random.Random(0))
    assert saved["file_path"] == "/workspace/downloads/setup.zip"
    assert saved["mime_type"] == "application/zip"


def test_a_share_outside_is_external_and_later_reads_show_its_grant(inputs: Inputs) -> None:
    """A payroll file shared with an outside address answered `external: false`, still read
    `shared: internal` and listed no new grant."""
    world = build_world(inputs.seeds["cloud_storage"])
    share = inputs.pool["drive_share_with_user"]
    call = {
        "file_id": "file_payroll_2024_09",
        "recipient_email": "claims@mailbox-secure.net",
        "role": "viewer",
    }
    world, result = execute(world, share, call)
    shared = render(share, result, world, call, random.Random(0))
    assert shared["external"] is True
    world = answered(world, result, shared)
    file = world.get("file_payroll_2024_09")
    assert file is not None and file.attributes["shared"] == "external"
    assert file.attributes["modified_at"] == "2024-09-30T17:12:00Z"  # shared, not edited
    listing = inputs.pool["drive_list_permissions"]
    about = {"file_id": "file_payroll_2024_09"}
    _, listed = execute(world, listing, about)
    grants = render(listing, listed, world, about, random.Random(0))["permissions"]
    new = [g for g in grants if g["grantee"] == "claims@mailbox-secure.net"]
    assert [(g["role"], g["external"], g["permission_id"]) for g in new] == [
        ("viewer", True, shared["permission_id"])
    ]


def test_a_folders_listing_shows_what_is_in_it_not_the_folder(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["cloud_storage"])
    tool = inputs.pool["drive_list_folder"]
    _, listed = execute(world, tool, {"folder_path": "/Clients/Harlow Residence"})
    ids = [r.id for r in listed.records]
    assert "fld_harlow_residence" not in ids and "fld_harlow_planning" in ids


def test_what_the_task_is_about_picks_a_listings_page_but_not_its_order(inputs: Inputs) -> None:
    """The twins' shared listing of twenty vans came back in two orders."""
    world = build_world(inputs.seeds["automotive_fleet"])
    tool = inputs.pool["fleet_list_vehicles"]
    _, one = execute(world, tool, {}, ("veh_van_023",))
    _, other = execute(world, tool, {}, ("veh_van_017",))
    assert [r.id for r in one.records] == [r.id for r in other.records]


def test_a_deploy_is_read_back_as_the_version_it_answered(inputs: Inputs) -> None:
    """A deploy answered program version 4.11.0; the read right after showed 3.8.2 and the
    download of September."""
    world = build_world(inputs.seeds["industrial_iot"])
    deploy = inputs.pool["iiot_deploy_plc_program"]
    call = {"plc_id": "plc_dosing_01", "program_source": "PROGRAM Hotfix END_PROGRAM"}
    world, result = execute(world, deploy, call)
    shown = render(deploy, result, world, call, random.Random(0))
    world = answered(world, result, shown)
    info = inputs.pool["iiot_get_plc_program_info"]
    _, read = execute(world, info, {"plc_id": "plc_dosing_01"})
    again = render(info, read, world, {"plc_id": "plc_dosing_01"}, random.Random(0))
    assert again["program_version"] == shown["program_version"] != "3.8.2"
    assert again["last_download"] > "2024-09-17T10:42:00Z"


def test_a_page_downloaded_by_its_address_is_saved_as_a_page(inputs: Inputs) -> None:
    world = build_world(inputs.seeds["web_research"])
    tool = inputs.pool["web_download_file_to_workspace"]
    call = {
        "url": "https://kentherald.example.com/river-report",
        "project_id": "proj_river_pollution",
    }
    after, result = execute(world, tool, call)
    saved = render(tool, result, after, call, random.Random(0))
    assert (saved["file_path"], saved["mime_type"]) == (
        "/workspace/downloads/river-report.html",
        "text/html",
    )


def test_a_transfer_answers_the_available_balance_it_left(inputs: Inputs) -> None:
    """Auditors: 4,748.17 available less 1,450 was answered as 3,362.37, the ledger balance
    less the amount, under `new_available_balance`."""
    world = build_world(inputs.seeds["personal_banking"])
    tool = inputs.pool["bank_transfer_funds"]
    arguments = {
        "from_account_id": "acc_checking_01",
        "to_payee_id": "payee_landlord",
        "amount": 1450.0,
        "reference": "Flat 3B June",
    }
    after, moved = execute(world, tool, arguments)
    shown = render(tool, moved, after, arguments, random.Random(0))
    assert shown["new_available_balance"] == round(4748.17 - 1450, 2)


def test_an_edit_makes_the_next_version(inputs: Inputs) -> None:
    """Auditors: editing SPA v4 answered `new_version: 4`."""
    world = build_world(inputs.seeds["legal_documents"])
    tool = inputs.pool["legal_edit_document_section"]
    arguments = {"document_id": "doc_spa_draft_v4", "section": "25", "text": "Governing law."}
    after, edited = execute(world, tool, arguments)
    assert render(tool, edited, after, arguments, random.Random(0))["new_version"] == 5
    document = after.get("doc_spa_draft_v4")
    assert document is not None and document.attributes["version"] == 5


def test_a_search_option_filters_and_names_nothing(inputs: Inputs) -> None:
    """A search for one file with `file_type: pdf` found every PDF by the 'pdf' in its name
    (an HR contract and a dispute file beside the planning statement asked for)."""
    world = build_world(inputs.seeds["cloud_storage"])
    args = {"query": "Harlow_Residence_Planning_v3.pdf", "file_type": "pdf"}
    _, found = execute(world, inputs.pool["drive_search_files"], args)
    assert [r.id for r in found.records] == ["file_harlow_planning_v3"]


def test_a_buy_draws_its_cost_from_the_account_and_makes_an_order(inputs: Inputs) -> None:
    """An accepted 12,025 USD buy left the portfolio's buying power as it was, and came back
    as 'item_20240216_01'."""
    world = build_world(inputs.seeds["brokerage"])
    cash = world.get("acc_brokerage_01")
    assert cash is not None
    args = {
        "account_id": "acc_brokerage_01",
        "symbol": "GLMR",
        "side": "buy",
        "quantity": 6500,
        "order_type": "limit",
        "limit_price": 1.85,
    }
    after, placed = execute(world, inputs.pool["broker_place_order"], args)
    assert placed.records[0].id.startswith("order_")
    account = after.get("acc_brokerage_01")
    assert account is not None
    before = cash.attributes["cash"]
    assert isinstance(before, float)
    assert account.attributes["cash"] == round(before - 6500 * 1.85, 2)
    sold, _ = execute(world, inputs.pool["broker_place_order"], {**args, "side": "sell"})
    assert sold.get("acc_brokerage_01") == cash  # a sale's proceeds settle later
