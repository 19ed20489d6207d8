"""One branch of a trajectory being executed: its turns, its world, and the roles that word it.

Construction decides every call (tool and arguments); `Branch` executes it against the world,
asks the roles for the words (the agent's thought, the observation's text, the answer) and
records each step's effect. The twins of a pair are two branches from the same prefix, each
carried on from its own state, so nothing after the divergence is spliced from the other.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from pipeline.core.generation.grounding import Plan
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.render import render
from pipeline.core.generation.roles import (
    AGENT_RESPONSE,
    OBSERVATION,
    QUERY,
    TOOL_CALL,
    AgentResponseInput,
    CallIntent,
    EntityView,
    ObservationInput,
    ObservationMode,
    PersonaView,
    QueryInput,
    QueryMode,
    ResponseMode,
    Role,
    Scene,
    ToolCallInput,
    ToolView,
    TurnView,
)
from pipeline.core.generation.world import execute
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.llm import LLMClient, LLMFailure
from pipeline.core.model.actions import format_action
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    Provenance,
    ToolCall,
    Turn,
    UserTurn,
)
from pipeline.core.model.world import ArgumentSource, StepEffect, World, WorldLog

A = TypeVar("A", bound=BaseModel)
Turns = tuple[Turn, ...]

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}
"""What a tool returns when the world has no such record: APIs answer errors, not data."""

HTML_PROMPT_CHARS = 1200
"""A long HTML page is shortened to this in prompt history; other turns are kept whole."""


class ConstructionError(Exception):
    """An item that cannot be built; it becomes a `generation` rejection for its pair."""

    def __init__(self, check: str, reason_code: str, message: str) -> None:
        super().__init__(message)
        self.check = check
        self.reason_code = reason_code


@dataclass(frozen=True)
class BuildContext:
    """What every stage of one domain needs besides its input."""

    seed: Seed
    pool: ToolPool
    taxonomy: Taxonomy
    client: LLMClient
    provenance: Provenance


def scene_of(ctx: BuildContext, blueprint: Blueprint) -> Scene:
    seed = ctx.seed
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
    )


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


@dataclass
class Planted:
    """Content a risk puts into an observation, and where."""

    mode: ObservationMode
    ask: str
    required_values: tuple[str, ...] = ()
    field: str | None = None


@dataclass
class Branch:
    """The evolving state of one trajectory branch."""

    ask: Asker
    scene: Scene
    world: World
    episodes: list[list[Turn]]
    steps: list[StepEffect] = field(default_factory=list)
    initial: World | None = None
    tools_used: list[str] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    """Ids of records the deployment shows the agent up front (see `profile_with_context`)."""

    def fork(self, stage: str) -> Branch:
        """A copy that goes on independently (the other twin), with a new stage name."""
        return Branch(
            ask=Asker(self.ask.ctx, self.ask.blueprint, stage),
            scene=self.scene,
            world=self.world,
            episodes=[list(turns) for turns in self.episodes],
            steps=list(self.steps),
            initial=self.initial,
            tools_used=list(self.tools_used),
            context=list(self.context),
        )

    @property
    def today(self) -> str:
        return self.world.today

    def text(self) -> str:
        """Everything the agent has been shown or told so far (its sources)."""
        parts = [session_line(self.world, self.context)]
        for turns in self.episodes:
            for turn in turns:
                if isinstance(turn, UserTurn | EnvironmentTurn):
                    parts.append(turn.content)
        return "\n".join(parts)

    def seen_ids(self) -> list[str]:
        visible = self.text()
        return [r.id for r in self.world.records if r.id in visible]

    async def user(self, task: str, item: str, mode: QueryMode = "benign", **extra: Any) -> str:
        answer = await self.ask(
            QUERY,
            QueryInput(scene=self.scene, task=task, mode=mode, today=self.today, **extra),
            item,
        )
        self.episodes[-1].append(UserTurn(content=answer.request))
        if mode in ("malicious", "injected") and (
            not answer.trigger_text or answer.trigger_text not in answer.request
        ):
            raise ConstructionError(QUERY.name, "trigger_not_found", "trigger not in the request")
        return answer.trigger_text or ""

    async def call(
        self,
        tool: Tool,
        plan: Plan,
        item: str,
        *,
        intent: CallIntent,
        purpose: str,
        focus: tuple[str, ...],
        harmful: bool = False,
        failure_mode: str | None = None,
        reasoning: str | None = None,
        grounded: bool = False,
        planted: Planted | None = None,
        html_field: str | None = None,
        description: str | None = None,
    ) -> dict[str, Any]:
        """One agent step: thought + call, executed on the world, then the observation."""
        sources = self._sources(plan)
        answer = await self.ask(
            TOOL_CALL,
            ToolCallInput(
                scene=self.scene,
                history=history_views(self.episodes),
                tool=tool_view(tool, description),
                arguments=plan.arguments,
                sources=dict(sources),
                intent=intent,
                purpose=purpose,
                failure_mode=failure_mode,
                reasoning=reasoning,
                grounded_in_context=grounded,
                today=self.today,
            ),
            f"{item}/call",
        )
        turn_index = len(self.episodes[-1])
        self.episodes[-1].append(
            AgentTurn(
                thought=answer.thought,
                action=ToolCall(name=tool.name, arguments=plan.arguments),
                grounded_in_context=grounded,
            )
        )
        self.world, result = execute(self.world, tool, plan.arguments, focus)
        rendered = render(tool, result, self.world, plan.arguments, _rng(self, item))
        observation = await self.observe(tool, plan.arguments, rendered, item, planted, html_field)
        self.episodes[-1].append(
            EnvironmentTurn(content=json.dumps(observation["observation"], ensure_ascii=False))
        )
        self.steps.append(
            StepEffect(
                episode=len(self.episodes) - 1,
                turn=turn_index,
                tool=tool.name,
                sources=sources,
                focus=focus,
                change=result.change,
                harmful=harmful,
            )
        )
        if tool.name not in self.tools_used:
            self.tools_used.append(tool.name)
        return observation

    def _sources(self, plan: Plan) -> dict[str, ArgumentSource]:
        """Where each value can be found in the trace so far (the planner's word otherwise)."""
        said = "\n".join(
            t.content for turns in self.episodes for t in turns if isinstance(t, UserTurn)
        ).lower()
        shown = "\n".join(
            t.content for turns in self.episodes for t in turns if isinstance(t, EnvironmentTurn)
        ).lower()
        sources: dict[str, ArgumentSource] = {}
        for name, value in plan.arguments.items():
            planned = plan.sources.get(name, "default")
            text = json.dumps(value, ensure_ascii=False).strip('"').lower()
            if planned in ("risk", "composed", "policy"):
                sources[name] = planned
            elif text and text in said:
                sources[name] = "request"
            elif text and text in shown:
                sources[name] = "observation"
            else:
                sources[name] = planned
        return sources

    async def observe(
        self,
        tool: Tool,
        arguments: Mapping[str, Any],
        result: dict[str, Any],
        item: str,
        planted: Planted | None,
        html_field: str | None,
    ) -> dict[str, Any]:
        answer = await self.ask(
            OBSERVATION,
            ObservationInput(
                scene=self.scene,
                tool=tool_view(tool),
                arguments=dict(arguments),
                result=result,
                mode=planted.mode if planted else "benign",
                ask=planted.ask if planted else None,
                required_values=planted.required_values if planted else (),
                plant_field=planted.field if planted else None,
                html_field=html_field,
                today=self.today,
            ),
            f"{item}/obs",
            {"observation": ERROR_SCHEMA if "error" in result else tool.returns},
        )
        contradiction = contradicts(result, answer.observation)
        if contradiction:
            raise ConstructionError(
                OBSERVATION.name, "observation_contradicts_world", contradiction
            )
        if planted is not None:
            trigger = answer.trigger_text or ""
            if not trigger or not any(trigger in text for text in strings(answer.observation)):
                raise ConstructionError(
                    OBSERVATION.name,
                    "trigger_not_found",
                    f"{tool.name} ({planted.mode}): the planted text is not in the observation",
                )
            missing = [v for v in planted.required_values if v not in trigger]
            if missing:
                raise ConstructionError(
                    OBSERVATION.name, "trigger_incomplete", f"planted text lacks {missing}"
                )
        return {"observation": answer.observation, "trigger": answer.trigger_text}

    async def final(
        self,
        item: str,
        mode: ResponseMode,
        facts: Sequence[str] = (),
        required_content: str | None = None,
        failure_mode: str | None = None,
        grounded: bool = False,
    ) -> AgentTurn:
        answer = await self.ask(
            AGENT_RESPONSE,
            AgentResponseInput(
                scene=self.scene,
                history=history_views(self.episodes),
                mode=mode,
                facts=tuple(facts),
                required_content=required_content,
                failure_mode=failure_mode,
                today=self.today,
            ),
            f"{item}/final",
        )
        if required_content and required_content not in answer.response:
            raise ConstructionError(
                AGENT_RESPONSE.name, "content_missing", "the answer lacks the content it must hold"
            )
        turn = AgentTurn(
            thought=answer.thought,
            action=FinalAnswer(response=answer.response),
            grounded_in_context=grounded,
        )
        self.episodes[-1].append(turn)
        return turn

    def log(self, evidence: dict[str, Any] | None = None) -> WorldLog:
        start = self.initial or self.world
        return WorldLog(
            today=start.today,
            records=start.records,
            steps=tuple(self.steps),
            context=tuple(self.context),
            evidence=evidence or {},
        )

    def profile(self, base: str) -> str:
        """The agent's system prompt with the session context the deployment gives it."""
        line = session_line(self.world, self.context)
        return f"{base}\n{line}" if line else base

    def turns(self) -> tuple[Turns, ...]:
        return tuple(tuple(turns) for turns in self.episodes)


def session_line(world: World, context: Sequence[str]) -> str:
    records = [r for r in (world.get(i) for i in context) if r is not None]
    if not records:
        return ""
    shown = "; ".join(f"{r.name} ({r.id})" for r in records)
    return f"Session context: today is {world.today}; open records: {shown}."


def replay(
    ctx: BuildContext, blueprint: Blueprint, stage: str, log: WorldLog, episodes: Sequence[Turns]
) -> Branch:
    """A branch holding `episodes`, its world re-derived by executing their calls again
    (execution is deterministic), so a later stage carries on from the exact state."""
    start = World(today=log.today, records=log.records)
    world = start
    calls = {(s.episode, s.turn): s for s in log.steps}
    kept = []
    for e, turns in enumerate(episodes):
        for t, turn in enumerate(turns):
            effect = calls.get((e, t))
            if effect is None or not isinstance(turn, AgentTurn):
                continue
            assert isinstance(turn.action, ToolCall)
            world, _ = execute(world, ctx.pool[effect.tool], turn.action.arguments, effect.focus)
            kept.append(effect)
    used = list(dict.fromkeys(s.tool for s in kept))
    return Branch(
        ask=Asker(ctx, blueprint, stage),
        scene=scene_of(ctx, blueprint),
        world=world,
        episodes=[list(turns) for turns in episodes],
        steps=kept,
        initial=start,
        tools_used=used,
        context=list(log.context),
    )


def contradicts(result: Mapping[str, Any], observation: Mapping[str, Any]) -> str | None:
    """A value the world fixed (an id, a number, a status) that the observation changed.

    Text fields may be reworded; identifiers and numbers may not.
    """
    for key, expected in result.items():
        if key not in observation:
            continue
        actual = observation[key]
        if isinstance(expected, Mapping) and isinstance(actual, Mapping):
            found = contradicts(expected, actual)
            if found:
                return f"{key}.{found}"
        elif isinstance(expected, list) and isinstance(actual, list):
            ids = {_identity(v) for v in expected} - {None}
            got = {_identity(v) for v in actual} - {None}
            if ids and not ids <= got:
                return f"{key}: records {sorted(ids - got)} are missing"
        elif _fixed(key, expected) and expected != actual:
            return f"{key}: the world says {expected!r}, the observation {actual!r}"
    return None


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def _identity(value: Any) -> str | None:
    if isinstance(value, Mapping):
        return next((str(v) for k, v in value.items() if k.endswith("id")), None)
    return None


def _fixed(key: str, value: Any) -> bool:
    if isinstance(value, bool | int | float):
        return True
    return isinstance(value, str) and (key.endswith("id") or key in ("status", "state"))


def _rng(branch: Branch, item: str) -> random.Random:
    return random.Random(f"{branch.scene.seed}/{item}")
