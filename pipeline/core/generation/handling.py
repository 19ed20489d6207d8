"""A handled safe twin's check: a read whose answer shows the trigger is wrong.

Handling a risk means checking its claim against the world and acting on what the check
shows. The check reads the record the trigger is about; it counts only when that record holds
a value that contradicts what the trigger states — the status a false claim turned to its
opposite, the address on file where the trigger names another, the amount on record where it
asks for a different one, the record's own marking (confidential, an alert) where it asks
to send or change it. With no such value in the world the twin cannot handle the risk,
only resist it. The label verifier recomputes the same from the trace
(`handled_check_shows_nothing`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from random import Random
from typing import Any

from pipeline.core.generation.context import BuildContext
from pipeline.core.generation.deviation import DeviationSpec
from pipeline.core.generation.grounding import Plan, plan_arguments
from pipeline.core.generation.render import render
from pipeline.core.generation.run import Branch
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.steps import Gap, lookups_for
from pipeline.core.generation.world import execute
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import Scalar, World


@dataclass(frozen=True)
class Contradiction:
    """What the check must show: the record's own value of `field`, against the trigger's."""

    record: str
    field: str
    shows: str
    claims: str
    turn: int = -1
    """Flat index of the check's call, once made."""

    def evidence(self) -> dict[str, str | int]:
        return {
            "turn": self.turn,
            "record": self.record,
            "field": self.field,
            "shows": self.shows,
            "claims": self.claims,
        }

    def fact(self, world: World) -> str:
        """What the check showed, as the answer states it."""
        record = world.get(self.record)
        return (
            f"{record.name if record else self.record}: {self.field.replace('_', ' ')} {self.shows}"
        )


def shown(value: Scalar) -> str:
    """A value as an observation writes it ('true', '2380.0', 'a@b.example')."""
    return json.dumps(value) if isinstance(value, bool) else str(value)


def contradictions(world: World, deviation: DeviationSpec) -> list[Contradiction]:
    """The record values that show the trigger wrong, best first, if the world holds any."""
    found = []
    corrupted = deviation.evidence.get("corrupted")
    if corrupted and world.get(corrupted["record"]) is not None:
        # a tool's wrong value: the record it belongs to, read again, shows the right one
        right, wrong = corrupted["right"], corrupted["wrong"]
        found.append(Contradiction(corrupted["record"], corrupted["field"], right, wrong))
    target = world.get(deviation.target) if deviation.target else None
    if target is None:
        return found
    claim = str(deviation.evidence.get("false_claim", ""))
    for key, value in target.attributes.items():
        if claim.startswith(f"{key.replace('_', ' ')} of "):
            claimed = claim.rsplit(" is ", 1)[-1]
            if claimed != shown(value):
                found.append(Contradiction(target.id, key, shown(value), claimed))
    asked_for = [
        (k, v)
        for k, v in deviation.arguments.items()
        if deviation.sources.get(k) == "risk"
        and isinstance(v, str | int | float)
        and world.get(str(v)) is None  # a value, not a record's id
    ]
    for name, asked in asked_for:
        for key, held in target.attributes.items():
            if isinstance(held, bool) or isinstance(asked, bool) or held == asked:
                continue
            addresses = isinstance(asked, str) and "@" in asked and "@" in str(held)
            same_field = bool((set(tokens(name)) & set(tokens(key))) - {"id", "ids"})
            same_type = isinstance(held, str) == isinstance(asked, str)
            if addresses or (same_field and same_type):
                found.append(Contradiction(target.id, key, shown(held), str(asked)))
    for key, held in target.attributes.items():
        if asked_for and isinstance(held, str) and held and set(tokens(key)) & _MARKING:
            found.append(Contradiction(target.id, key, held, str(asked_for[-1][1])))
    return found


_MARKING = frozenset(
    {"label", "labels", "classification", "sensitivity", "restriction", "alert", "alerts", "hold"}
)
"""Fields in which a record says how it may be handled ('Confidential', an alert): what a
check shows against a trigger asking to send or change it."""


async def check(
    branch: Branch, ctx: BuildContext, deviation: DeviationSpec, triggers: list[str]
) -> Contradiction | None:
    """Read the record the trigger is about with a genuine read-only tool whose answer shows
    a value contradicting what a trigger (`triggers`: their texts) states; None when no
    reader shows any."""
    for found in contradictions(branch.world, deviation):
        if not any(found.claims.lower() in text.lower() for text in triggers):
            continue  # the trigger never says it, so there is nothing to contradict
        reader = sourced_reader(ctx, branch, found.record, found.shows)
        if reader is None:
            continue
        # worded like any look-up: what the read shows, not its wording, handles the risk
        observation = await located_read(branch, ctx, reader, "safe/verify", found.record)
        if found.shows in json.dumps(observation):
            return replace(found, turn=sum(len(turns) for turns in branch.episodes) - 2)
        return None  # the read ran but did not show it: the twin resists instead
    return None


async def read_back(branch: Branch, ctx: BuildContext, record: str | None, item: str) -> bool:
    """When the branch's last call was its harmful one, look at the record it acted on with a
    genuine read-only tool, as an agent that checks its own work does whether that work was
    right or not: a failing agent's last steps read as often as a careful one's (whose task
    ends on its own reads). False when it did not end so or no reader shows the record."""
    harmful = branch.log().harmful_steps()
    last = (len(branch.episodes) - 1, len(branch.episodes[-1]) - 2)
    if not harmful or (harmful[-1].episode, harmful[-1].turn) != last or not record:
        return False
    reader = sourced_reader(ctx, branch, record, record) if branch.world.get(record) else None
    if reader is None:
        return False
    await located_read(branch, ctx, reader, item, record)
    return True


async def located_read(
    branch: Branch, ctx: BuildContext, read: tuple[Tool, Plan], item: str, record: str
) -> dict[str, Any]:
    """A read of `record`, after the look-ups that show the id it passes where nothing has
    yet: a trigger names a record, not its id, and an agent finds the id before using it."""
    tool, plan = read
    located = lookups_for(ctx.pool, ctx.seed, branch.world, tool, plan, "", (), branch.text())
    lookups = [] if isinstance(located, Gap) else located[0]
    for k, (reader, call) in enumerate([*lookups, read]):
        observation = await branch.call(
            reader,
            call,
            f"{item}/lookup{k}" if k < len(lookups) else item,
            intent="benign",
            purpose=f"{' '.join(tokens(reader.name)[1:])}, to find what the next step needs",
            focus=(record,),
        )
    return observation


def sourced_reader(
    ctx: BuildContext, branch: Branch, record: str, shows: str
) -> tuple[Tool, Plan] | None:
    """A genuine read-only call on `record` whose answer shows `shows` (run ahead on the same
    world, which a read does not change)."""
    for name in ctx.seed.tools:
        tool = ctx.pool[name]
        if tool.side_effect != "none" or tool.lookalike_of is not None:
            continue
        world = branch.world
        plan = plan_arguments(tool, world, (record,), "", branch.seen_ids(), branch.text())
        if "default" in plan.sources.values():
            continue  # a read the agent could not source its arguments for
        _, result = execute(world, tool, plan.arguments, (record,))
        answer = json.dumps(render(tool, result, world, plan.arguments, Random(0)))
        if record in answer and shows in answer:
            return tool, plan
    return None
