"""What a write did, said as an act: the verb in the past tense, the record it was about,
who it reached and what came back."""

from __future__ import annotations

from pipeline.core.generation.done import act, done_sentence, past, reports_act
from pipeline.core.model.world import Record, World, WorldChange

WORLD = World(
    today="2024-05-29",
    records=(
        Record(id="inv_0121", kind="invoice", name="Draft invoice for Orbit Events banners"),
        Record(id="file_old", kind="file", name="Harlow_Old_Drafts_Aug.dwg"),
        Record(id="cust_harbor", kind="contact", name="Harbor Cafe Ltd (billing)"),
    ),
)


def test_verbs_take_their_past_tense() -> None:
    assert [past(v) for v in ("apply", "send", "stop", "create", "transfer", "pay", "post")] == [
        "applied", "sent", "stopped", "created", "transferred", "paid", "posted",
    ]  # fmt: skip
    assert act("billing_finalize_and_send_invoice") == ("finalized and sent", "invoice")
    assert act("send_email") == ("sent", "email")
    assert act("soc_lookup_threat_intel") == ("looked up", "threat intel")
    assert act("infra_rollback_deployment") == ("rolled back", "deployment")
    assert act("hr_ai_rank_candidates") == ("ranked", "candidates")  # not "Aied rank …"
    assert act("bank_quick_transfer") == ("transferred", "")  # not "Quicked transfer"
    assert act("drive_cleanup_assistant")[0] == "cleaned up"  # not "Cleanuped"


def test_an_act_names_the_record_it_was_about_and_who_it_reached() -> None:
    sent = WorldChange(
        tool="billing_finalize_and_send_invoice",
        operation="send",
        target="inv_0121",
        arguments={"invoice_id": "inv_0121"},
        recipient="accounts@orbit.example.com",
    )
    assert done_sentence(sent, WORLD, "number INV-2024-0121") == (
        "Finalized and sent Draft invoice for Orbit Events banners to "
        "accounts@orbit.example.com (number INV-2024-0121)"
    )
    echoed = "sent to accounts@orbit.example.com, number INV-2024-0121"
    assert done_sentence(sent, WORLD, echoed).endswith("(number INV-2024-0121)")  # said once
    trashed = WorldChange(
        tool="drive_move_to_trash",
        operation="update",
        target="file_old",
        arguments={"file_ids": ["file_old"]},
    )
    assert done_sentence(trashed, WORLD, "", times=2) == (
        "Moved Harlow_Old_Drafts_Aug.dwg to trash, 2 times"
    )
    credited = WorldChange(
        tool="crm_apply_account_credit",
        operation="create",
        target="credit_1",
        arguments={"customer_id": "cust_harbor", "amount": 15.0},
    )
    assert done_sentence(credited, WORLD, "credit id credit_1") == (
        "Applied account credit for Harbor Cafe Ltd (credit id credit_1)"
    )


def test_an_act_is_told_apart_from_a_read() -> None:
    assert reports_act("Moved Harlow_Old_Drafts_Aug.dwg to trash")
    assert reports_act("Sent payment reminder for Invoice LPS-2024-117")
    assert not reports_act("Invoice LPS-2024-117: total 2480.0, status overdue")
    assert not reports_act("no trips for Van 17")


def test_an_act_on_a_list_of_ids_names_the_record_it_was_about() -> None:
    """'Deleted permanently (deleted 1)' told the user nothing of what was deleted: the
    call named the file only inside its `file_ids` list."""
    deleted = WorldChange(
        tool="drive_delete_permanently",
        operation="delete",
        target=None,
        arguments={"file_ids": ["file_old"]},
    )
    assert done_sentence(deleted, WORLD, "deleted 1") == (
        "Permanently deleted Harlow_Old_Drafts_Aug.dwg (deleted 1)"
    )


def test_a_comment_names_the_issue_its_call_gave_by_number() -> None:
    """Auditors' count: 'Commented on issue (comment id 4107)' named nothing the comment
    was about; the call gave the issue by its number."""
    issue = Record(
        id="issue_1317", kind="issue", name="Webhooks dropped on 502", attributes={"number": 1317}
    )
    world = World(today="2024-08-29", records=(issue,))
    commented = WorldChange(
        tool="repo_comment_on_issue",
        operation="create",
        target="comment_20240829_01",
        arguments={"repo": "northwind/payments-api", "number": 1317, "body": "Fixed in #488."},
    )
    assert "Webhooks dropped on 502" in done_sentence(commented, world, "")


def test_an_invite_names_whom_it_brought_in_not_the_channel() -> None:
    """Auditors read 'Invited Tara Brennan to channel' for three on-call engineers, and
    'Invited #shared-vendor-acme to channel' for one."""
    people = [Record(id=f"user_{n}", kind="contact", name=n.title()) for n in ("ana", "bo", "cy")]
    channel = Record(id="ch_vendor", kind="channel", name="#shared-vendor")
    world = World(today="2024-10-01", records=(*people, channel))
    for invited, said in ((people, "Invited 3 contacts to channel"), (people[:1], "Invited Ana")):
        change = WorldChange(
            tool="workchat_invite_to_channel",
            operation="update",
            target="ch_vendor",
            arguments={"channel_id": "ch_vendor", "user_ids": [p.id for p in invited]},
        )
        assert done_sentence(change, world, "").startswith(said)


def test_a_share_with_a_user_names_the_address_it_went_to() -> None:
    shared = WorldChange(
        tool="drive_share_with_user",
        operation="send",
        target="file_old",
        arguments={"file_id": "file_old", "recipient_email": "claims@mailbox-secure.net"},
        recipient="claims@mailbox-secure.net",
    )
    assert done_sentence(shared, WORLD, "") == (
        "Shared Harlow_Old_Drafts_Aug.dwg with claims@mailbox-secure.net"
    )


def test_an_act_on_no_record_names_its_object_by_the_argument_that_names_it() -> None:
    """'Triggered workflow (run id 96616)' did not say which workflow ran."""
    change = WorldChange(
        tool="ci_trigger_workflow",
        operation="update",
        target=None,
        arguments={"repo": "northwind/payments-api", "workflow_file": "ci.yml", "ref": "main"},
    )
    said = done_sentence(change, World(records=(), today="2024-08-29"), "run id 96616")
    assert said == "Triggered workflow ci.yml (run id 96616)"
