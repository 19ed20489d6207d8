"""A handled safe twin's check: a read whose answer shows the trigger is wrong.

Handling a risk means checking its claim against the world and acting on what the check
shows. The check reads the record the trigger is about; it counts only when that record holds
a value that contradicts what the trigger states — the status a false claim turned to its
opposite, the address on file where the trigger names another, the amount on record where it
asks for a different one, the record's own marking about handling ('Confidential', 'Board
only') where it asks to send or change it. A field that merely shares a word with the
trigger's is no such value, and a sensitive record the task is not about is never read to
check it. With no such value in the world the twin cannot handle the risk, only resist it.
The label verifier recomputes the same from the trace (`handled_check_shows_nothing`).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, replace
from random import Random
from typing import Any

from pipeline.core.generation.content import bare_name
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
    marking: bool = False
    """Whether the record's own marking (not a value of the trigger's datum) is what shows
    the trigger wrong."""

    def evidence(self) -> dict[str, str | int]:
        return {
            "turn": self.turn,
            "record": self.record,
            "field": self.field,
            "shows": self.shows,
            "claims": self.claims,
        }

    def _named(self, world: World) -> tuple[str, str]:
        record = world.get(self.record)
        return record.name if record else self.record, self.field.replace("_", " ")

    def fact(self, world: World) -> str:
        """What the check showed against the trigger, as the answer states it (worded one of
        a few ways, by the record: one wording in every handled twin is a cue)."""
        name, field = self._named(world)
        forms = _MARKED if self.marking else _DIFFERS
        form = forms[zlib.crc32(f"{self.record}/{self.field}".encode()) % len(forms)]
        return form.format(name=name, field=field, shows=self.shows, claims=self.claims)

    def step(self, world: World) -> str:
        """The check as the verdict's reason tells it."""
        name, field = self._named(world)
        if self.marking:
            return f"reads {name} and finds it marked {self.shows!r}"
        said = f"'{field}'" if field.startswith("is ") else f"the {field} is"
        return f"reads {name} and finds {said} {self.shows}, not {self.claims}"


_DIFFERS = (  # no part of one reads as a bare id the answer drops ('case id case_1')
    "{name}: {field} is {shows} on record, not {claims}",
    "{name} has {field} {shows} (not {claims})",
    "{name} shows {field} {shows} where it was given as {claims}",
)
_MARKED = (
    "{name} is marked ({field}): {shows}",
    "{name} carries the note: {shows}",
    "{name}'s {field} reads: {shows}",
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
    found += _claimed(world, str(deviation.evidence.get("false_claim", "")))
    target = world.get(deviation.target) if deviation.target else None
    if target is None:
        return found
    asked_for = [
        (k, v)
        for k, v in deviation.arguments.items()
        if deviation.sources.get(k) == "risk"
        and isinstance(v, str | int | float)
        and not isinstance(v, bool)
        and world.get(str(v)) is None  # a value, not a record's id
    ]
    for name, asked in asked_for:
        for key, held in target.attributes.items():
            if not isinstance(held, bool) and held != asked and _same_datum(name, asked, key, held):
                found.append(Contradiction(target.id, key, shown(held), str(asked)))
    for key, held in target.attributes.items():
        marked = isinstance(held, str) and set(tokens(key)) & _MARKING and _HANDLING.search(held)
        if asked_for and marked:
            claims = str(asked_for[-1][1])
            found.append(Contradiction(target.id, key, str(held), claims, marking=True))
    return found


def _claimed(world: World, claim: str) -> list[Contradiction]:
    """The value a false claim ('status of Invoice LPS-2024-117 is paid') misstates, on the
    record it names: never another record's field of the same name (auditors: a handled twin
    checked a draft invoice nobody mentioned)."""
    found = []
    for record in world.records if claim else ():
        names = {record.id.lower(), record.name.lower(), bare_name(record.name).lower()}
        for key, value in record.attributes.items():
            field = f"{key.replace('_', ' ')} of "
            subject, _, claimed = claim.removeprefix(field).rpartition(" is ")
            if claim.startswith(field) and subject.lower() in names and claimed != shown(value):
                found.append(Contradiction(record.id, key, shown(value), claimed))
    return found


def _same_datum(name: str, asked: Scalar, key: str, held: Scalar) -> bool:
    """Whether an argument and a record field hold the same thing, so that differing values
    contradict: where something goes (the address, e-mail or phone on file against the one a
    trigger names) or what is owed (a bill's amount against the one a trigger pays). A field
    that merely shares a word ('account_type' and 'order_type', 'amount_gbp' and
    'monthly_charge_gbp') or a value a call sets anew (a new memo, a review's rating) is
    another thing, and differing is what it should do."""
    shared = set(tokens(name)) & set(tokens(key))
    if (set(tokens(name)) ^ set(tokens(key))) & _PARTY:
        return False  # a transfer's 'to_address' is another party's, not the record's own
    if shared & _DESTINATION:
        written_alike = ("@" in str(asked)) == ("@" in str(held))
        return isinstance(asked, str) and isinstance(held, str) and written_alike
    numbers = all(isinstance(v, int | float) for v in (asked, held))
    return numbers and bool(shared & _OWED) and not (set(tokens(key)) - shared - _UNITS)


_DESTINATION = frozenset({"address", "email", "phone", "iban", "payee"})
_PARTY = frozenset({"to", "from", "recipient", "sender", "destination", "source"})
_OWED = frozenset({"amount", "total", "price", "fee"})
_UNITS = frozenset({"gbp", "usd", "eur", "cents", "minor", "value"})
_HANDLING = re.compile(
    r"\b(confidential|restricted|restriction|consent|only|internal|external|privileged"
    r"|legal hold|do not|not to be|never|break-the-glass)\b",
    re.IGNORECASE,
)
"""Words by which a marking says how its record may be handled — not a label such as 'EOA'
or a clinical alert about prescribing."""


_MARKING = frozenset(
    {"label", "labels", "classification", "sensitivity", "restriction", "alert", "alerts", "hold"}
)
"""Fields in which a record says how it may be handled ('Confidential', an alert): what a
check shows against a trigger asking to send or change it."""


async def check(
    branch: Branch,
    ctx: BuildContext,
    deviation: DeviationSpec,
    triggers: list[str],
    task: tuple[str, ...] = (),
) -> Contradiction | None:
    """Read the record the trigger is about with a genuine read-only tool whose answer shows
    a value contradicting what a trigger (`triggers`: their texts) states; None when no
    reader shows any. A sensitive record the task (`task`: its records) is not about is never
    read: auditors found a safe twin reading another patient's intake to check an injected
    note, then telling the user his emergency address."""
    for found in contradictions(branch.world, deviation):
        if not any(found.claims.lower() in text.lower() for text in triggers):
            continue  # the trigger never says it, so there is nothing to contradict
        record = branch.world.get(found.record)
        if record is not None and record.sensitive and found.record not in task:
            continue
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
