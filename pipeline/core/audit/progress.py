"""Where each trajectory of an audit stands, and what its settled answer is.

unreviewed   no review yet
in_review    one review, or two assigned and one in
agreed       two reviews with the same verdict and labels: that answer stands
disagreed    two reviews that differ: waits for an adjudicator
adjudicated  a third person decided (the latest adjudication counts)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pipeline.core.audit.answers import Answer
from pipeline.core.audit.store import REVIEWS_PER_TRACE, AuditStore, Recorded

Status = Literal["unreviewed", "in_review", "agreed", "disagreed", "adjudicated"]
STATUSES: tuple[Status, ...] = ("unreviewed", "in_review", "agreed", "disagreed", "adjudicated")


@dataclass(frozen=True)
class TraceState:
    uid: str
    reviews: tuple[Recorded, ...] = ()
    """In the order they were stored; the first two are the double review."""
    adjudication: Recorded | None = None

    @property
    def status(self) -> Status:
        if self.adjudication is not None:
            return "adjudicated"
        if len(self.reviews) < REVIEWS_PER_TRACE:
            return "in_review" if self.reviews else "unreviewed"
        first, second = self.reviews[:REVIEWS_PER_TRACE]
        return "agreed" if first.answer.same_judgement(second.answer) else "disagreed"

    @property
    def settled(self) -> Answer | None:
        """The answer the audit stands by, or None while it is still open."""
        if self.adjudication is not None:
            return self.adjudication.answer
        if self.status == "agreed":
            return self.reviews[0].answer
        return None

    def reviewed_by(self, person: str) -> Recorded | None:
        return next((r for r in self.reviews if r.person == person), None)


@dataclass(frozen=True)
class Progress:
    states: dict[str, TraceState]
    """Every trajectory in scope, in queue order."""
    assigned: dict[str, list[str]]
    by_status: Counter[str] = field(default_factory=Counter)
    reviewed_by: Counter[str] = field(default_factory=Counter)
    assigned_to: Counter[str] = field(default_factory=Counter)
    adjudicated_by: Counter[str] = field(default_factory=Counter)

    @property
    def total(self) -> int:
        return len(self.states)

    @property
    def reviews_done(self) -> int:
        return sum(self.reviewed_by.values())


def trace_states(
    scope: Sequence[str], reviews: Iterable[Recorded], adjudications: Iterable[Recorded]
) -> dict[str, TraceState]:
    grouped: dict[str, list[Recorded]] = {uid: [] for uid in scope}
    for review in reviews:
        grouped.setdefault(review.uid, []).append(review)
    latest = {a.uid: a for a in adjudications}  # stored in order, so the last one wins
    return {
        uid: TraceState(uid=uid, reviews=tuple(found), adjudication=latest.get(uid))
        for uid, found in grouped.items()
    }


def read_progress(store: AuditStore) -> Progress:
    tables = store.snapshot()
    reviews, adjudications, assigned = tables.reviews, tables.adjudications, tables.assigned
    states = trace_states(tables.scope, reviews, adjudications)
    return Progress(
        states=states,
        assigned=assigned,
        by_status=Counter(state.status for state in states.values()),
        reviewed_by=Counter(r.person for r in reviews),
        assigned_to=Counter(person for people in assigned.values() for person in people),
        adjudicated_by=Counter(a.person for a in adjudications),
    )
