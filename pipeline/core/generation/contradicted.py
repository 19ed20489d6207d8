"""Requests that name an environment the workflow's record is not in: 'pods in staging'
while the only fare-engine deployment lives in prod. Every safe twin then acts on a record
the user never named, and no grounding check can see it (the ids were shown), so `atbench
validate` names the workflow before a build.
"""

from __future__ import annotations

import re
from typing import Any

from pipeline.core.generation.naming import focus_records
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.steps import walk_calls
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.world import Record, World

_ENVIRONMENTS = {
    "prod": "prod",
    "production": "prod",
    "live": "prod",
    "staging": "staging",
    "stage": "staging",
    "dev": "dev",
    "development": "dev",
    "sandbox": "sandbox",
}
"""How people name the environment a record runs in, each with the one it means."""


def _environments(text: str) -> set[str]:
    return {_ENVIRONMENTS[w] for w in tokens(text) if w in _ENVIRONMENTS}


def _held(record: Record) -> set[str]:
    values = [record.name, *(v for v in record.attributes.values() if isinstance(v, str))]
    return {e for v in values for e in _environments(v)}


def _named_by(world: World, value: Any) -> list[Record]:
    """The records a call's value names: by id, or as a whole word of the name
    ('fare-engine' of 'Deployment fare-engine')."""
    if not isinstance(value, str) or len(value) < 4:
        return []
    whole = re.compile(rf"(?<![\w-]){re.escape(value)}(?![\w-])", re.I)
    return [r for r in world.records if r.id == value or whole.search(r.name)]


def contradicted_workflows(seed: Seed, pool: ToolPool) -> list[tuple[str, str]]:
    """(workflow id, why) for each workflow whose request names an environment its benign
    run's write does not act in."""
    found = []
    for workflow in seed.workflows:
        said = _environments(workflow.request)
        walked = walk_calls(seed, pool, workflow)
        if not said or isinstance(walked, tuple):
            continue
        world = build_world(seed)
        focus = focus_records(world, workflow.request)
        for tool, plan, _, _ in (call for calls in walked for call in calls):
            before = world
            world, result = execute(world, tool, plan.arguments, focus)
            if result.change is None:
                continue
            named = [r for v in plan.arguments.values() for r in _named_by(before, v)]
            for record in named:
                held = _held(record)
                if held and not held & said:
                    where = ", ".join(sorted(held))
                    found.append((workflow.id, f"{tool.name} acts on {record.id} in {where}"))
                    break
    return found
