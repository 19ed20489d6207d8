"""What every construction stage shares: the domain's context, the role asker, and the
views of scene, tools and history that prompts are written from."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from pipeline.core.generation.naming import focus_records
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.roles import EntityView, PersonaView, Role, Scene, ToolView, TurnView
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.llm import LLMClient, LLMFailure
from pipeline.core.model.actions import format_action
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.trajectory import AgentTurn, Provenance, Turn, UserTurn

A = TypeVar("A", bound=BaseModel)

HTML_PROMPT_CHARS = 1200
"""A long HTML page is shortened to this in prompt history; other turns are kept whole."""


class ConstructionError(Exception):
    """An item that cannot be built; it becomes a `generation` rejection for its pair."""

    def __init__(self, check: str, reason_code: str, message: str) -> None:
        super().__init__(message)
        self.check = check
        self.reason_code = reason_code


def generation_rejections(blueprint: Blueprint, err: ConstructionError) -> list[Rejection]:
    """Both planned twins leave with the reason, so the pair's fate is on record."""
    variants = ("unsafe", "safe") if blueprint.kind == "pair" else ("safe",)
    return [
        Rejection(
            trajectory_id=f"{blueprint.id}-{variant}",
            pair_id=blueprint.id,
            domain=blueprint.domain,
            stage="generation",
            check=err.check,
            reason_code=err.reason_code,
            message=str(err),
        )
        for variant in variants
    ]


@dataclass(frozen=True)
class BuildContext:
    """What every stage of one domain needs besides its input."""

    seed: Seed
    pool: ToolPool
    taxonomy: Taxonomy
    client: LLMClient
    provenance: Provenance


def scene_of(seed: Seed, blueprint: Blueprint) -> Scene:
    persona = next(p for p in seed.personas if p.name == blueprint.persona)
    return Scene(
        domain=seed.id,
        domain_name=seed.name,
        agent_profile=seed.agent_profile,
        persona=PersonaView(name=persona.name, role=persona.role, goal=persona.goal),
        entities=tuple(
            EntityView(
                id=e.id, kind=e.kind, name=e.name, attributes=e.attributes, sensitive=e.sensitive
            )
            for e in seed.entities
        ),
        policies=tuple(p.rule for p in seed.policies),
        seed=blueprint.seed,
        focus=_named_entities(seed, blueprint),
    )


def _named_entities(seed: Seed, blueprint: Blueprint) -> tuple[str, ...]:
    """The seed entities the blueprint's requests and hazard speak of, in the seed's order."""
    texts = [w.request for w in seed.workflows if w.id in blueprint.workflows]
    texts += [
        f"{h.description} {json.dumps(h.arguments)}"
        for h in seed.hazards
        if h.id == blueprint.hazard
    ]
    named = set(focus_records(build_world(seed), "\n".join(texts)))
    return tuple(e.id for e in seed.entities if e.id in named)


def tool_view(tool: Tool, description: str | None = None) -> ToolView:
    return ToolView(
        name=tool.name,
        description=description or tool.description,
        parameters=tool.parameters,
        returns=tool.returns,
        side_effect=tool.side_effect,
    )


def history_views(episodes: Sequence[Sequence[Turn]]) -> tuple[TurnView, ...]:
    """The conversation as prompts see it: whole turns, long HTML pages shortened."""
    views = []
    for turns in episodes:
        for turn in turns:
            if isinstance(turn, UserTurn):
                views.append(TurnView(role="user", text=turn.content))
            elif isinstance(turn, AgentTurn):
                views.append(
                    TurnView(role="agent", text=f"{turn.thought}\n{format_action(turn.action)}")
                )
            else:
                text = turn.content
                if "<html" in text and len(text) > HTML_PROMPT_CHARS:
                    text = text[:HTML_PROMPT_CHARS] + " …(rest of the HTML page omitted)"
                views.append(TurnView(role="environment", text=text))
    return tuple(views)


class Asker:
    """Asks one blueprint's role questions, turning failures into `ConstructionError`."""

    def __init__(self, ctx: BuildContext, blueprint: Blueprint, stage: str) -> None:
        self.ctx = ctx
        self.blueprint = blueprint
        self.stage = stage

    async def __call__(
        self,
        role: Role[Any, A],
        payload: BaseModel,
        item: str,
        overrides: dict[str, dict[str, Any]] | None = None,
    ) -> A:
        request = role.request(
            payload,
            stage=self.stage,
            domain=self.blueprint.domain,
            item_id=f"{self.blueprint.id}/{item}",
            schema_overrides=overrides,
        )
        answer = await self.ctx.client.ask(request, role.answer_type)
        if isinstance(answer, LLMFailure):
            raise ConstructionError(role.name, answer.reason_code, str(answer))
        return answer
