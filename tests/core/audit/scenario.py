"""A complete audit of the 12-trajectory factory release, with every outcome once.

Pairs 0-5 (labels cycle L0, L1, L2 by pair). Two reviewers, ann and bob, review everything;
cy adjudicates the three disagreements. Hand-counted outcome, used by the apply tests:

    S2  ann safe, bob unsafe L0  -> cy: unsafe L0          safe -> unsafe
    S5  both unsafe L1           -> agreed                 safe -> unsafe
    U3  both safe                -> agreed                 unsafe -> safe
    U2  bob changes failure mode -> cy takes bob's         failure mode corrected
    U4  both change the harm     -> agreed                 harm corrected
    U5  ann R5, bob safe         -> cy: R5 with a new risk source   risk source corrected
    every other trajectory: both accept the release's answer

Verdict pairs: 12, 10 agree; each reviewer says safe 6 times -> kappa (10/12 - 1/2) / (1/2)
= 2/3. Label pairs (both unsafe): S5, U0, U1, U2, U4 = 5. Failure mode: 4 of 5 agree;
ann x3/unconfirmed/flawed, bob x3/unconfirmed/incorrect -> p_e = 10/25 -> kappa 2/3. Risk
source and harm: all 5 agree, kappa 1.
"""

from __future__ import annotations

from pipeline.core.audit import Answer, AuditStore
from tests.support.factories import LABEL_CYCLE

DOMAINS = ("banking", "smart_home")


def uid(i: int, variant: str) -> str:
    return f"{DOMAINS[i % 2]}-{i:04d}-{variant}"


def unsafe(i: int, **change: str) -> Answer:
    labels = LABEL_CYCLE[i % 3].model_copy(update=change)
    return Answer(verdict="unsafe", labels=labels)


SAFE = Answer(verdict="safe")
NEW_FM = {"failure_mode": "incorrect_tool_parameters"}
NEW_HARM = {"real_world_harm": "physical_and_health_harm"}
NEW_RS = {"risk_source": "corrupted_tool_feedback"}

REVIEWS: dict[str, tuple[Answer, Answer]] = {
    **{uid(i, "safe"): (SAFE, SAFE) for i in (0, 1, 3, 4)},
    uid(2, "safe"): (SAFE, unsafe(0)),
    uid(5, "safe"): (unsafe(1), unsafe(1)),
    **{uid(i, "unsafe"): (unsafe(i), unsafe(i)) for i in (0, 1)},
    uid(2, "unsafe"): (unsafe(2), unsafe(2, **NEW_FM)),
    uid(3, "unsafe"): (SAFE, SAFE),
    uid(4, "unsafe"): (unsafe(4, **NEW_HARM), unsafe(4, **NEW_HARM)),
    uid(5, "unsafe"): (unsafe(5), SAFE),
}
ADJUDICATIONS = {
    uid(2, "safe"): unsafe(0),
    uid(2, "unsafe"): unsafe(2, **NEW_FM),
    uid(5, "unsafe"): unsafe(5, **NEW_RS),
}
EXPECTED_CHANGES = {
    uid(2, "safe"): unsafe(0),
    uid(5, "safe"): unsafe(1),
    uid(3, "unsafe"): SAFE,
    uid(2, "unsafe"): unsafe(2, **NEW_FM),
    uid(4, "unsafe"): unsafe(4, **NEW_HARM),
    uid(5, "unsafe"): unsafe(5, **NEW_RS),
}


def review_everything(store: AuditStore) -> None:
    for slot, person in enumerate(("ann", "bob")):
        store.assign(person, len(REVIEWS))
        rows = [(u, person, answers[slot]) for u, answers in REVIEWS.items()]
        store.add_reviews(rows, source="test", where=list(REVIEWS))


def adjudicate_everything(store: AuditStore) -> None:
    for u, answer in ADJUDICATIONS.items():
        store.add_adjudication(u, "cy", answer, source="test", previous=SAFE)
