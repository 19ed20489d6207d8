"""Inter-reviewer agreement: raw agreement and Cohen's kappa, per axis.

Each doubly reviewed trajectory contributes one pair (first review, second review). The
verdict is compared on every pair; a label axis only on pairs where both reviewers said
unsafe, because a safe answer has no labels to compare (ATBench reports its fine-grained
agreement the same way). Kappa is undefined, and reported as None, when there are no pairs or
when chance agreement is already 1 (both reviewers used one and the same category throughout).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pipeline.core.audit.progress import TraceState
from pipeline.core.audit.store import REVIEWS_PER_TRACE
from pipeline.core.model.labels import AXES

AGREEMENT_AXES = ("verdict", *AXES)


@dataclass(frozen=True)
class AxisAgreement:
    axis: str
    """`verdict` or a taxonomy axis id."""
    pairs: int
    agreement: float | None
    """Share of pairs with the same answer; None without pairs."""
    kappa: float | None


def cohen_kappa(first: Sequence[str], second: Sequence[str]) -> float | None:
    """(p_o - p_e) / (1 - p_e) over two raters' answers to the same items."""
    if len(first) != len(second):
        raise ValueError(f"rater answer lists differ in length: {len(first)} vs {len(second)}")
    n = len(first)
    if n == 0:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    counts_a, counts_b = Counter(first), Counter(second)
    chance = sum(counts_a[c] * counts_b[c] for c in counts_a) / (n * n)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


def agreement_by_axis(states: Iterable[TraceState]) -> list[AxisAgreement]:
    answers: dict[str, tuple[list[str], list[str]]] = {a: ([], []) for a in AGREEMENT_AXES}
    for state in states:
        if len(state.reviews) < REVIEWS_PER_TRACE:
            continue
        first, second = (r.answer for r in state.reviews[:REVIEWS_PER_TRACE])
        answers["verdict"][0].append(first.verdict)
        answers["verdict"][1].append(second.verdict)
        if first.labels is None or second.labels is None:
            continue
        for axis in AXES:
            answers[axis][0].append(getattr(first.labels, axis))
            answers[axis][1].append(getattr(second.labels, axis))
    result = []
    for name, (a, b) in answers.items():
        same = sum(x == y for x, y in zip(a, b, strict=True))
        result.append(
            AxisAgreement(
                axis=name,
                pairs=len(a),
                agreement=same / len(a) if a else None,
                kappa=cohen_kappa(a, b),
            )
        )
    return result
