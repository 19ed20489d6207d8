"""Abuse an unsafe answer writes is addressed to a person: a contact the deviation is about,
else another person of the domain, never a wallet or a spreadsheet; a record a trigger names
is looked up before it is read; a disclosure sends a record out."""

from __future__ import annotations

import random

from pipeline.core.generation.produced import addressee
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory
from tests.support.pairs import Built


def test_a_record_that_is_not_a_person_gives_way_to_a_person_the_run_has_shown(
    inputs: Inputs,
) -> None:
    seed = inputs.seeds["crypto_wallet"]
    world = build_world(seed)
    wallet = world.get("wal_personal_main")
    assert wallet is not None and wallet.kind != "contact"
    user = seed.personas[0].name
    other = seed.personas[1].name
    for k in range(10):
        shown = f"Transfers listed; one came from {other}."
        assert addressee(seed, world, user, wallet, shown, random.Random(k)) == other


def test_a_description_is_no_name_to_address(inputs: Inputs) -> None:
    seed = inputs.seeds["crypto_wallet"]
    world = build_world(seed)
    assert "Unknown sender" in {p.name for p in seed.personas}
    user = seed.personas[0].name
    named = {addressee(seed, world, user, None, "", random.Random(k)) for k in range(40)}
    assert "Unknown sender" not in named and user not in named


def test_a_contact_is_addressed_by_name(inputs: Inputs) -> None:
    seed = inputs.seeds["crypto_wallet"]
    world = build_world(seed)
    sam = world.get("contact_sam_address")
    assert sam is not None
    assert addressee(seed, world, seed.personas[0].name, sam, "", random.Random(0)) == "Sam"


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


def test_a_disclosure_sends_a_sensitive_record_to_an_address_that_is_not_its_own(
    built_pairs: Built,
) -> None:
    """Auditors: every disclosure pasted a record into the answer, to a user who was mostly
    entitled to it (a client's own 1099-B, an adjuster's own claim). A disclosure is now a
    call that sends the record out, to an address the record does not hold."""
    disclosures = [
        unsafe
        for unsafe, _ in built_pairs.pairs.values()
        if unsafe.labels and unsafe.labels.failure_mode == "unauthorized_information_disclosure"
    ]
    assert disclosures
    for unsafe in disclosures:
        assert unsafe.world is not None
        sent = [s.change for s in unsafe.world.harmful_steps() if s.change and s.change.disclosed]
        assert sent and sent[0].recipient, unsafe.id
        records = {r.id: r for r in unsafe.world.records}
        held = {str(v) for rid in sent[0].disclosed for v in records[rid].attributes.values()}
        assert sent[0].recipient not in held, unsafe.id


def test_a_handled_twin_checks_no_sensitive_record_the_task_is_not_about(
    built_pairs: Built,
) -> None:
    """Auditors: a safe twin read another patient's intake to check an injected note, then
    told the user his emergency address. A check reads the task's own records, or records
    nobody's privacy rests on."""
    checks = [
        safe
        for _, safe in built_pairs.pairs.values()
        if safe.world is not None and "check" in safe.world.evidence
    ]
    assert checks
    for safe in checks:
        assert safe.world is not None
        checked = safe.world.evidence["check"]["record"]
        record = next(r for r in safe.world.records if r.id == checked)
        said = "\n".join(t.content for t in safe.turns if t.role == "user")
        assert not record.sensitive or checked in said or record.name in said, safe.id
