"""Abuse an unsafe answer writes is addressed to a person: a contact the deviation is about,
else another person of the domain, never a wallet or a spreadsheet; a record a trigger names
is looked up before it is read."""

from __future__ import annotations

import random

from pipeline.core.generation.produced import ADDRESS, addressee, users_own
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory
from tests.support.pairs import Built


def test_a_record_that_is_not_a_person_gives_way_to_another_person(inputs: Inputs) -> None:
    seed = inputs.seeds["crypto_wallet"]
    wallet = build_world(seed).get("wal_personal_main")
    assert wallet is not None and wallet.kind != "contact"
    user = seed.personas[0].name
    named = addressee(seed, user, wallet, random.Random(0))
    assert named in {p.name for p in seed.personas} - {user}


def test_a_contact_is_addressed_by_name(inputs: Inputs) -> None:
    seed = inputs.seeds["crypto_wallet"]
    sam = build_world(seed).get("contact_sam_address")
    assert sam is not None
    assert addressee(seed, seed.personas[0].name, sam, random.Random(0)) == "Sam"


def test_the_users_own_card_and_phone_are_theirs_and_another_customers_are_not(
    inputs: Inputs,
) -> None:
    """An 'unsafe' disclosure pasted the owner's own card to its owner: what the user may
    see is theirs, by their name, their first name as an owner, or a card's initial and
    surname; their mother's and another customer's records are not."""
    world = build_world(inputs.seeds["personal_banking"])
    own = {r.id for r in world.records if users_own(r, "Dana Whitfield")}
    assert {"card_debit_01", "dev_phone_01", "contact_dana_email"} <= own
    mum = next(r for r in world.records if r.name == "Margaret Whitfield")
    assert mum.id not in own
    crm = build_world(inputs.seeds["customer_support_crm"])
    assert not users_own(crm.get("cust_10442") or mum, "Rashmi Singh")
    assert users_own(crm.get("cust_10442") or mum, "Magnus Halvorsen")


def _ids_passed_before_shown(traj: Trajectory) -> list[str]:
    """World record ids a call passes that nothing before it (profile, tools, user, results,
    the call's own risky reasoning aside) showed."""
    ids = {r.id for r in traj.world.records} if traj.world else set()
    seen = [traj.profile, *(t.description for t in traj.tools)]
    unshown = []
    for turn in traj.turns:
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            text = "\n".join(seen)
            unshown += [
                f"{turn.action.name}:{v}"
                for v in turn.action.arguments.values()
                if isinstance(v, str) and v in ids and v not in text
            ]
        elif not isinstance(turn, AgentTurn):
            seen.append(turn.content)
    return unshown


def test_a_disclosure_and_a_check_look_the_record_up_before_reading_it(built_pairs: Built) -> None:
    """The trigger names a record by name: the unsafe agent finds its id before it reads and
    pastes it, and a careful twin finds it before it checks the claim against it."""
    disclosures = [
        unsafe
        for unsafe, _ in built_pairs.pairs.values()
        if unsafe.labels and unsafe.labels.failure_mode == "unauthorized_information_disclosure"
    ]
    checks = [
        safe
        for _, safe in built_pairs.pairs.values()
        if safe.construction and safe.construction.get("safe_strategy") == "handled"
    ]
    assert disclosures and checks
    assert {t.id: _ids_passed_before_shown(t) for t in disclosures + checks} == {
        t.id: [] for t in disclosures + checks
    }


def test_data_asked_to_go_to_an_address_is_not_disclosed_by_pasting_it_to_the_user(
    built_pairs: Built,
) -> None:
    """Auditors found 8 of 31 disclosure traces whose risk asked for the data to go to an
    outside address, realised by pasting it into the answer to the user: nothing left. Such
    a disclosure is a call that sends it, or no disclosure trace at all."""
    disclosures = [
        unsafe
        for unsafe, _ in built_pairs.pairs.values()
        if unsafe.labels and unsafe.labels.failure_mode == "unauthorized_information_disclosure"
    ]
    assert disclosures
    for unsafe in disclosures:
        sent = unsafe.world is not None and any(
            s.change and s.change.disclosed for s in unsafe.world.steps
        )
        asked = " ".join(p.text for p in unsafe.risk_points)
        assert sent or not ADDRESS.search(asked), unsafe.id
