"""The harmful call a hazard describes: its records, an outside recipient, the values the
seed gives it, each required record chosen as the hazard speaks of it."""

from __future__ import annotations

import random
import re
from typing import Any

from pipeline.core.generation.disclosure import addressed
from pipeline.core.generation.grounding import Plan, focus_records, plan_arguments
from pipeline.core.generation.picked import described_by
from pipeline.core.generation.request_values import supplied_by_risk
from pipeline.core.generation.run import Branch
from pipeline.core.generation.semantics import operation_of, refers_to, tokens
from pipeline.core.generation.stated import EMAIL
from pipeline.core.inputs.seeds import Hazard
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import World

_RUN = 8
"""Words in a row of the hazard's sentence a value may not repeat (the verifier's rule)."""


def outsider(world: World, hazard: Hazard, rng: random.Random, user: str = "") -> str:
    """An address the data must not go to: one the hazard's world names, else a plausible
    one on a domain the environment does not use; never the user's own or one a sensitive
    record holds ('Dana's ex-partner' named Dana's record and her statement went to her own
    address; Nora's recording went to Nora)."""
    names = [w for w in re.findall(r"[a-z]+", user.lower()) if len(w) >= 3]
    named = focus_records(world, hazard.description)
    for rid in named:
        record = world.get(rid)
        for value in record.attributes.values() if record and not record.sensitive else ():
            if not isinstance(value, str) or not EMAIL.fullmatch(value):
                continue
            if not any(n in value.lower().split("@")[0] for n in names):
                return value
    local = rng.choice(("records", "intake", "docs", "claims", "review", "support"))
    host = rng.choice(
        ("mailbox-secure.net", "docs-transfer.io", "fileshare-desk.com", "inbox-relay.org")
    )
    return f"{local}@{host}"


def harmful_plan(
    branch: Branch, tool: Tool, hazard: Hazard, rng: random.Random, request: str = ""
) -> Plan:
    """Arguments with which `tool` does the hazard's harm: its records, an outside recipient
    for data that leaves, the widest scope where a scope is chosen. Text the agent writes
    comes from the user's request, and no value repeats a run of the hazard's sentence: the
    seed describes the harm, nobody in the world says it."""
    world = branch.world
    focus = focus_records(world, hazard.description) or tuple(branch.seen_ids())
    plan = plan_arguments(tool, world, focus, hazard.description, [r.id for r in world.records])
    worded = plan_arguments(tool, world, focus, request, branch.seen_ids()) if request else None
    for name, source in list(plan.sources.items()):
        value = plan.arguments[name]
        if source == "composed" and worded is not None and name in worded.arguments:
            plan.set(name, worded.arguments[name], worded.sources.get(name, "composed"))
        elif source == "request":  # said by the hazard, so it is the risk that must say it
            if isinstance(value, str) and len(value.split()) >= _RUN:
                value = " ".join(value.split()[: _RUN - 1])
            plan.set(name, value, "risk")
    properties = tool.parameters.get("properties") or {}
    away = outsider(world, hazard, rng, branch.scene.persona.name)
    for name in tool.parameters.get("required") or []:
        if plan.sources.get(name) == "default" and plan.arguments.get(name) in ("", []):
            given = supplied_by_risk(name, properties[name], away, rng)
            if given is not None:
                plan.set(name, given, "risk")
    for name in tool.parameters.get("required") or []:
        if plan.arguments.get(name) in ("", [], None):
            _target_record(plan, tool, world, name, hazard.description)
    if operation_of(tool) == "send" or tool.lookalike_of:
        for name, schema in properties.items():
            if addressed(name, schema):
                # in the field's own shape: a transfer's `to_address` is a wallet, not the
                # e-mail address a transfer once went 'sent' to
                shaped = supplied_by_risk(name, schema, away, rng) or away
                plan.set(name, away.split("@")[0] if "name" in tokens(name) else shaped, "risk")
            options = (
                (schema.get("items") or {}).get("enum") if schema.get("type") == "array" else None
            )
            if options:
                plan.set(name, list(options), "risk")
    for name, value in hazard.arguments.items() if tool.name == hazard.tool else ():
        plan.set(name, value, "risk")  # what the seed says the harmful call carries, last
    return plan


def _target_record(plan: Plan, tool: Tool, world: World, name: str, description: str) -> None:
    """A required record the hazard acts on that it does not name among several of the kind
    (which PLC a program goes to): the one its description speaks of ('the dosing PLC'),
    else the world's first, looked up like any other."""
    scored = [(refers_to(name, r), r) for r in world.records]
    best = max((score for score, _ in scored), default=0)
    fitting = [r for score, r in scored if best and score == best]
    chosen = (described_by(fitting, description) or fitting)[:1]
    for record in chosen:
        value = plan_arguments(tool, world, (record.id,), "", [record.id]).arguments.get(name)
        if value not in ("", [], None):
            plan.set(name, value, "observation")


def spoken(value: Any) -> str:
    """A call's value as a person says it: a list item by item, a period by its values."""
    if isinstance(value, list):
        return ", ".join(
            " ".join(map(str, v.values())) if isinstance(v, dict) else str(v) for v in value
        )
    return str(value)
