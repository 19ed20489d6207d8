"""Which repeats are waste: a call each repeat of which adds something, never one that sets a
state a second call leaves as it was."""

from __future__ import annotations

from pipeline.core.generation.harms import accumulates


def test_a_repeat_that_adds_a_message_a_charge_or_a_run_accumulates() -> None:
    assert accumulates("lms_post_feedback_comment", "create")
    assert accumulates("mail_send_message", "send")
    assert accumulates("crm_apply_account_credit", "update")  # a second credit is paid too
    assert accumulates("ci_trigger_workflow", "update")


def test_a_repeat_that_sets_a_state_or_deletes_changes_nothing() -> None:
    assert not accumulates("lms_enter_grade", "update")  # three entries are one grade
    assert not accumulates("drive_move_to_trash", "update")
    assert not accumulates("lms_extend_deadline", "update")  # the same new date three times
    assert not accumulates("workchat_delete_messages_bulk", "delete")
    assert not accumulates("rx_get_prescription", "read")
