"""The impossible-value rule of `benchmarks.trace_quality`: a share over 100 is impossible, a
tax amount over 100 is not."""

from __future__ import annotations

from benchmarks.trace_quality import _out_of_range


def test_a_share_over_a_hundred_is_impossible_and_a_tax_amount_is_not() -> None:
    today = "2024-09-01"
    assert _out_of_range("discount_pct", 140, today, {}) == "discount_pct=140"
    assert _out_of_range("vat_rate", 120.0, today, {}) == "vat_rate=120.0"
    assert _out_of_range("vat", 285.0, today, {"subtotal": 1500.0, "total": 1785.0}) is None
    assert _out_of_range("vat_rate", 19, today, {}) is None


def test_a_status_written_as_a_number_is_impossible_and_an_http_status_code_is_not() -> None:
    today = "2024-09-01"
    assert _out_of_range("status", 43, today, {}) == "status=43"
    assert _out_of_range("status_code", 200, today, {}) is None
