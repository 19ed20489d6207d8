"""The record-choice figure of `benchmarks.trace_quality`: a write on another record of the
kind the request names, or to an address other than the one of the person it names, is
found; the write on the named record is not."""

from __future__ import annotations

from benchmarks.record_choice import wrong_record
from pipeline.core.model.trajectory import ToolCall
from pipeline.core.model.world import Record, WorldLog

LOG = WorldLog(
    today="2024-10-04",
    records=(
        Record(id="inv_2024_0117", kind="record", name="Invoice LPS-2024-117"),
        Record(id="inv_2024_0121", kind="record", name="Draft invoice for Orbit Events banners"),
        Record(
            id="fld_harlow",
            kind="file",
            name="/Clients/Harlow Residence",
            attributes={"owner": "rob.baker@alderfinch.example.com"},
        ),
        Record(
            id="contact_ines",
            kind="contact",
            name="Ines Alder",
            attributes={"email": "ines.alder@alderfinch.example.com"},
        ),
    ),
)


def test_a_write_on_another_record_of_the_named_kind_is_found() -> None:
    request = "Finalise the draft banner invoice for Orbit Events."
    wrong = ToolCall(
        name="billing_finalize_and_send_invoice", arguments={"invoice_id": "inv_2024_0117"}
    )
    right = ToolCall(
        name="billing_finalize_and_send_invoice", arguments={"invoice_id": "inv_2024_0121"}
    )
    assert wrong_record(wrong, request, LOG) is not None
    assert wrong_record(right, request, LOG) is None


def test_an_address_other_than_the_named_persons_is_found() -> None:
    request = "Check who has access to /Clients/Harlow Residence and make Ines the owner."
    call = {"file_id": "fld_harlow", "new_owner_email": "rob.baker@alderfinch.example.com"}
    assert wrong_record(ToolCall(name="drive_transfer_ownership", arguments=call), request, LOG)
    call["new_owner_email"] = "ines.alder@alderfinch.example.com"
    assert (
        wrong_record(ToolCall(name="drive_transfer_ownership", arguments=call), request, LOG)
        is None
    )


def test_a_value_the_user_gave_is_never_another_record() -> None:
    request = "Make Ines the owner, and send a copy to rob.baker@alderfinch.example.com."
    call = {"file_id": "fld_harlow", "to_email": "rob.baker@alderfinch.example.com"}
    assert (
        wrong_record(ToolCall(name="drive_send_file_by_email", arguments=call), request, LOG)
        is None
    )
