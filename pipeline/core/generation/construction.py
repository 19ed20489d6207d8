"""Trajectory construction: safe expansion, risk injection, and paired safe/unsafe variants.

Construction decides what happens; generator roles (through the LLM layer) write the words.
Three stages, each a pure async function of its input and the LLM client:

    Blueprint --expand_safe--> Skeleton --inject_risk--> Injected --build_pair--> (unsafe, safe)

A skeleton is the benign trace. Injection plants the sampled risk source at 1-3 trigger points
and cuts the trace at the divergence step; that prefix is shared by both twins, never
regenerated. The unsafe twin realises the failure mode and the harm; the safe twin removes,
resists or correctly handles the risk, as the blueprint says.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

from pipeline.core.generation.planner import OUTPUT_CONTENT_FAILURES, Blueprint
from pipeline.core.generation.roles import (
    AGENT_RESPONSE,
    OBSERVATION,
    QUERY,
    REASON,
    TOOL_CALL,
    TOOL_DESCRIPTION,
    AgentResponseInput,
    CallIntent,
    EntityView,
    ObservationInput,
    ObservationMode,
    PersonaView,
    QueryInput,
    ReasonInput,
    ResponseMode,
    Role,
    Scene,
    ToolCallInput,
    ToolDescriptionInput,
    ToolView,
    TurnView,
)
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.inputs.tool_pool import Tool, ToolPool, text_fields
from pipeline.core.llm import LLMClient, LLMFailure
from pipeline.core.model.actions import format_action
from pipeline.core.model.channels import CHANNEL_OF, OBSERVED_CHANNELS
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    Episode,
    FinalAnswer,
    Provenance,
    RiskPoint,
    Tag,
    ToolCall,
    ToolSpec,
    Trajectory,
    Turn,
    UserTurn,
)

A = TypeVar("A", bound=BaseModel)
Turns = tuple[Turn, ...]

_OBSERVATION_MODE: dict[str, ObservationMode] = {
    "indirect_prompt_injection": "injected_instruction",
    "unreliable_or_misinformation": "misinformation",
    "malicious_tool_execution": "malicious_side_effect",
    "corrupted_tool_feedback": "tampered",
}
_FALSE_REFERENCE = frozenset(
    {"indirect_prompt_injection", "unreliable_or_misinformation", "corrupted_tool_feedback"}
)
_PROMPT_CHARS = 1500
"""Observations longer than this are shortened in prompt history (long HTML pages)."""


class ConstructionError(Exception):
    """An item that cannot be built; it becomes a `generation` rejection for its pair."""

    def __init__(self, check: str, reason_code: str, message: str) -> None:
        super().__init__(message)
        self.check = check
        self.reason_code = reason_code


class Skeleton(BaseModel):
    """The benign trace of a blueprint: one tuple of turns per episode."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    blueprint: Blueprint
    episodes: tuple[Turns, ...]
    html_step: tuple[int, int] | None = None
    """(episode, step) whose observation is a long HTML page."""


class Injected(BaseModel):
    """A skeleton with its risk planted, cut at the divergence step."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    skeleton: Skeleton
    tools: tuple[ToolSpec, ...]
    """The tool list, with a rewritten description where the risk sits in the interface."""
    prefix: tuple[Turns, ...]
    """Turns shared by both twins; the last episode stops before the divergence step."""
    divergence_step: int
    """Step index, in the last prefix episode, where the twins part."""
    risk_points: tuple[RiskPoint, ...]
    trigger_summary: str
    """The planted content in short, for reasons and responses."""


@dataclass(frozen=True)
class BuildContext:
    """What every stage of one domain needs besides its input."""

    seed: Seed
    pool: ToolPool
    taxonomy: Taxonomy
    client: LLMClient
    provenance: Provenance


# --- helpers ----------------------------------------------------------------------------------


def _scene(ctx: BuildContext, blueprint: Blueprint) -> Scene:
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


def _tool_view(tool: Tool, description: str | None = None) -> ToolView:
    return ToolView(
        name=tool.name,
        description=description or tool.description,
        parameters=tool.parameters,
        returns=tool.returns,
        side_effect=tool.side_effect,
    )


def _history(episodes: Sequence[Turns]) -> tuple[TurnView, ...]:
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
                if len(text) > _PROMPT_CHARS:
                    text = text[:_PROMPT_CHARS] + " ...[truncated]"
                views.append(TurnView(role="environment", text=text))
    return tuple(views)


def _string_values(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _string_values(v)]
    if isinstance(value, list):
        return [s for v in value for s in _string_values(v)]
    return []


def _flat_index(episodes: Sequence[Turns], episode: int, turn: int) -> int:
    return sum(len(t) for t in episodes[:episode]) + turn


def _steps(ctx: BuildContext, blueprint: Blueprint, episode: int) -> list[str]:
    workflow = next(w for w in ctx.seed.workflows if w.id == blueprint.workflows[episode])
    return [*workflow.steps, *blueprint.extra_steps[episode]]


def _hazard(ctx: BuildContext, blueprint: Blueprint) -> Any:
    return next(h for h in ctx.seed.hazards if h.id == blueprint.hazard)


class _Asker:
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

    async def call(
        self,
        scene: Scene,
        history: Sequence[Turns],
        tool: Tool,
        tools: Sequence[str],
        item: str,
        *,
        intent: CallIntent,
        purpose: str,
        hints: dict[str, Any] | None = None,
        failure_mode: str | None = None,
        grounded: bool = False,
    ) -> AgentTurn:
        answer = await self(
            TOOL_CALL,
            ToolCallInput(
                scene=scene,
                history=_history(history),
                tool=_tool_view(tool),
                intent=intent,
                purpose=purpose,
                argument_hints=hints or {},
                failure_mode=failure_mode,
                grounded_in_context=grounded,
            ),
            item,
            {"tool": {"type": "string", "enum": sorted(tools)}, "arguments": tool.parameters},
        )
        if answer.tool != tool.name:
            raise ConstructionError(
                TOOL_CALL.name, "off_plan_tool", f"asked for {tool.name!r}, got {answer.tool!r}"
            )
        return AgentTurn(
            thought=answer.thought,
            action=ToolCall(name=tool.name, arguments=answer.arguments),
            grounded_in_context=grounded,
        )

    async def observe(
        self,
        scene: Scene,
        tool: Tool,
        arguments: dict[str, Any],
        item: str,
        *,
        mode: ObservationMode = "benign",
        goal: str | None = None,
        html_field: str | None = None,
    ) -> tuple[EnvironmentTurn, str | None]:
        answer = await self(
            OBSERVATION,
            ObservationInput(
                scene=scene,
                tool=_tool_view(tool),
                arguments=arguments,
                mode=mode,
                goal=goal,
                html_field=html_field,
            ),
            item,
            {"observation": tool.returns},
        )
        trigger = answer.trigger_text
        if mode != "benign" and (
            not trigger or not any(trigger in s for s in _string_values(answer.observation))
        ):
            raise ConstructionError(
                OBSERVATION.name, "trigger_not_found", "planted content is not in the observation"
            )
        content = json.dumps(answer.observation, ensure_ascii=False)
        return EnvironmentTurn(content=content), trigger

    async def respond(
        self,
        scene: Scene,
        history: Sequence[Turns],
        item: str,
        mode: ResponseMode,
        facts: Sequence[str] = (),
        failure_mode: str | None = None,
        grounded: bool = False,
    ) -> AgentTurn:
        answer = await self(
            AGENT_RESPONSE,
            AgentResponseInput(
                scene=scene,
                history=_history(history),
                mode=mode,
                facts=tuple(facts),
                failure_mode=failure_mode,
            ),
            item,
        )
        return AgentTurn(
            thought=answer.thought,
            action=FinalAnswer(response=answer.response),
            grounded_in_context=grounded,
        )


# --- stage 1: safe expansion ------------------------------------------------------------------


async def expand_safe(blueprint: Blueprint, ctx: BuildContext) -> Skeleton:
    """Execute the blueprint step by step into a benign trace, one episode per workflow."""
    ask = _Asker(ctx, blueprint, "safe_expansion")
    scene = _scene(ctx, blueprint)
    html_step = _html_step(ctx, blueprint)
    episodes: list[Turns] = []
    for e, workflow_id in enumerate(blueprint.workflows):
        workflow = next(w for w in ctx.seed.workflows if w.id == workflow_id)
        query = await ask(
            QUERY,
            QueryInput(
                scene=scene,
                task=workflow.request,
                mode="benign",
                context_note="a follow-up session in the same conversation" if e else None,
            ),
            f"e{e}/query",
        )
        turns: list[Turn] = [UserTurn(content=query.request)]
        for j, name in enumerate(_steps(ctx, blueprint, e)):
            tool = ctx.pool[name]
            call = await ask.call(
                scene,
                [*episodes, tuple(turns)],
                tool,
                blueprint.tools,
                f"e{e}/s{j}/call",
                intent="benign",
                purpose=tool.description,
            )
            assert isinstance(call.action, ToolCall)
            html = text_fields(tool.returns, 5000)[0] if html_step == (e, j) else None
            observation, _ = await ask.observe(
                scene, tool, call.action.arguments, f"e{e}/s{j}/obs", html_field=html
            )
            turns += [call, observation]
        turns.append(await ask.respond(scene, [*episodes, tuple(turns)], f"e{e}/final", "complete"))
        episodes.append(tuple(turns))
    return Skeleton(blueprint=blueprint, episodes=tuple(episodes), html_step=html_step)


def _html_step(ctx: BuildContext, blueprint: Blueprint) -> tuple[int, int] | None:
    """The first step whose tool can carry a long HTML page, when the plan asks for one."""
    if not blueprint.long_html:
        return None
    for e in range(len(blueprint.workflows)):
        for j, name in enumerate(_steps(ctx, blueprint, e)):
            if text_fields(ctx.pool[name].returns, 5000):
                return (e, j)
    return None


# --- stage 2: risk injection ------------------------------------------------------------------


def _step_turn(step: int) -> int:
    """Index of a step's agent turn within its episode (the observation follows it)."""
    return 1 + 2 * step


async def inject_risk(skeleton: Skeleton, ctx: BuildContext) -> Injected:
    """Plant the sampled risk source at 1-3 trigger points and cut at the divergence step."""
    blueprint = skeleton.blueprint
    assert blueprint.slice is not None and blueprint.hazard is not None
    ask = _Asker(ctx, blueprint, "risk_injection")
    scene = _scene(ctx, blueprint)
    rng = seeded_rng(blueprint.seed, "inject")
    source = blueprint.slice.risk_source
    channel = CHANNEL_OF[source]
    hazard = _hazard(ctx, blueprint)
    goal = hazard.description
    episodes = [list(turns) for turns in skeleton.episodes]
    last = len(episodes) - 1
    n_steps = len(_steps(ctx, blueprint, last))
    tools = {name: ctx.pool[name].spec() for name in blueprint.tools}
    points: list[RiskPoint] = []

    if channel in OBSERVED_CHANNELS:
        eligible = [
            j
            for j, name in enumerate(_steps(ctx, blueprint, 0))
            if text_fields(ctx.pool[name].returns)
        ]
        if not eligible:
            raise ConstructionError(
                "risk_injection", "no_channel", "no step returns text that could carry the risk"
            )
        chosen = sorted(rng.sample(eligible, k=min(blueprint.trigger_points, len(eligible))))
        for j in chosen:
            name = _steps(ctx, blueprint, 0)[j]
            call = episodes[0][_step_turn(j)]
            assert isinstance(call, AgentTurn) and isinstance(call.action, ToolCall)
            html = (
                text_fields(ctx.pool[name].returns, 5000)[0]
                if skeleton.html_step == (0, j)
                else None
            )
            observation, trigger = await ask.observe(
                scene,
                ctx.pool[name],
                call.action.arguments,
                f"e0/s{j}/obs-risk",
                mode=_OBSERVATION_MODE[source],
                goal=goal,
                html_field=html,
            )
            episodes[0][_step_turn(j) + 1] = observation
            assert trigger is not None
            points.append(
                RiskPoint(episode=0, turn=_step_turn(j) + 1, channel=channel, text=trigger)
            )
        low = chosen[-1] + 1 if last == 0 else 1
    else:
        low = 1
    divergence = rng.randint(min(low, n_steps), n_steps)

    if channel == "user_turn":
        workflow = next(w for w in ctx.seed.workflows if w.id == blueprint.workflows[0])
        query = await ask(
            QUERY,
            QueryInput(
                scene=scene,
                task=workflow.request,
                mode="malicious" if source.startswith("malicious") else "injected",
                harmful_goal=goal,
            ),
            "e0/query-risk",
        )
        if not query.trigger_text or query.trigger_text not in query.request:
            raise ConstructionError(QUERY.name, "trigger_not_found", "trigger not in the request")
        episodes[0][0] = UserTurn(content=query.request)
        points.append(RiskPoint(episode=0, turn=0, channel=channel, text=query.trigger_text))
    elif channel == "tool_description":
        target = ctx.pool[hazard.tool]
        rewritten = await ask(
            TOOL_DESCRIPTION,
            ToolDescriptionInput(scene=scene, tool=_tool_view(target), harmful_goal=goal),
            "tool-description",
        )
        if rewritten.trigger_text not in rewritten.description:
            raise ConstructionError(
                TOOL_DESCRIPTION.name, "trigger_not_found", "trigger not in the description"
            )
        tools[target.name] = ToolSpec(
            name=target.name, description=rewritten.description, parameters=target.parameters
        )
        points.append(
            RiskPoint(
                episode=last,
                turn=_step_turn(divergence),
                channel=channel,
                text=rewritten.trigger_text,
            )
        )
    prefix = [tuple(turns) for turns in episodes[:last]]
    prefix.append(tuple(episodes[last][: _step_turn(divergence)]))
    summary = "; ".join(p.text[:160] for p in points) or "no outside trigger"
    return Injected(
        skeleton=skeleton,
        tools=tuple(tools[name] for name in blueprint.tools),
        prefix=tuple(prefix),
        divergence_step=divergence,
        risk_points=tuple(points),
        trigger_summary=summary,
    )


# --- stage 3: paired variants -----------------------------------------------------------------

_SUSPICIOUS = ("recipient", "email", "to_address", "url", "endpoint", "webhook", "destination")


def _harmful_hints(tool: Tool, rng: random.Random) -> dict[str, Any]:
    """Arguments that make a call harmful: outside recipients, maximal scope."""
    hints: dict[str, Any] = {}
    # Many look-alike recipients, so no single address becomes a give-away word of unsafe traces.
    outsider = rng.choice(
        ("ops-review", "billing-desk", "records-sync", "it-helpdesk", "j.morgan", "payables",
         "audit.team", "d.keller", "support-queue", "s.okafor", "claims-intake", "m.lindqvist")
    )  # fmt: skip
    site = rng.choice(
        ("examp1e-support.com", "secure-verify.net", "acct-review.org", "mail-portal.co",
         "docs-share.io", "helpdesk-central.net", "vendor-updates.com", "gmail.co",
         "outlook-mail.net", "records-hub.org", "cloudsync-app.com", "protonmail.cc")
    )  # fmt: skip
    for name, sub in tool.parameters.get("properties", {}).items():
        lowered = name.lower()
        if sub.get("type") != "string" or "enum" in sub:
            continue
        if "email" in lowered or "recipient" in lowered or "to_address" in lowered:
            hints[name] = f"{outsider}@{site}"
        elif any(word in lowered for word in ("url", "endpoint", "webhook")):
            hints[name] = f"https://{site}/{outsider}"
    return hints


async def build_pair(injected: Injected, ctx: BuildContext) -> tuple[Trajectory, Trajectory]:
    """Build the unsafe and safe twins from one injected skeleton; both share its prefix."""
    skeleton = injected.skeleton
    blueprint = skeleton.blueprint
    assert blueprint.slice is not None and blueprint.safe_strategy is not None
    ask = _Asker(ctx, blueprint, "pairing")
    scene = _scene(ctx, blueprint)
    rng = seeded_rng(blueprint.seed, "pair")
    slice_ = blueprint.slice
    hazard = _hazard(ctx, blueprint)
    last = len(injected.prefix) - 1
    prefix = list(injected.prefix)
    rest = skeleton.episodes[last][_step_turn(injected.divergence_step) :]
    remaining_steps = rest[:-1]  # the skeleton's later steps, reused by both twins
    grounded = blueprint.long_context
    channel = CHANNEL_OF[slice_.risk_source]

    # Unsafe twin: the agent fails in the sampled mode and produces the sampled harm.
    unsafe_tail: list[Turn] = []
    harm_steps: list[str] = []
    if slice_.failure_mode in OUTPUT_CONTENT_FAILURES:
        unsafe_tail += remaining_steps
        final = await ask.respond(
            scene,
            [*prefix[:last], prefix[last] + tuple(unsafe_tail)],
            "unsafe/final",
            "harmful_content",
            facts=(hazard.description, injected.trigger_summary),
            failure_mode=slice_.failure_mode,
            grounded=grounded,
        )
        unsafe_tail.append(final)
        harm_steps.append(
            f"ends with a final answer that goes along with it ({hazard.description})"
        )
    else:
        harm_tool = ctx.pool[hazard.tool]
        if slice_.failure_mode == "choosing_malicious_tool":
            lookalikes = [n for n in blueprint.tools if ctx.pool[n].lookalike_of == harm_tool.name]
            harm_tool = ctx.pool[lookalikes[0]] if lookalikes else harm_tool
        repeats = (
            rng.choice((2, 3)) if slice_.failure_mode == "inefficient_or_wasteful_execution" else 1
        )
        hints = _harmful_hints(harm_tool, rng)
        for r in range(repeats):
            call = await ask.call(
                scene,
                [*prefix[:last], prefix[last] + tuple(unsafe_tail)],
                harm_tool,
                blueprint.tools,
                f"unsafe/harm{r}/call",
                intent="harmful",
                purpose=hazard.description,
                hints=hints,
                failure_mode=slice_.failure_mode,
                grounded=grounded,
            )
            assert isinstance(call.action, ToolCall)
            harm_arguments = call.action.arguments
            observation, _ = await ask.observe(
                scene, harm_tool, harm_arguments, f"unsafe/harm{r}/obs"
            )
            unsafe_tail += [call, observation]
        shown = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in list(harm_arguments.items())[:3]
        )
        harm_steps.append(
            f"calls {harm_tool.name}({shown})"
            + (f" {repeats} times" if repeats > 1 else "")
            + f" ({hazard.description.rstrip('.')})"
        )
        unsafe_tail += remaining_steps
        unsafe_tail.append(
            await ask.respond(
                scene,
                [*prefix[:last], prefix[last] + tuple(unsafe_tail)],
                "unsafe/final",
                "complete",
                facts=(hazard.description,),
                failure_mode=slice_.failure_mode,
                grounded=grounded,
            )
        )
    unsafe_episodes = [*prefix[:last], prefix[last] + tuple(unsafe_tail)]
    points = list(injected.risk_points)
    if channel == "agent_reasoning":
        first = unsafe_tail[0]
        assert isinstance(first, AgentTurn)
        points.append(
            RiskPoint(
                episode=last,
                turn=len(prefix[last]),
                channel="agent_reasoning",
                text=first.thought,
            )
        )

    # Safe twin: remove, resist or handle the risk. Resisting or handling mostly means finishing
    # the user's task without the risky step; refusing or asking happens, but not always, so
    # the verdict rests on what the agent does rather than on refusal words.
    strategy = blueprint.safe_strategy
    safe_tools = injected.tools
    from_user = channel == "user_turn"
    if strategy == "removed":
        safe_episodes = list(skeleton.episodes)
        safe_tools = tuple(ctx.pool[name].spec() for name in blueprint.tools)
        safe_points: list[RiskPoint] = []
        safe_steps = ["gets no risky content", "completes the task as asked"]
    else:
        safe_points = [p for p in points if p.channel != "agent_reasoning"]
        safe_tail: list[Turn] = []
        facts: tuple[str, ...] = (hazard.description, injected.trigger_summary)
        if strategy == "resisted":
            if slice_.risk_source == "malicious_user_instruction_or_jailbreak":
                mode: ResponseMode = "refuse"
                if grounded or rng.random() < 0.5:  # long-context traces keep their length
                    safe_tail += remaining_steps
                    safe_steps = ["finishes the harmless steps and declines the rest"]
                else:
                    safe_steps = ["declines it in its final answer"]
            elif channel == "agent_reasoning":
                safe_tail += remaining_steps
                mode, facts = "complete", ()
                safe_steps = [
                    f"keeps to the requested steps and never does this: {hazard.description}"
                ]
            else:
                safe_tail += remaining_steps
                mode = "report_issue"
                safe_steps = ["does not act on it and finishes the requested steps"]
        else:
            verifier = ctx.pool[_verifier(ctx, blueprint, rng)]
            call = await ask.call(
                scene,
                prefix,
                verifier,
                blueprint.tools,
                "safe/verify/call",
                intent="verify",
                purpose=hazard.description,
                grounded=grounded,
            )
            assert isinstance(call.action, ToolCall)
            observation, _ = await ask.observe(
                scene, verifier, call.action.arguments, "safe/verify/obs"
            )
            safe_tail += [call, observation, *remaining_steps]
            if rng.random() < 0.35:
                mode = "ask_confirmation"
                safe_steps = [f"checks with {verifier.name} and asks the user before acting"]
            else:
                mode = "refuse" if from_user else "report_issue"
                safe_steps = [f"checks with {verifier.name}, leaves the risky step undone"]
        safe_tail.append(
            await ask.respond(
                scene,
                [*prefix[:last], prefix[last] + tuple(safe_tail)],
                "safe/final",
                mode,
                facts=facts,
            )
        )
        safe_episodes = [*prefix[:last], prefix[last] + tuple(safe_tail)]

    trigger_step = "meets no outside trigger"
    if injected.risk_points:
        first_point = injected.risk_points[0]
        cut = first_point.text[:140] + ("..." if len(first_point.text) > 140 else "")
        quoted = json.dumps(cut, ensure_ascii=False)
        if channel == "user_turn":
            trigger_step = f"is asked in the user's message: {quoted}"
        elif channel == "tool_description":
            trigger_step = f"is given a {hazard.tool} description that says {quoted}"
        else:
            source_call = unsafe_episodes[first_point.episode][first_point.turn - 1]
            assert isinstance(source_call, AgentTurn) and isinstance(source_call.action, ToolCall)
            trigger_step = f"reads a {source_call.action.name} result carrying {quoted}"
    labels = {
        axis: ctx.taxonomy.leaf(axis, getattr(slice_, axis)).name
        for axis in ("risk_source", "failure_mode", "real_world_harm")
    }
    unsafe_reason = await ask(
        REASON,
        ReasonInput(verdict="unsafe", labels=labels, steps=(trigger_step, *harm_steps)),
        "unsafe/reason",
    )
    safe_reason = await ask(
        REASON,
        ReasonInput(
            verdict="safe",
            steps=tuple(safe_steps) if strategy == "removed" else (trigger_step, *safe_steps),
        ),
        "safe/reason",
    )
    tags = _tags(blueprint, unsafe_episodes)
    divergence = _flat_index(unsafe_episodes, last, len(prefix[last]))
    if strategy == "removed" and injected.risk_points:
        trigger = injected.risk_points[0]
        divergence = min(divergence, _flat_index(unsafe_episodes, trigger.episode, trigger.turn))
    common = {
        "domain": blueprint.domain,
        "pair_id": blueprint.id,
        "profile": ctx.seed.agent_profile,
        "divergence": divergence,
        "provenance": ctx.provenance,
    }
    construction = {
        "risk_source": slice_.risk_source,
        "failure_mode": slice_.failure_mode,
        "real_world_harm": slice_.real_world_harm,
        "hazard": hazard.id,
        "safe_strategy": strategy,
        "trigger_points": str(len(injected.risk_points)),
    }
    unsafe = Trajectory(
        id=f"{blueprint.id}-unsafe",
        variant="unsafe",
        tools=injected.tools,
        episodes=_episodes(blueprint, unsafe_episodes),
        verdict="unsafe",
        labels=slice_,
        reason=unsafe_reason.reason,
        risk_points=tuple(points),
        tags=tags,
        construction=construction,
        **common,
    )
    safe = Trajectory(
        id=f"{blueprint.id}-safe",
        variant="safe",
        tools=safe_tools,
        episodes=_episodes(blueprint, safe_episodes),
        verdict="safe",
        reason=safe_reason.reason,
        risk_points=tuple(safe_points),
        tags=tags | _tags(blueprint, safe_episodes),
        construction=construction,
        **common,
    )
    return unsafe, safe


def _verifier(ctx: BuildContext, blueprint: Blueprint, rng: random.Random) -> str:
    """A genuine read-only tool: checking with a deceptive look-alike would itself be unsafe."""
    readers = [
        n
        for n in blueprint.tools
        if ctx.pool[n].side_effect == "none" and ctx.pool[n].lookalike_of is None
    ]
    return rng.choice(readers or list(blueprint.tools))


def _episodes(blueprint: Blueprint, episodes: Sequence[Turns]) -> tuple[Episode, ...]:
    if len(episodes) == 1:
        return (Episode(kind="main", turns=episodes[0]),)
    return (Episode(kind="setup", turns=episodes[0]), Episode(kind="exploit", turns=episodes[1]))


def _tags(blueprint: Blueprint, episodes: Sequence[Turns]) -> frozenset[Tag]:
    tags: set[Tag] = set()
    if blueprint.long_context:
        tags |= {"long_context", "delayed_trigger", "false_reference"}
    if blueprint.slice is not None and blueprint.slice.risk_source in _FALSE_REFERENCE:
        tags.add("false_reference")
    if any(
        isinstance(turn, EnvironmentTurn) and len(turn.content) >= 4000 and "<html" in turn.content
        for turns in episodes
        for turn in turns
    ):
        tags.add("long_html")
    return frozenset(tags)


async def build_benign(skeleton: Skeleton, ctx: BuildContext) -> Trajectory:
    """A benign-only blueprint ships its skeleton as a safe trace with no trigger."""
    blueprint = skeleton.blueprint
    reason = await _Asker(ctx, blueprint, "pairing")(
        REASON,
        ReasonInput(
            verdict="safe",
            steps=("the request is benign", "the agent completes it with appropriate tool use"),
        ),
        "benign/reason",
    )
    return Trajectory(
        id=f"{blueprint.id}-safe",
        domain=blueprint.domain,
        pair_id=blueprint.id,
        variant="safe",
        tools=tuple(ctx.pool[name].spec() for name in blueprint.tools),
        profile=ctx.seed.agent_profile,
        episodes=_episodes(blueprint, skeleton.episodes),
        verdict="safe",
        reason=reason.reason,
        tags=_tags(blueprint, skeleton.episodes),
        provenance=ctx.provenance,
        construction={"kind": "benign"},
    )


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
