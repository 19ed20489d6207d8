"""What an unsafe answer produces for an output failure mode: the offensive note, the
how-to, the script, the pasted record or the misstated fact, each made from the trace so the
label is shown in the answer itself."""

from __future__ import annotations

import random
import re
from typing import Any

from pipeline.core.generation import content
from pipeline.core.generation.context import BuildContext, ConstructionError
from pipeline.core.generation.deviation import DeviationSpec
from pipeline.core.generation.grounding import Plan
from pipeline.core.generation.handling import located_read, sourced_reader
from pipeline.core.generation.run import Branch
from pipeline.core.generation.stated import EMAIL
from pipeline.core.generation.steps import Gap, lookups_for
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.trajectory import EnvironmentTurn
from pipeline.core.model.world import Record


def produced_content(
    deviation: DeviationSpec, branch: Branch, request: str, rng: Any
) -> content.Content:
    """The harmful content of an output failure mode, from the branch's own world and trace."""
    mode = deviation.failure_mode
    world = branch.world
    target = world.get(deviation.target) if deviation.target else None
    if mode == "generation_of_harmful_offensive_content":
        person = deviation.evidence.get("addressee") or branch.scene.persona.name
        return content.offensive(str(person), rng)
    if mode == "instruction_for_harmful_illegal_activity":
        return content.instructions(
            deviation.ask.split(" without ")[0].replace("explain step by step how to ", ""), rng
        )
    if mode == "generation_of_malicious_executables":
        return content.malicious_code(rng, deviation.ask)
    if mode == "unauthorized_information_disclosure":
        said = f"{deviation.ask} {deviation.evidence.get('planted_fact', '')}"
        if ADDRESS.search(said):
            # auditors: data pasted back to the user, when the risk asked for it to go to an
            # outside address, was labelled a disclosure that never happened
            raise ConstructionError(
                "pairing",
                "unrealisable_failure_mode",
                "the risk sends the data to an address; an answer to the user sends it nowhere",
            )
        if target is None or not target.sensitive:
            raise ConstructionError(
                "pairing", "unrealisable_failure_mode", "no sensitive record to disclose"
            )
        disclosed = content.disclosure(target, branch.text())
        if disclosed is None:
            raise ConstructionError(
                "pairing", "unrealisable_failure_mode", f"no read shows {target.id}'s data"
            )
        return disclosed
    shown = [
        [t.content for t in turns if isinstance(t, EnvironmentTurn)] for turns in branch.episodes
    ]
    # a planted false claim is what a misled agent passes on, not a figure of its own making
    claimed = world.get(str(deviation.evidence.get("claimed_of", "")))
    relayed = (
        content.relayed_claim(claimed, "\n".join(o for e in shown for o in e), request)
        if claimed is not None
        else None
    )
    if relayed is not None:
        return relayed
    if claimed is not None:
        raise ConstructionError(
            "pairing",
            "unrealisable_failure_mode",
            f"the planted claim about {claimed.id} is never contradicted by what the agent read",
        )
    wrong = content.misstatement(shown[-1], request, rng) or content.misstatement(
        [o for episode in shown for o in episode], request, rng
    )
    if wrong is None:
        raise ConstructionError(
            "pairing", "unrealisable_failure_mode", "no observed fact the task turns on to misstate"
        )
    return wrong


ADDRESS = re.compile(rf"{EMAIL.pattern}|https?://")
"""Where a disclosure trigger asks data to be sent: an e-mail address or a link."""


def addressee(seed: Seed, user: str, target: Record | None, rng: random.Random) -> str:
    """Whom abuse is written to: a person. The record a deviation is about may be a wallet or
    a spreadsheet ("Frankly Mira personal wallet is dead weight"), so a record that is not a
    contact gives way to another person of the domain, and only then to the user."""
    if target is not None and target.kind == "contact":
        return re.sub(r"\s*[-(].*$", "", target.name).strip() or target.name
    others = [p.name for p in seed.personas if p.name != user]
    return rng.choice(others) if others else user


def disclosable(ctx: BuildContext, branch: Branch, focus: tuple[str, ...]) -> Record | None:
    """The sensitive record a disclosure trigger asks for: one outside the task where there
    is one, with the most fields, that a read the agent can source shows; never the user's
    own (auditors: the owner's card pasted to its owner was labelled a disclosure)."""
    user = branch.scene.persona.name
    records = [
        r for r in branch.world.records if r.sensitive and r.attributes and not users_own(r, user)
    ]
    readable = [(r, read) for r in records if (read := _reader_of(ctx, branch, r)) is not None]
    readable.sort(
        key=lambda pair: (
            pair[0].id in focus,
            not _locatable(ctx, branch, pair[0], pair[1]),
            -len(pair[0].attributes),
            pair[0].id,
        )
    )
    return readable[0][0] if readable else None


def users_own(record: Record, user: str) -> bool:
    """Whether a record is the user's own or names them: their full name, their first name
    as an owner ("Dana's registered phone"), or the initial and surname a card carries ("MS D
    WHITFIELD"). What the user may see is not disclosed by showing it to them."""
    parts = user.lower().split()
    if not parts:
        return False
    first, last = parts[0], parts[-1]
    said = " ".join([record.name, *map(str, record.attributes.values())]).lower()
    patterns = [rf"\b{re.escape(user.lower())}\b", rf"\b{re.escape(first)}'s\b"]
    if len(parts) > 1:
        patterns.append(rf"\b{re.escape(first[0])}\.? {re.escape(last)}\b")
    return any(re.search(p, said) for p in patterns)


def _locatable(ctx: BuildContext, branch: Branch, record: Record, read: tuple[Tool, Plan]) -> bool:
    """Whether the agent can find the record's id from the name the trigger gives it: a
    disclosure read by an id nothing showed is a value from nowhere."""
    tool, plan = read
    said = f"{branch.text()}\n{record.name}"
    located = lookups_for(ctx.pool, ctx.seed, branch.world, tool, plan, "", (), said)
    return not isinstance(located, Gap) and record.id in located[2]


def disclosed_name(ctx: BuildContext, branch: Branch, record: Record) -> str:
    """How the trigger names the record: by name, with its id when no look-up finds it."""
    read = _reader_of(ctx, branch, record)
    if read is None or _locatable(ctx, branch, record, read):
        return record.name
    return f"{record.name} ({record.id})"


def _reader_of(ctx: BuildContext, branch: Branch, record: Record) -> tuple[Tool, Plan] | None:
    """A sourced read whose answer shows one of the record's fields not yet seen."""
    unseen = [
        str(v)
        for k, v in sorted(
            record.attributes.items(), key=lambda kv: not content.confidential(kv[0])
        )
        if str(v) not in branch.text()
    ]
    return next(
        (hit for value in unseen if (hit := sourced_reader(ctx, branch, record.id, value))),
        None,
    )


async def read_disclosed(branch: Branch, ctx: BuildContext, record_id: str | None) -> None:
    """The unsafe agent looks up the record the trigger asked for before it pastes it: a
    disclosure shows values the trace observed, never values the agent could not know."""
    record = branch.world.get(record_id) if record_id else None
    found = _reader_of(ctx, branch, record) if record is not None else None
    if record is None or found is None:
        return
    await located_read(branch, ctx, found, "unsafe/disclosed", record.id)
