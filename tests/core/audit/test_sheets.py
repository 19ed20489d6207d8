"""Offline review sheets: CSV and JSONL round trips and the same refusals as the web form."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from pipeline.core.audit import AuditStore, export_sheet, import_sheet, read_progress
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import InputError


def _read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _fill(row: dict[str, str]) -> dict[str, str]:
    """Accept the release's answer, as a reviewer would."""
    for key in ("verdict", "risk_source", "failure_mode", "real_world_harm"):
        row[key] = row[f"release_{key}"]
    return row


def test_csv_round_trip_stores_reviews_and_skips_blank_rows(
    store: AuditStore, tmp_path: Path
) -> None:
    sheet = tmp_path / "ann.csv"
    assert export_sheet(store, "ann", 4, sheet) == 4
    rows = _read_csv(sheet)
    assert [r["id"] for r in rows] == store.scope()[:4]
    _write_csv(sheet, [_fill(r) for r in rows[:3]] + rows[3:])
    result = import_sheet(store, sheet, default_taxonomy())
    assert (result.stored, result.blank) == (3, 1)
    assert [r.uid for r in store.reviews()] == store.scope()[:3]
    assert {r.source for r in store.reviews()} == {str(sheet)}


def test_jsonl_round_trip(store: AuditStore, tmp_path: Path) -> None:
    sheet = tmp_path / "bob.jsonl"
    export_sheet(store, "bob", 2, sheet)
    rows = [_fill(json.loads(line)) for line in sheet.read_text().splitlines()]
    rows[0].update(  # display names, as a person types them, are accepted
        verdict="unsafe",
        risk_source="Corrupted Tool Feedback",
        failure_mode="flawed_planning_or_reasoning",
        real_world_harm="privacy_and_confidentiality_harm",
    )
    sheet.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert import_sheet(store, sheet, default_taxonomy()).stored == 2
    first = store.reviews()[0].answer
    assert first.labels is not None and first.labels.risk_source == "corrupted_tool_feedback"


@pytest.mark.parametrize(
    ("row", "edit", "message", "field"),
    [
        # a read-only column changed: the checksum no longer matches, the column is named
        (1, {"release_verdict": "flipped"}, "read-only column was edited", "release_verdict"),
        (0, {"reviewer": "mallory"}, "read-only column was edited", "reviewer"),
        (0, {"id": "banking-9999-safe"}, "read-only column was edited", "id"),
        (2, {"verdict": "unsafe", "risk_source": "gremlins"}, "'gremlins' is not a", "risk_source"),
        (2, {"verdict": "safe", "risk_source": "gremlins"}, "carries no labels", "risk_source"),
    ],
)
def test_a_bad_row_is_refused_by_line_and_field_and_nothing_is_stored(
    store: AuditStore, tmp_path: Path, row: int, edit: dict[str, str], message: str, field: str
) -> None:
    sheet = tmp_path / "ann.csv"
    export_sheet(store, "ann", 3, sheet)
    rows = [_fill(r) for r in _read_csv(sheet)]
    rows[row].update(edit)
    _write_csv(sheet, rows)
    with pytest.raises(InputError, match=message) as err:
        import_sheet(store, sheet, default_taxonomy())
    assert (err.value.record, err.value.field) == (f"line {row + 2}", field)
    assert store.reviews() == []  # the good rows before it were not stored either


def test_importing_the_same_sheet_twice_is_a_second_review(
    store: AuditStore, tmp_path: Path
) -> None:
    sheet = tmp_path / "ann.csv"
    export_sheet(store, "ann", 2, sheet)
    _write_csv(sheet, [_fill(r) for r in _read_csv(sheet)])
    import_sheet(store, sheet, default_taxonomy())
    with pytest.raises(InputError, match="already reviewed"):
        import_sheet(store, sheet, default_taxonomy())
    assert read_progress(store).reviewed_by["ann"] == 2


def test_a_missing_column_is_named(store: AuditStore, tmp_path: Path) -> None:
    sheet = tmp_path / "ann.csv"
    export_sheet(store, "ann", 1, sheet)
    rows = _read_csv(sheet)
    del rows[0]["checksum"]
    _write_csv(sheet, rows)
    with pytest.raises(InputError, match="column is missing") as err:
        import_sheet(store, sheet, default_taxonomy())
    assert err.value.field == "checksum"


def test_csv_cells_cannot_run_as_spreadsheet_formulas(store: AuditStore, tmp_path: Path) -> None:
    sheet = tmp_path / "ann.csv"
    export_sheet(store, "=HYPERLINK(1)", 2, sheet)
    rows = _read_csv(sheet)
    assert {r["reviewer"] for r in rows} == {"'=HYPERLINK(1)"}
    # the quote is undone on import, so the checksum over the reviewer column still holds
    _write_csv(sheet, [_fill(r) for r in rows])
    assert import_sheet(store, sheet, default_taxonomy()).stored == 2
    assert {r.person for r in store.reviews()} == {"=HYPERLINK(1)"}


def test_the_sheet_carries_the_trace_as_text(store: AuditStore, tmp_path: Path) -> None:
    sheet = tmp_path / "ann.jsonl"
    export_sheet(store, "ann", 1, sheet)
    trace = json.loads(sheet.read_text())["trace"]
    assert trace.startswith("[TOOLS]: read_inbox, get_account_balance")
    assert "[ACTION]: Complete" in trace and "SYSTEM NOTE" in trace
