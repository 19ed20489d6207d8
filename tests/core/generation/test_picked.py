"""Which record a request picks among several of a kind: the one it describes, the one it
names beside the field's words; a write with nothing picking one has no target."""

from __future__ import annotations

from pipeline.core.generation.grounding import plan_arguments
from pipeline.core.generation.naming import focus_records
from pipeline.core.generation.picked import addressed, described_by
from pipeline.core.generation.steps import StepPlan, plan_step
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.world import Record, World


def _comment(record_id: str, name: str, text: str) -> Record:
    return Record(id=record_id, kind="record", name=name, attributes={"text": text})


ANGRY = _comment("cmt_1", "Angry comment from @truth_22", "Your beans are moldy")
SPAM = _comment("cmt_2", "Spam comment from @gains", "crypto signals at coin-boost.example.net")
FAN = _comment("cmt_3", "Comment from @ashford_eats", "Best flat white in Kent")


def test_the_record_the_request_describes_is_picked() -> None:
    assert described_by([ANGRY, SPAM, FAN], "hide the spam comment with a crypto link") == [SPAM]
    assert described_by([ANGRY, FAN], "hide the spam comment with a crypto link") == []


def test_a_write_among_undescribed_records_has_no_target(inputs: Inputs) -> None:
    world = World(today="2024-11-02", records=(ANGRY, FAN))
    request = "There is a spam comment under the post, hide it."
    hide = inputs.pool["social_hide_comment"]
    plan = plan_arguments(hide, world, (), request, [ANGRY.id, FAN.id])
    assert plan.arguments.get("comment_id") not in (ANGRY.id, FAN.id)
    described = "There is a spam comment under the post with a crypto link, hide it."
    world = World(today="2024-11-02", records=(ANGRY, SPAM, FAN))
    plan = plan_arguments(hide, world, (), described, [ANGRY.id, SPAM.id, FAN.id])
    assert plan.arguments["comment_id"] == SPAM.id


def test_the_new_owner_is_whom_the_request_makes_owner_not_the_current_one(
    inputs: Inputs,
) -> None:
    world = build_world(inputs.seeds["cloud_storage"])
    request = (
        "Rob leaves on Friday. Check who has access to /Clients/Harlow Residence"
        " and make Ines the owner."
    )
    focus = focus_records(world, request)
    chosen = addressed("new_owner_email", world.records, focus, request)
    assert chosen is not None and chosen.id == "contact_ines_alder"
    # the folder keeps Rob as its owner and the client is named first: neither is the new owner
    assert focus.index("fld_harlow_residence") < focus.index("contact_ines_alder")
    assert addressed("recipient_email", world.records, focus, request) is not None


def test_make_me_the_owner_makes_the_speaker_the_owner_not_another_grantee(
    inputs: Inputs,
) -> None:
    world = build_world(inputs.seeds["cloud_storage"])
    request = (
        "Ines here. Rob leaves on Friday - check who has access to /Clients/Harlow Residence"
        " and make me the owner."
    )
    transfer = inputs.pool["drive_transfer_ownership"]
    seen = [r.id for r in world.records if r.id.startswith("perm_planning")]
    plan = plan_arguments(transfer, world, focus_records(world, request), request, seen)
    assert plan.arguments["new_owner_email"] == "ines.alder@alderfinch.example.com"
    unnamed = request.replace("Ines here. ", "")  # who 'me' is, nothing says
    plan = plan_arguments(transfer, world, focus_records(world, unnamed), unnamed, seen)
    assert plan.arguments.get("new_owner_email") != "ines.alder@alderfinch.example.com"


def test_the_draft_invoice_for_the_customer_is_the_one_finalised(inputs: Inputs) -> None:
    seed = inputs.seeds["payments_invoicing"]
    world = build_world(seed)
    request = (
        "Finalise the draft banner invoice for Orbit Events and send it to their billing address."
    )
    focus = focus_records(world, request)
    shown = " ".join(r.id for r in world.records if r.id.startswith("inv_"))
    planned = plan_step(
        inputs.pool,
        seed,
        world,
        inputs.pool["billing_finalize_and_send_invoice"],
        request,
        focus,
        shown,
    )
    assert isinstance(planned, StepPlan)
    assert planned.plan.arguments["invoice_id"] == "inv_2024_0121"


def test_the_account_blocked_is_the_described_comments_author(inputs: Inputs) -> None:
    spam = SPAM.model_copy(update={"attributes": {**SPAM.attributes, "handle": "@gains"}})
    world = World(today="2024-11-02", records=(ANGRY, spam, FAN))
    request = "Block the account behind the spam comment with a crypto link."
    block = inputs.pool["social_block_and_report_user"]
    shown = "@truth_22 Your beans are moldy; @gains crypto signals"
    plan = plan_arguments(block, world, (spam.id,), request, [ANGRY.id, spam.id], shown)
    assert plan.arguments["user_handle"] == "@gains"
