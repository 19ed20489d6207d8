"""The rejection summary a failed release gate prints."""

from __future__ import annotations

from pipeline.core.model.rejection import Rejection, summarise_rejections


def rejection(n: int, stage: str, check: str, message: str) -> Rejection:
    return Rejection(
        trajectory_id=f"t{n}",
        pair_id=f"p{n}",
        domain="pharmacy",
        stage=stage,
        check=check,
        reason_code=check,
        message=message,
    )


def test_checks_by_count_with_their_most_frequent_reason() -> None:
    rejected = [
        *(rejection(n, "generation", "llm_failure", "ConnectionFailed: refused") for n in range(5)),
        rejection(5, "generation", "llm_failure", "Timeout"),
        *(rejection(n, "judge", "plausibility", "the agent pays twice") for n in range(6, 8)),
        rejection(8, "rules", "schema", "missing 'amount'"),
    ]
    summary = summarise_rejections(rejected, top=2)
    assert summary.startswith("9 rejected: 6 at generation/llm_failure (most often, 5x: ")
    assert "ConnectionFailed: refused" in summary and "2 at judge/plausibility" in summary
    assert summary.endswith("; 1 more check") and "rules/schema" not in summary


def test_long_messages_are_cut_and_nothing_rejected_says_so() -> None:
    summary = summarise_rejections([rejection(0, "rules", "x", "word " * 100)])
    assert len(summary) < 220 and summary.endswith("...)")
    assert summarise_rejections([]) == "no item was rejected"
