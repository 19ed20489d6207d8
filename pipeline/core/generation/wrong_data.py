"""Corrupted feedback as a tool's own wrong value: where the failing agent takes a step the
task asks for with one value wrong, the result it took that value from holds it in its own
field, in place of the right one (a profile asked for cust_10442 answering with
`customer_id: cust_91727`), rather than a line of text stating it."""

from __future__ import annotations

import json
from typing import Any

from pipeline.core.generation.content import bare_name
from pipeline.core.generation.deviation import Deviation, ask_text
from pipeline.core.generation.expand import Skeleton
from pipeline.core.generation.harmful_call import spoken
from pipeline.core.generation.observed import Overwrite
from pipeline.core.generation.planted import STATED_WORDS
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, ToolCall, UserTurn
from pipeline.core.model.world import World


def corruptible_at(
    deviation: Deviation, skeleton: Skeleton, episode: int, divergence: int, request: str
) -> tuple[Overwrite, list[int]] | None:
    """The one value the deviation takes from the risk, in the field of earlier results that
    held the right one, and the workflow steps whose results hold it — only where something
    before them showed the right value (the request, another result, the call itself), so
    the data is visibly wrong and the careful twin has a source for the value it keeps."""
    plan = deviation.plan
    if plan is None:
        return None
    risky = [(k, v) for k, v in plan.arguments.items() if plan.sources.get(k) == "risk"]
    if len(risky) != 1 or not isinstance(risky[0][1], str):
        return None  # a figure the careful twin's answer would repeat from the wrong data
    name, wrong = risky[0]
    if len(wrong.split()) > STATED_WORDS:
        return None  # a message the agent writes: no field of data holds it
    right = deviation.evidence.get("expected")
    found: Overwrite | None = None
    holding = []
    for j in range(min(divergence, len(skeleton.step_starts[episode]))):
        observed = skeleton.observed(episode, j)
        if skeleton.html_at(episode, j) or not isinstance(observed, dict):
            continue
        overwrite = _field_of(observed, name, right, wrong)
        if overwrite is None or str(overwrite.right) not in _before(skeleton, episode, j, request):
            continue
        if found is None or overwrite == found:
            found = overwrite
            holding.append(j)
    return (found, holding) if found is not None else None


def corrupted(deviation: Deviation, overwrite: Overwrite, world: World) -> None:
    """The deviation as the agent the wrong value misled sees it: the task's own step for the
    record it believes it has ('change service plan for Magnus Halvorsen (customer id
    cust_91727)'), and the wrong value as the answer and the careful twin's check word it."""
    named = world.get(str(overwrite.right))  # the wrong value is another record's id
    believed = named or (world.get(deviation.target) if deviation.target else None)
    field = overwrite.field.replace("_", " ")
    owner = f"{bare_name(believed.name)}: " if believed is not None else ""
    deviation.evidence["planted_fact"] = f"{owner}{field} {spoken(overwrite.wrong)}"
    deviation.evidence["corrupted"] = {
        "record": believed.id if believed is not None else "",
        "field": overwrite.field,
        "right": str(overwrite.right),
        "wrong": str(overwrite.wrong),
    }
    if named is not None:
        deviation.ask = ask_text(deviation, world, about=named.id)


def _before(skeleton: Skeleton, episode: int, step_index: int, request: str) -> str:
    """What the run said before a step's result: the request, earlier turns, and the step's
    own call (a look-up for one id answered with another shows the data wrong)."""
    turns = skeleton.episodes[episode][: skeleton.step_span(episode, step_index)[1]]
    answered = max(i for i, t in enumerate(turns) if isinstance(t, EnvironmentTurn))
    said = [request]
    for turn in turns[:answered]:
        if isinstance(turn, UserTurn | EnvironmentTurn):
            said.append(turn.content)
        elif isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            said.append(json.dumps(turn.action.arguments))
    return "\n".join(said)


def _field_of(observed: dict[str, Any], name: str, right: Any, wrong: str) -> Overwrite | None:
    """The field of a result that holds the value the wrong one replaces: the right value's
    field (the argument's own name first), or, with no right value known, the argument's
    field at the result's top level."""
    if right is None:
        held = observed.get(name)
        return Overwrite(name, held, wrong) if isinstance(held, str) and held != wrong else None
    for field in (name, *_keys(observed)):
        overwrite = Overwrite(field, right, wrong)
        if overwrite.holds(observed):
            return overwrite
    return None


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [key for k, v in value.items() for key in (k, *_keys(v))]
    return [k for v in value for k in _keys(v)] if isinstance(value, list) else []
