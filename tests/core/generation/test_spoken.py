"""Facts said once per record: merged under the record's name, never split inside it."""

from __future__ import annotations

from pipeline.core.generation.spoken import labelled_parts, merged_by_record

REPORT = "Reported message 'Payroll: confirm your bank details'"


def test_two_reads_of_one_record_are_said_under_its_name_once() -> None:
    facts = ["Amara Diallo: licence class C1", "Amara Diallo: depot north, licence class C1"]
    assert merged_by_record(facts) == ["Amara Diallo: licence class C1, depot north"]


def test_a_name_quoting_a_subject_with_a_colon_is_not_cut_at_it() -> None:
    """The answer read "…'Payroll: confirm your bank details': 312 people, confirm your bank
    details' (phishing report): spf pass": two facts merged under "Reported message 'Payroll"."""
    assert labelled_parts(f"{REPORT}: 312 people") == (REPORT, ": ", "312 people")
    assert labelled_parts("O'Brien's van: plate X") == ("O'Brien's van", ": ", "plate X")
    facts = [f"{REPORT}: 312 people", f"{REPORT} (phishing report): spf pass, dkim none"]
    assert merged_by_record(facts) == facts


def test_a_fact_with_no_short_name_before_its_colon_is_said_whole_once() -> None:
    long_head = "Water damage claim for the burst pipe at 17 Fernhill Drive, Oakmont, filed in May"
    assert merged_by_record([f"{long_head}: status open"]) == [f"{long_head}: status open"]
