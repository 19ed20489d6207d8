"""Rule-based filtering: named rules, each returning the problems it finds.

The trajectory model already refuses what cannot happen (unknown tools, calls without
observations, labels on safe traces or off the taxonomy, unsafe traces without risk points):
such a record never becomes a `Trajectory`, so a stage file holding one fails to load, naming
file, line and field, and an imported row is refused by its importer the same way. These rules
catch what is possible but wrong. A rejected trace takes its twin with it (`reject_pairs`, shared
with the judge), and both leave with a reason.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, FormatChecker

from pipeline.core.filtering.argument_values import argument_values
from pipeline.core.filtering.residue import phrase_grammar, prose_placeholder, template_marks
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.channels import CHANNEL_OF
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
)

Rule = Callable[[Trajectory, ToolPool], list[str]]

_PLACEHOLDER = re.compile(
    r"<[A-Za-z][A-Za-z _-]*>|\[[A-Z][A-Z0-9]*(?:[_ ][A-Z0-9]+)+\]"
    r"|(?i:your_[a-z0-9_]+|x{3,}|placeholder|\.\.\.)"
)
"""A whole argument value that stands in for a real one (`<recipient>`, `[ACCOUNT_ID]`,
`YOUR_API_KEY`). Not `[ERROR]` (a log level to search for), `N/A` or `TBD` (real form values)."""
MIN_TURNS, MAX_TURNS, MIN_LONG_CONTEXT_TURNS = 4, 120, 20


@cache
def _validator(schema_json: str) -> Draft202012Validator:
    return Draft202012Validator(json.loads(schema_json), format_checker=FormatChecker())


def _errors(schema: dict[str, Any], value: Any) -> list[str]:
    validator = _validator(json.dumps(schema, sort_keys=True))
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in validator.iter_errors(value)
    ]


def _calls(traj: Trajectory) -> Iterable[tuple[int, ToolCall, EnvironmentTurn | None]]:
    turns = traj.turns
    for index, turn in enumerate(turns):
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            following = turns[index + 1] if index + 1 < len(turns) else None
            yield index, turn.action, following if isinstance(following, EnvironmentTurn) else None


def required_parameters(traj: Trajectory, pool: ToolPool) -> list[str]:
    """A call the tool would refuse: a required argument of the schema the agent saw is missing."""
    specs = {tool.name: tool for tool in traj.tools}
    return [
        f"turn {i}: {call.name} misses required {name!r}"
        for i, call, _ in _calls(traj)
        for name in specs[call.name].parameters.get("required", [])
        if name not in call.arguments
    ]


def argument_schema(traj: Trajectory, pool: ToolPool) -> list[str]:
    """Arguments off the schema the agent saw (type, enum, format, extra keys): the real tool
    would refuse them. Values are not judged: `[ERROR]`, `N/A` or code are valid strings."""
    specs = {tool.name: tool for tool in traj.tools}
    return [
        f"turn {i}: {call.name} arguments {error}"
        for i, call, _ in _calls(traj)
        for error in _errors(specs[call.name].parameters, call.arguments)
        if "is a required property" not in error
    ]


def observation_schema(traj: Trajectory, pool: ToolPool) -> list[str]:
    """An observation the tool could not return: not JSON, or off its declared result shape.
    A tool error report is something any tool can return (`_tool_error`)."""
    problems = []
    for i, call, observation in _calls(traj):
        if observation is None or call.name not in pool:
            continue
        try:
            value = json.loads(observation.content)
        except json.JSONDecodeError:
            problems.append(f"turn {i + 1}: observation of {call.name} is not JSON")
            continue
        if _tool_error(value, pool[call.name].returns):
            continue
        problems += [
            f"turn {i + 1}: observation of {call.name} {error}"
            for error in _errors(pool[call.name].returns, value)
        ]
    return problems


def _tool_error(value: Any, returns: dict[str, Any]) -> bool:
    """A tool's error report (`{"error": "403: branch is protected"}`): real tools answer bad
    calls that way, and their declared result schema does not describe failures."""
    if not isinstance(value, dict) or "error" in returns.get("properties", {}):
        return False
    error = value.get("error")
    return isinstance(error, str | dict) and bool(error)


def final_answer(traj: Trajectory, pool: ToolPool) -> list[str]:
    """Every episode closes with the agent's answer, the step a guard reads the outcome from."""
    return [
        f"episode {e} does not end with a final answer"
        for e, episode in enumerate(traj.episodes)
        if not (
            isinstance(episode.turns[-1], AgentTurn)
            and isinstance(episode.turns[-1].action, FinalAnswer)
        )
    ]


def episode_structure(traj: Trajectory, pool: ToolPool) -> list[str]:
    """Delayed-trigger tags and episodes agree, and an unsafe Exploit acts on carried context."""
    kinds = [episode.kind for episode in traj.episodes]
    if "delayed_trigger" not in traj.tags:
        return [] if kinds == ["main"] else [f"episodes {kinds} without the delayed_trigger tag"]
    problems = [] if kinds == ["setup", "exploit"] else [f"delayed trigger with episodes {kinds}"]
    if traj.verdict == "unsafe" and not any(
        isinstance(turn, AgentTurn) and turn.grounded_in_context for turn in traj.episodes[-1].turns
    ):
        problems.append("no Exploit step is grounded in the carried-over context")
    return problems


def label_consistency(traj: Trajectory, pool: ToolPool) -> list[str]:
    """The labelled risk source enters where its risk points sit (`CHANNEL_OF`)."""
    if traj.labels is None:
        return []
    expected = CHANNEL_OF[traj.labels.risk_source]
    channels = {point.channel for point in traj.risk_points}
    if expected not in channels:
        return [
            f"risk source {traj.labels.risk_source} enters through {expected}, "
            f"but the risk points sit in {sorted(channels)}"
        ]
    return []


def leftover_markup(traj: Trajectory, pool: ToolPool) -> list[str]:
    """What our own templates could leave behind (`filtering.residue`); the domain's code,
    CI files, page templates and log formats are content. Imported traces came from no template
    of ours, so there is nothing of ours to leave."""
    if traj.imported:
        return []
    prose = [traj.reason]
    data = [tool.description for tool in traj.tools]
    values: list[tuple[str, str, dict[str, Any]]] = []
    specs = {tool.name: tool.parameters.get("properties", {}) for tool in traj.tools}
    for turn in traj.turns:
        if isinstance(turn, AgentTurn):
            prose.append(turn.thought)
            if isinstance(turn.action, FinalAnswer):
                prose.append(turn.action.response)
            elif isinstance(turn.action, ToolCall):
                properties = specs[turn.action.name]
                values += [
                    (name, text, properties.get(name, {}) if text is value else {})
                    for name, value in turn.action.arguments.items()
                    for text in _strings(value)
                ]
        elif isinstance(turn, EnvironmentTurn):
            data += observation_texts(turn.content)
        else:
            prose.append(turn.content)
    written = prose + [text for _, text, _ in values]
    marks = template_marks(templates_dir())
    found = [marks.find(text) for text in written + data]
    if traj.provenance.backend == "procedural":
        found += [phrase_grammar(text) for text in written + data]
    found += [prose_placeholder(text) for text in written]
    return [f"template residue {m!r}" for m in found if m] + [
        f"placeholder argument value {name}={value!r}"
        for name, value, schema in values
        if _stands_in(value.strip(), schema)
    ]


def _stands_in(value: str, schema: dict[str, Any]) -> bool:
    """A whole argument value that stands in for a real one: a placeholder, or the parameter's
    own type name or description copied from the prompt's schema (unless the schema offers
    that value: a column-type parameter may well take "string")."""
    offered = value in schema.get("enum", ()) or value in schema.get("examples", ())
    echoed = value in (schema.get("type"), schema.get("description")) and not offered
    return echoed or bool(_PLACEHOLDER.fullmatch(value))


def observation_texts(content: str) -> list[str]:
    """The prose inside a JSON observation (its braces are syntax, not template residue)."""
    try:
        value = json.loads(content)
    except json.JSONDecodeError:
        return [content]
    return _strings(value)


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON value."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            stack += list(item.values())
        elif isinstance(item, list):
            stack += item
    return found


def length_bounds(traj: Trajectory, pool: ToolPool) -> list[str]:
    """Within 4-120 turns (one tool call at least: a tool-use benchmark), 20+ for long context."""
    n = len(traj.turns)
    low = MIN_LONG_CONTEXT_TURNS if "long_context" in traj.tags else MIN_TURNS
    return [] if low <= n <= MAX_TURNS else [f"{n} turns, expected {low}-{MAX_TURNS}"]


RULES: dict[str, Rule] = {
    rule.__name__: rule
    for rule in (
        required_parameters,
        argument_schema,
        argument_values,
        observation_schema,
        final_answer,
        episode_structure,
        label_consistency,
        leftover_markup,
        length_bounds,
    )
}


def pair_problems(unsafe: Trajectory, safe: Trajectory) -> list[str]:
    """Twins run under one system prompt and share every turn before the divergence step."""
    if unsafe.profile != safe.profile:
        return ["twins run under different system prompts"]
    if unsafe.divergence is None or unsafe.divergence != safe.divergence:
        return ["twins disagree on the divergence step"]
    n = unsafe.divergence
    if unsafe.turns[:n] != safe.turns[:n]:
        return [f"twins differ before their divergence step {n}"]
    return []


def rule_problems(traj: Trajectory, pool: ToolPool) -> dict[str, list[str]]:
    """Every rule that finds something wrong with `traj`, with what it found, in rule order."""
    found = {name: rule(traj, pool) for name, rule in RULES.items()}
    return {name: problems for name, problems in found.items() if problems}


def apply_rules(
    trajectories: list[Trajectory], pool: ToolPool
) -> tuple[list[Trajectory], list[Rejection], Counter[str]]:
    """Keep what passes every rule; a rejected twin takes its pair out of the release.

    A trace's rejection names the first rule it breaks; the counts say, per rule (and
    `pair_integrity`), how many traces break it, so one trace may count under several rules.
    """
    rejected: dict[str, Rejection] = {}
    counts: Counter[str] = Counter()
    for traj in trajectories:
        problems = rule_problems(traj, pool)
        counts.update(problems.keys())
        if problems:
            name, found = next(iter(problems.items()))
            rejected[traj.id] = _rejection(traj, "rules", name, name, "; ".join(found[:3]))
    by_pair: dict[str, list[Trajectory]] = {}
    for traj in trajectories:
        by_pair.setdefault(traj.pair_id, []).append(traj)
    for pair in by_pair.values():
        variants = {traj.variant: traj for traj in pair}
        if "unsafe" not in variants:
            continue
        if "safe" not in variants:
            twin_problems = ["the safe twin is missing"]
        else:
            twin_problems = pair_problems(variants["unsafe"], variants["safe"])
        if twin_problems:
            counts["pair_integrity"] += len(pair)
            for traj in pair:
                rejected.setdefault(
                    traj.id,
                    _rejection(traj, "rules", "pair_integrity", "pair_integrity", twin_problems[0]),
                )
    kept, pairing = reject_pairs(trajectories, rejected.values())
    return kept, [*rejected.values(), *pairing], counts


def reject_pairs(
    trajectories: Sequence[Trajectory], rejections: Iterable[Rejection]
) -> tuple[list[Trajectory], list[Rejection]]:
    """Traces whose pair lost no member, and a `pairing` rejection for each twin of a rejected
    trace, naming who took it out and why, so the pair's fate is on record."""
    rejected: dict[str, Rejection] = {r.trajectory_id: r for r in rejections}
    cause: dict[str, Rejection] = {}
    for rejection in rejected.values():
        cause.setdefault(rejection.pair_id, rejection)
    kept: list[Trajectory] = []
    pairing: list[Rejection] = []
    for traj in trajectories:
        if traj.id in rejected:
            continue
        first = cause.get(traj.pair_id)
        if first is None:
            kept.append(traj)
        else:
            pairing.append(
                _rejection(
                    traj,
                    "pairing",
                    "twin_rejected",
                    "twin_rejected",
                    f"twin {first.trajectory_id} was rejected by {first.check} "
                    f"({first.reason_code})",
                )
            )
    return kept, pairing


def _rejection(traj: Trajectory, stage: Any, check: str, code: str, message: str) -> Rejection:
    return Rejection(
        trajectory_id=traj.id,
        pair_id=traj.pair_id,
        domain=traj.domain,
        stage=stage,
        check=check,
        reason_code=code,
        message=message,
    )
