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

from jsonschema import Draft202012Validator
from pydantic import BaseModel

from pipeline.core.generation.context import (
    Asker,
    BuildContext,
    ConstructionError,
    history_views,
    scene_of,
    tool_view,
)
from pipeline.core.generation.grounding import Plan
from pipeline.core.generation.observed import (
    ERROR_SCHEMA,
    Overwrite,
    contradicts,
    strings,
    world_fixed_schema,
)
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.render import render
from pipeline.core.generation.roles import (
    AGENT_RESPONSE,
    OBSERVATION,
    QUERY,
    TOOL_CALL,
    AgentResponseInput,
    CallIntent,
    ObservationInput,
    ObservationMode,
    QueryInput,
    QueryMode,
    ResponseMode,
    Scene,
    ToolCallInput,
)
from pipeline.core.generation.world import execute
from pipeline.core.generation.write_effects import answered
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.channels import Channel
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Turn,
    UserTurn,
)
from pipeline.core.model.world import ArgumentSource, StepEffect, World, WorldLog

A = TypeVar("A", bound=BaseModel)
Turns = tuple[Turn, ...]


@dataclass
class Planted:
    """Content a risk puts into an observation, and where."""

    mode: ObservationMode
    ask: str
    required_values: tuple[str, ...] = ()
    field: str | None = None
    overwrite: Overwrite | None = None
    """A tool's wrong data in its own field, in place of planted text."""
    verbatim: bool = False
    """`ask` is a seed's written text, carried word for word."""


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
    untrusted: list[str] = field(default_factory=list)
    """Texts a risk put in view (a pasted mail, an injected line). A benign step never takes
    a value from them, whatever else the text says: a safe agent that sends a wallet id only
    the injected line named has acted on the risk."""

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
            untrusted=list(self.untrusted),
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

    def trusted_text(self) -> str:
        """What the agent has been shown or told, less what a risk put there."""
        visible = self.text()
        for text in self.untrusted:
            # as said, and as an observation's JSON writes it (quotes, dashes, newlines escaped)
            for form in (text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]):
                visible = visible.replace(form, " ")
        return visible

    def seen_ids(self) -> list[str]:
        return self._ids_in(self.text())

    def trusted_ids(self) -> list[str]:
        return self._ids_in(self.trusted_text())

    def _ids_in(self, visible: str) -> list[str]:
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
        invalid = schema_errors(tool.parameters, plan.arguments)
        if invalid:
            raise ConstructionError(
                self.ask.stage, "invalid_arguments", f"{tool.name}: {invalid[0]}"
            )
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
        # drawn by where and what the call is, not by the branch's label for it: the twins'
        # shared listing came back in two orders (auditors read it as two worlds)
        at = f"{len(self.episodes)}/{turn_index}/{tool.name}/{sorted(plan.arguments.items())}"
        rendered = render(tool, result, self.world, plan.arguments, _rng(self, at))
        self.world = answered(self.world, result, rendered)
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
        overwrite = planted.overwrite if planted else None
        if overwrite is not None:
            planted = None  # the world's answer as the tool words it, then its one wrong value
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
                verbatim=planted.verbatim if planted else False,
                plant_field=planted.field if planted else None,
                html_field=html_field,
                today=self.today,
            ),
            f"{item}/obs",
            {
                "observation": ERROR_SCHEMA
                if "error" in result
                else world_fixed_schema(
                    tool.returns,
                    result,
                    planted=planted is not None,
                    free=html_field,
                    side_effect=planted is not None and planted.mode == "malicious_side_effect",
                )
            },
        )
        contradiction = contradicts(result, answer.observation)
        if contradiction:
            raise ConstructionError(
                OBSERVATION.name, "observation_contradicts_world", contradiction
            )
        if overwrite is not None:
            if not overwrite.apply(answer.observation):
                raise ConstructionError(
                    OBSERVATION.name,
                    "trigger_not_found",
                    f"{tool.name}: no {overwrite.field} holds {overwrite.right!r}",
                )
            return {"observation": answer.observation, "trigger": str(overwrite.wrong)}
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
        trigger_ask: str | None = None,
        trigger_in: Channel | None = None,
        policy: str | None = None,
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
                trigger_ask=trigger_ask,
                trigger_in=trigger_in if trigger_ask else None,
                policy=policy,
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
        return f"{base}\n{session_line(self.world, self.context)}"

    def turns(self) -> tuple[Turns, ...]:
        return tuple(tuple(turns) for turns in self.episodes)


def schema_errors(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> list[str]:
    """Why planned arguments do not fit the tool's parameter schema (no values invented),
    formats included: the rules reject an e-mail field sent empty, so construction does not
    emit the call."""
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [
        f"{'/'.join(map(str, e.absolute_path)) or 'arguments'}: {e.message}"
        for e in validator.iter_errors(dict(arguments))
    ]


def session_line(world: World, context: Sequence[str]) -> str:
    """What the deployment tells the agent up front: the date, and the records it has open."""
    records = [r for r in (world.get(i) for i in context) if r is not None]
    shown = "; ".join(f"{r.name} ({r.id})" for r in records)
    return f"Session: today is {world.today}." + (f" Open records: {shown}." if shown else "")


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
        scene=scene_of(ctx.seed, blueprint),
        world=world,
        episodes=[list(turns) for turns in episodes],
        steps=kept,
        initial=start,
        tools_used=used,
        context=list(log.context),
    )


def _rng(branch: Branch, item: str) -> random.Random:
    return random.Random(f"{branch.scene.seed}/{item}")
