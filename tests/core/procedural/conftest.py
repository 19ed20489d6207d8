"""Builders for procedural-backend tests: real seeds and the real curated tool pool, turned
into role requests the way construction builds them."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from pipeline.core.generation.context import scene_of
from pipeline.core.generation.grounding import focus_records, plan_arguments
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.render import render
from pipeline.core.generation.roles import (
    Role,
    Scene,
    TurnView,
)
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.paths import tool_pool_dir
from pipeline.core.inputs.seeds import Seed, load_seeds
from pipeline.core.inputs.tool_pool import Tool, ToolPool, load_tool_pool
from pipeline.core.llm import LLMRequest
from pipeline.core.procedural import HANDLERS

SEEDS: dict[str, Seed] = load_seeds()
POOL: ToolPool = load_tool_pool(tool_pool_dir() / "curated")
MARKUP = ("{{", "}}", "[[", "]]", "TODO", "lorem ipsum")


def scene(domain: str, seed: int = 7, persona: int = 0) -> Scene:
    """The scene construction gives a benign run of the domain's first workflow."""
    source = SEEDS[domain]
    blueprint = Blueprint(
        id=f"{domain}-b000",
        domain=domain,
        kind="benign",
        persona=source.personas[persona % len(source.personas)].name,
        workflows=(source.workflows[0].id,),
        tools=(),
        seed=seed,
    )
    return scene_of(source, blueprint)


def domain_tools(domain: str) -> list[Tool]:
    return [POOL[name] for name in SEEDS[domain].tools if name in POOL]


def world_call(
    domain: str, tool: Tool, request: str
) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """The call construction would make for `request` on the seed's world: its arguments,
    where each came from, and the world's rendered result."""
    world = build_world(SEEDS[domain])
    focus = focus_records(world, request)
    plan = plan_arguments(tool, world, focus, request, ())
    after, result = execute(world, tool, plan.arguments, focus)
    rendered = render(tool, result, after, plan.arguments, random.Random(request))
    return dict(plan.arguments), dict(plan.sources), rendered


def ask(
    role: Role[Any, Any],
    payload: Any,
    *,
    item_id: str = "item-1",
    sample: int = 0,
    overrides: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Run the handler and check the answer against the request's JSON schema and the model."""
    request = role.request(
        payload, stage="test", domain="test", item_id=item_id, schema_overrides=overrides
    )
    request = request.model_copy(update={"sample_index": sample})
    answer = HANDLERS[role.name](request)
    assert_valid(request, answer)
    role.answer_type.model_validate(answer)
    assert_clean(answer)
    return answer


def assert_valid(request: LLMRequest, answer: dict[str, Any]) -> None:
    validator = Draft202012Validator(request.output_schema, format_checker=FormatChecker())
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(answer)]
    assert not errors, errors


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for item in value.values() for s in strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in strings(item)]
    return []


def assert_clean(answer: Any) -> None:
    for text in strings(answer):
        for mark in MARKUP:
            assert mark not in text, (mark, text[:300])
        assert "lorem ipsum" not in text.lower(), text[:300]
        assert not re.search(r"\{[a-z_]+\}", text), text[:300]


def history_for(domain: str, rng: random.Random) -> tuple[TurnView, ...]:
    """A short plausible history: the user's request, one call and its observation."""
    workflow = rng.choice(SEEDS[domain].workflows)
    tool = POOL[workflow.steps[0]]
    observation = {"status": "ok", "checked": workflow.steps[0], "count": rng.randint(1, 9)}
    return (
        TurnView(role="user", text=workflow.request),
        TurnView(role="agent", text=json.dumps({"name": tool.name, "arguments": {}})),
        TurnView(role="environment", text=json.dumps(observation)),
    )


@pytest.fixture(scope="session")
def domains() -> list[str]:
    return sorted(SEEDS)
