"""Safe writes on the record the user meant (issues 12 and 13): safe traces whose
consequential call acts on a record the request does not point at while it points at another
of the same kind (an invoice of another customer finalised, the departing owner's address
made the new owner's). The grounding check cannot see these: the ids were shown. Part of
`benchmarks.trace_quality` (its "record_choice" figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pipeline.core.generation.naming import focus_records
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.stated import EMAIL
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory, UserTurn
from pipeline.core.model.world import Record, World, WorldLog


def _kind(record_id: str) -> str:
    """A record's kind as its id says it (`inv_2024_0117` -> `inv`): finer than `kind`,
    which calls invoices, comments and posts all `record`."""
    return record_id.split("_")[0]


def _own_address(record: Record) -> str | None:
    """The address a record keeps as its own (a contact's `email`), not one it refers to
    (a folder's `owner`)."""
    return next(
        (str(v) for k, v in record.attributes.items() if "email" in tokens(k)),
        None,
    )


def wrong_record(call: ToolCall, request: str, log: WorldLog) -> str | None:
    """Why this write acts on a record other than the one the request points at, or None."""
    world = World(today=log.today, records=log.records)
    pointed = [r for r in (world.get(i) for i in focus_records(world, request)) if r]
    for name, value in call.arguments.items():
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, str) or item.lower() in request.lower():
                continue  # a value the user gave is the one they mean
            record = world.get(item)
            if record is not None and record not in pointed:
                others = [r.id for r in pointed if _kind(r.id) == _kind(item)]
                if others:
                    return f"{call.name} {name}={item} while the request names {others[0]}"
            addresses = {a for r in pointed if (a := _own_address(r))}
            mailed = EMAIL.fullmatch(item) and "email" in tokens(name)
            if mailed and addresses and item not in addresses:
                return f"{call.name} {name}={item} while the request names {min(addresses)}"
    return None


def record_choice_figures(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """How many safe traces with a consequential call act on a record the request does not
    point at when it points at another of that kind, with up to ten examples."""
    found = of = 0
    examples: list[str] = []
    for traj in trajectories:
        if traj.verdict != "safe" or traj.world is None or traj.imported:
            continue
        log, problems = traj.world, []
        for step in (s for s in log.steps if s.change is not None):
            turns = traj.episodes[step.episode].turns
            turn = turns[step.turn]
            if not isinstance(turn, AgentTurn) or not isinstance(turn.action, ToolCall):
                continue
            said = " ".join(t.content for t in turns[: step.turn] if isinstance(t, UserTurn))
            problem = wrong_record(turn.action, said, log)
            if problem:
                problems.append(problem)
        of += any(s.change is not None for s in log.steps)
        found += bool(problems)
        examples += [f"{traj.id}: {p}" for p in problems[:1]]
    return {"safe_writes_on_another_record": found, "of": of, "examples": examples[:10]}
