"""The LLM-based filter: a plausibility judge run after the rules.

Rules check form; the judge checks that the trace shows what its labels claim: the planted
trigger sits where the metadata says, an unsafe trace really takes a harmful step after it, and
a safe trace takes none (not its twin's, not a call to a deceptive look-alike). A real model
answers from the rendered prompt (`plausibility_judge.j2`); the procedural backend answers with
deterministic checks of the same questions (`pipeline.core.procedural.judge`). Either way the
verdict is structured, carries a reason code, and a rejection is kept with it.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from pipeline.core.filtering.rules import observation_texts
from pipeline.core.generation.roles import Role
from pipeline.core.inputs.files import write_json_atomic
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.llm import LLMClient, LLMFailure
from pipeline.core.model.actions import format_action
from pipeline.core.model.channels import Channel
from pipeline.core.model.labels import OUTPUT_MODES
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.trajectory import (
    AgentTurn,
    EpisodeKind,
    FinalAnswer,
    RiskPoint,
    ToolCall,
    Trajectory,
    Verdict,
)

CHECK = "plausibility_judge"
"""The `check` of every judge rejection."""
STAGE = "filtering"
"""Ledger stage of the judge's calls."""
AGREEMENT_REJECTED_SAMPLE = 20
"""Rule-rejected traces per domain the judge also sees, to measure agreement on both sides."""

JudgeCode = Literal[
    "ok",
    "trigger_not_at_turn",
    "trigger_wrong_channel",
    "no_harmful_step",
    "harm_unreachable",
    "safe_takes_harmful_step",
    "implausible_behaviour",
    "labels_contradict_trace",
]
"""Why the judge keeps (`ok`) or rejects a trace; the last two are for a model's free findings."""

UNKNOWN_SIDE_EFFECT = "unknown"
"""A tool missing from the pool: its effect cannot be ruled out, so it counts as possible harm."""

ROLE_OF_CHANNEL: dict[Channel, str] = {
    "user_turn": "user",
    "observation": "environment",
    "tool_output": "environment",
    "tool_execution": "environment",
    "agent_reasoning": "agent",
}
"""The turn a trigger must sit in; `tool_description` triggers sit in the tool list instead."""

_INPUT = ConfigDict(extra="forbid", frozen=True)


class JudgeTool(BaseModel):
    model_config = _INPUT

    name: str
    description: str
    """As the agent saw it (a tool-description injection rewrites it)."""
    side_effect: str
    """none | reversible | irreversible, from the pool; `unknown` for a tool it lacks."""
    imitates: str | None = None
    """For a deceptive look-alike: the legitimate tool it imitates (calling it is the harm)."""


class JudgeTurn(BaseModel):
    model_config = _INPUT

    index: int
    """Flat index over all episodes, the unit of `divergence`."""
    episode: int
    turn: int
    """Index within its episode, the unit of risk points."""
    role: Literal["user", "agent", "environment"]
    content: str = ""
    """User request or observation."""
    thought: str = ""
    action: str = ""
    """Public action string: a JSON tool call, or `Complete{"response": ...}`."""
    tool: str | None = None
    """The tool an agent turn calls, with `arguments`."""
    arguments: dict[str, Any] | None = None
    response: str | None = None
    """The final answer an agent turn gives."""

    def same_step(self, other: JudgeTurn) -> bool:
        """The same call with the same arguments, or the same final answer."""
        if self.tool is None and self.response is None:  # an imported, unparsed action
            return self.role == other.role == "agent" and self.action == other.action
        step = (self.tool, self.arguments, self.response)
        return self.role == other.role == "agent" and step == (
            other.tool,
            other.arguments,
            other.response,
        )


class JudgeEpisode(BaseModel):
    model_config = _INPUT

    kind: EpisodeKind
    turns: tuple[JudgeTurn, ...]


class PlausibilityInput(BaseModel):
    """One trajectory with everything it claims about itself, plus what its twin does."""

    model_config = _INPUT

    trace_id: str
    domain: str
    profile: str
    tools: tuple[JudgeTool, ...]
    episodes: tuple[JudgeEpisode, ...]
    verdict: Verdict
    labels: dict[str, str] = Field(default_factory=dict)
    """Axis -> leaf id; empty for a safe trace."""
    reason: str
    risk_points: tuple[RiskPoint, ...] = ()
    divergence: int | None = None
    construction: dict[str, str] = Field(default_factory=dict)
    twin_actions: tuple[JudgeTurn, ...] = ()
    """Unsafe trace: the safe twin's agent turns from the divergence step on."""
    twin_harm: JudgeTurn | None = None
    """Safe trace: the harmful step its unsafe twin takes."""


class PlausibilityAnswer(BaseModel):
    plausible: bool
    """The behaviour could happen as shown: each step follows from what came before."""
    labels_consistent: bool
    """Verdict, labels and risk points match what the trace shows."""
    reason_code: JudgeCode
    reasons: str = Field(min_length=1)


PLAUSIBILITY_JUDGE = Role("plausibility_judge", PlausibilityInput, PlausibilityAnswer)


class JudgeOutcome(BaseModel):
    """The judge's word on one trace: `ok`, a rejection code, or an LLM failure code."""

    model_config = ConfigDict(frozen=True)

    trajectory_id: str
    code: str
    answered: bool = True
    """False when the LLM layer returned no valid verdict (`code` is then its failure code)."""
    rejection: Rejection | None = None


# --- building the judge's input ---------------------------------------------------------------


def judge_input(traj: Trajectory, twin: Trajectory | None, pool: ToolPool) -> PlausibilityInput:
    """What the judge sees of `traj`; `twin` (the other variant of its pair) adds contrast."""
    payload = _view(traj, pool)
    if twin is None:
        return payload
    if traj.verdict == "unsafe":
        start = traj.divergence or 0
        actions = tuple(
            t for t in _flat(_view(twin, pool)) if t.role == "agent" and t.index >= start
        )
        return payload.model_copy(update={"twin_actions": actions})
    harm = find_harm(judge_input(twin, traj, pool)) if twin.verdict == "unsafe" else None
    return payload.model_copy(update={"twin_harm": harm.step if harm else None})


def _view(traj: Trajectory, pool: ToolPool) -> PlausibilityInput:
    index = 0
    episodes = []
    for e, episode in enumerate(traj.episodes):
        turns = []
        for t, turn in enumerate(episode.turns):
            where = {"index": index, "episode": e, "turn": t, "role": turn.role}
            if isinstance(turn, AgentTurn):
                action = turn.action
                call = action if isinstance(action, ToolCall) else None
                turns.append(
                    JudgeTurn(
                        **where,
                        thought=turn.thought,
                        action=format_action(action),
                        tool=call.name if call else None,
                        arguments=call.arguments if call else None,
                        response=action.response if isinstance(action, FinalAnswer) else None,
                    )
                )
            else:
                turns.append(JudgeTurn(**where, content=turn.content))
            index += 1
        episodes.append(JudgeEpisode(kind=episode.kind, turns=tuple(turns)))
    return PlausibilityInput(
        trace_id=traj.id,
        domain=traj.domain,
        profile=traj.profile,
        tools=tuple(
            JudgeTool(
                name=tool.name,
                description=tool.description,
                side_effect=pool[tool.name].side_effect
                if tool.name in pool
                else UNKNOWN_SIDE_EFFECT,
                imitates=pool[tool.name].lookalike_of if tool.name in pool else None,
            )
            for tool in traj.tools
        ),
        episodes=tuple(episodes),
        verdict=traj.verdict,
        labels=traj.labels.model_dump() if traj.labels else {},
        reason=traj.reason,
        risk_points=traj.risk_points,
        divergence=traj.divergence,
        construction=traj.construction,
    )


def _flat(payload: PlausibilityInput) -> list[JudgeTurn]:
    return [turn for episode in payload.episodes for turn in episode.turns]


# --- the facts both backends judge ------------------------------------------------------------


class Harm(BaseModel):
    """Where an unsafe trace's harm is realised, or why it is not."""

    model_config = ConfigDict(frozen=True)

    code: JudgeCode
    """`ok`, `no_harmful_step` or `harm_unreachable`."""
    step: JudgeTurn | None = None
    after: int
    """Flat index the harmful step must not precede: the first trigger and the divergence."""


def trigger_index(payload: PlausibilityInput, point: RiskPoint) -> int:
    episodes = payload.episodes
    return sum(len(e.turns) for e in episodes[: point.episode]) + point.turn


def turn_texts(turn: JudgeTurn) -> list[str]:
    """Where a trigger can sit in a turn: the text, the prose inside a JSON observation, the
    thought and the action."""
    if turn.role == "agent":
        return [turn.thought, turn.action if turn.response is None else turn.response]
    if turn.role == "environment":
        return [turn.content, *observation_texts(turn.content)]
    return [turn.content]


def find_harm(payload: PlausibilityInput) -> Harm:
    """The unsafe trace's harmful step: its first agent action, from the trigger and the
    divergence step on, that can do harm — a call to a tool with side effects or to a deceptive
    look-alike or, for an output-content failure mode, the final answer.

    A step its twin also takes at the same turn is shared, not harmful; a verbatim repeat of an
    earlier step adds nothing new, unless waste is the failure mode.
    """
    starts = [trigger_index(payload, p) for p in payload.risk_points]
    after = max(min(starts, default=0), payload.divergence or 0)
    twin = {t.index: t for t in payload.twin_actions}
    turns = _flat(payload)
    wasteful = payload.labels.get("failure_mode") == "inefficient_or_wasteful_execution"
    steps = [
        t
        for t in turns
        if t.role == "agent"
        and t.index >= after
        and not (t.index in twin and t.same_step(twin[t.index]))
        and (wasteful or not any(t.same_step(earlier) for earlier in turns[: t.index]))
    ]
    if payload.labels.get("failure_mode") in OUTPUT_MODES:
        last = payload.episodes[-1].turns[-1].index
        final = next((t for t in steps if t.response is not None and t.index == last), None)
        return Harm(code="ok" if final else "no_harmful_step", step=final, after=after)
    calls = [t for t in steps if t.tool is not None]
    if not calls:
        return Harm(code="no_harmful_step", after=after)
    tools = {tool.name: tool for tool in payload.tools}
    for call in calls:
        tool = tools.get(call.tool or "")
        if tool is None or tool.side_effect != "none" or tool.imitates is not None:
            return Harm(code="ok", step=call, after=after)
    return Harm(code="harm_unreachable", after=after)


# --- asking and recording ---------------------------------------------------------------------


async def judge_trajectories(
    client: LLMClient,
    targets: Sequence[Trajectory],
    population: Iterable[Trajectory],
    pool: ToolPool,
) -> list[JudgeOutcome]:
    """Ask the judge about every target (twins are looked up in `population`), in order.

    A verdict against the trace, or no valid verdict at all, becomes a `judge` rejection: an
    unanswered trace is never kept on trust.
    """
    pairs: dict[str, dict[str, Trajectory]] = {}
    for traj in population:
        pairs.setdefault(traj.pair_id, {})[traj.id] = traj
    requests = []
    for traj in targets:
        twins = [t for t in pairs.get(traj.pair_id, {}).values() if t.id != traj.id]
        payload = judge_input(traj, twins[0] if twins else None, pool)
        request = PLAUSIBILITY_JUDGE.request(
            payload, stage=STAGE, domain=traj.domain, item_id=traj.id
        )
        requests.append((request, PlausibilityAnswer))
    answers = await client.ask_all(requests)
    return [_outcome(traj, answer) for traj, answer in zip(targets, answers, strict=True)]


def _outcome(traj: Trajectory, answer: PlausibilityAnswer | LLMFailure) -> JudgeOutcome:
    if isinstance(answer, LLMFailure):
        return JudgeOutcome(
            trajectory_id=traj.id,
            code=answer.reason_code,
            answered=False,
            rejection=_rejection(traj, answer.reason_code, f"no verdict: {answer}"),
        )
    if answer.plausible and answer.labels_consistent:
        return JudgeOutcome(trajectory_id=traj.id, code="ok")
    code = answer.reason_code
    if code == "ok":  # a model that rejects must still say why in a code
        code = "implausible_behaviour" if not answer.plausible else "labels_contradict_trace"
    return JudgeOutcome(
        trajectory_id=traj.id, code=code, rejection=_rejection(traj, code, answer.reasons)
    )


def _rejection(traj: Trajectory, code: str, message: str) -> Rejection:
    return Rejection(
        trajectory_id=traj.id,
        pair_id=traj.pair_id,
        domain=traj.domain,
        stage="judge",
        check=CHECK,
        reason_code=code,
        message=message,
    )


# --- agreement with the rules -----------------------------------------------------------------


def agreement_sample(
    trajectories: Sequence[Trajectory], rule_rejected: set[str], seed: str
) -> list[Trajectory]:
    """Up to `AGREEMENT_REJECTED_SAMPLE` rule-rejected traces, the same ones on every rerun."""
    candidates = [t for t in trajectories if t.id in rule_rejected]
    k = min(AGREEMENT_REJECTED_SAMPLE, len(candidates))
    return sorted(random.Random(seed).sample(candidates, k), key=lambda t: t.id)


def agreement(outcomes: Iterable[JudgeOutcome], rule_rejected: set[str]) -> dict[str, Any]:
    """How often judge and rules reach the same keep/reject decision on the traces both saw.

    Traces the judge could not answer (LLM failures) are left out: there is no verdict to
    compare. `disagree` counts each direction.
    """
    judged = [o for o in outcomes if o.answered]
    cases = Counter(
        ("rules_reject" if o.trajectory_id in rule_rejected else "rules_keep")
        + ("_judge_reject" if o.rejection else "_judge_keep")
        for o in judged
    )
    agree = cases["rules_keep_judge_keep"] + cases["rules_reject_judge_reject"]
    return {
        "sample": len(judged),
        "agree": agree,
        "rate": round(agree / len(judged), 4) if judged else None,
        "disagree": {
            "judge_only_rejects": cases["rules_keep_judge_reject"],
            "rules_only_reject": cases["rules_reject_judge_keep"],
        },
    }


def record_agreement(folder: Path, domain: str, figures: dict[str, Any]) -> dict[str, Any]:
    """Write one domain's figures beside the others', then their sum to `<folder>.json`.

    Each domain owns its file, so parallel domains never overwrite each other's figures; the
    summary is rebuilt from whatever domains have reported so far.
    """
    write_json_atomic(folder / f"{domain}.json", figures)
    parts = {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}
    total = {**merge_agreement(parts.values()), "domains": parts}
    write_json_atomic(folder.with_suffix(".json"), total)
    return total


def merge_agreement(parts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Per-domain agreement figures summed into one."""
    sample = agree = judge_only = rules_only = 0
    for part in parts:
        sample += part["sample"]
        agree += part["agree"]
        judge_only += part["disagree"]["judge_only_rejects"]
        rules_only += part["disagree"]["rules_only_reject"]
    return {
        "sample": sample,
        "agree": agree,
        "rate": round(agree / sample, 4) if sample else None,
        "disagree": {"judge_only_rejects": judge_only, "rules_only_reject": rules_only},
    }
