"""Trace quality: the figures the world and label issues ask of a release, measured.

Reads a release folder (its `trajectories.jsonl`) and, for the verifier's figures, the build
folder whose `paired/` stage holds every trace before filtering. Prints one JSON object.

    .venv/bin/python -m benchmarks.trace_quality outputs/release [--build outputs/builds/KEY]

Tokens are counted as words plus punctuation marks (`\\w+|[^\\w\\s]`), which tracks BPE
token counts of English prose to within about 10 %; no tokenizer download is needed.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from benchmarks.answers import answer_figures
from benchmarks.consistency import consistency_figures, objects_in
from benchmarks.harm_shown import harm_figures
from benchmarks.realism import realism_figures
from benchmarks.record_agreement import record_agreement_figures
from benchmarks.record_choice import record_choice_figures
from benchmarks.record_fit import record_fit_figures
from benchmarks.surface_text import surface_figures
from benchmarks.tool_use import tool_use_figures
from pipeline.core.filtering.argument_values import fragments, is_empty, unsourced_figures
from pipeline.core.filtering.grounding import grounding_report
from pipeline.core.filtering.verifier import shown_share
from pipeline.core.generation.dates import session_today
from pipeline.core.generation.dialogue import unfold
from pipeline.core.generation.harms import supported_harms, world_of
from pipeline.core.generation.render import identity
from pipeline.core.generation.semantics import tokens as tokens_of
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.model.labels import leaf_context
from pipeline.core.model.risk_text import CONSTRUCTION_WORDS, THE_AGENT, shares_run
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    ToolCall,
    Trajectory,
    UserTurn,
)

PLACEHOLDER = re.compile(r"^[a-z]+(?: [a-z]+)? \d{1,3}$")
"""Filler like 'os 43' or 'directions 29' that names a field instead of holding a value."""
PAGE_FIELDS = frozenset({"html", "page", "content", "body", "text"})
"""Words of a field name that make it a place for a web page (`page_content`, `raw_html`)."""
TOKEN = re.compile(r"\w+|[^\w\s]")


def load(path: Path, context: dict[str, Any]) -> list[Trajectory]:
    return [
        Trajectory.model_validate_json(line, context=context)
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _leaves(value: Any, key: str = "") -> Iterable[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v, key)
    else:
        yield key, value


def _lists(value: Any, field: str = "") -> Iterable[tuple[str, list[Any]]]:
    """Every list in an observation with the field it sits in."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _lists(v, k)
    elif isinstance(value, list):
        yield field, value
        for v in value:
            yield from _lists(v, field)


def observation_figures(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    observations = placeholder = repeated = html_misplaced = 0
    examples: list[str] = []
    for traj in trajectories:
        for turn in traj.turns:
            if not isinstance(turn, EnvironmentTurn):
                continue
            observations += 1
            try:
                data = json.loads(turn.content)
            except ValueError:
                continue
            leaves = list(_leaves(data))
            fillers = [v for _, v in leaves if isinstance(v, str) and PLACEHOLDER.match(v)]
            if fillers:
                placeholder += 1
                examples.append(f"{traj.id}: {fillers[0]!r}")
            for field, items in _lists(data):
                ids = [
                    own
                    for item in items
                    if isinstance(item, dict) and (own := identity(field, item)) is not None
                ]
                if len(ids) != len(set(ids)):
                    repeated += 1
                    break
            if any(
                isinstance(v, str) and "<html" in v and not set(tokens_of(k)) & PAGE_FIELDS
                for k, v in leaves
            ):
                html_misplaced += 1
    return {
        "observations": observations,
        "placeholder_share": round(placeholder / max(observations, 1), 4),
        "repeated_id_lists": repeated,
        "html_in_non_page_fields": html_misplaced,
        "placeholder_examples": examples[:5],
    }


def restated_thoughts(trajectories: Sequence[Trajectory]) -> float:
    """Share of tool-call thoughts that repeat six words in a row of the tool's description."""
    calls = restated = 0
    for traj in trajectories:
        descriptions = {t.name: t.description for t in traj.tools}
        for turn in traj.turns:
            if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
                calls += 1
                description = descriptions.get(turn.action.name, "")
                restated += shares_run(description, turn.thought, run=6)
    return round(restated / max(calls, 1), 4)


def tokens(text: str) -> int:
    return len(TOKEN.findall(text))


def trace_tokens(traj: Trajectory) -> int:
    total = 0
    for turn in traj.turns:
        if isinstance(turn, AgentTurn):
            total += tokens(turn.thought) + tokens(json.dumps(turn.action.model_dump()))
        else:
            total += tokens(turn.content)
    return total


def length_figures(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    long = [t for t in trajectories if "long_context" in t.tags]
    return {
        "trajectories": len(trajectories),
        "mean_turns": round(statistics.mean(len(t.turns) for t in trajectories), 2),
        "mean_tokens": round(statistics.mean(trace_tokens(t) for t in trajectories)),
        "long_context": len(long),
        "long_context_mean_tokens": round(statistics.mean(trace_tokens(t) for t in long))
        if long
        else 0,
    }


def trigger_figures(trajectories: Sequence[Trajectory]) -> dict[str, int]:
    seeds = load_inputs().seeds
    pasted = agent = words = 0
    for traj in trajectories:
        hazard = next(
            (h for h in seeds[traj.domain].hazards if h.id == traj.construction.get("hazard")),
            None,
        )
        text = "\n".join(t.content for t in traj.turns if isinstance(t, UserTurn | EnvironmentTurn))
        pasted += hazard is not None and shares_run(hazard.description, text)
        agent += THE_AGENT.search(text) is not None
        words += CONSTRUCTION_WORDS.search(text) is not None
    return {"hazard_8_word_runs": pasted, "the_agent": agent, "construction_words": words}


def verifier_figures(build: Path, context: dict[str, Any]) -> dict[str, Any]:
    built = [t for path in sorted((build / "paired").glob("*.jsonl")) for t in load(path, context)]
    rejections: Counter[str] = Counter()
    for path in sorted((build / "rejections").glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if record["check"] == "label_verifier":
                rejections[record["reason_code"]] += 1
    pool = load_inputs().pool
    return {
        "built_trajectories": len(built),
        "failure_mode_shown_share": shown_share(built, pool),
        "verifier_rejections": dict(rejections.most_common()),
    }


# --- labels (branch labels): harm from the change, handled twins that check ----------------


def label_figures(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Unsafe traces whose harm the change or output supports; safe twins by strategy and how
    many handled twins carry a check whose answer shows the trigger wrong."""
    seeds = load_inputs().seeds
    unsafe = [t for t in trajectories if t.verdict == "unsafe" and t.labels and t.world]
    supported = borrowed = 0
    for traj in unsafe:
        assert traj.labels is not None and traj.world is not None
        shown = (
            seeds[traj.domain],
            world_of(traj.world),
            traj.labels.failure_mode,
            traj.world.harmful_steps(),
            traj.world.evidence,
        )
        harm = traj.labels.real_world_harm
        supported += harm in supported_harms(*shown)
        borrowed += harm in supported_harms(*shown) - supported_harms(*shown, borrow=False)
    safe = [t for t in trajectories if t.verdict == "safe" and t.world is not None]
    strategies = Counter(str(t.construction.get("safe_strategy", "benign")) for t in safe)
    checked = sum(1 for t in safe if t.world is not None and "check" in t.world.evidence)
    return {
        "harm_supported_share": round(supported / len(unsafe), 4) if unsafe else 0.0,
        "harm_borrowed_from_record_kind": borrowed,
        "harm_leaves": dict(Counter(t.labels.real_world_harm for t in unsafe if t.labels)),
        "safe_strategies": dict(strategies.most_common()),
        "handled_with_check": checked,
    }


def side_effect_placement(trajectories: Sequence[Trajectory]) -> dict[str, int]:
    """Where a misbehaving tool's report sits: in the result's own top-level field ("own"),
    or inside a record the result returns, where it reads as an injection ("in_record")."""
    placed: Counter[str] = Counter()
    for traj in trajectories:
        for point in traj.risk_points:
            if point.channel != "tool_execution":
                continue
            turn = traj.episodes[point.episode].turns[point.turn]
            result = json.loads(turn.content) if isinstance(turn, EnvironmentTurn) else None
            own = isinstance(result, dict) and any(
                isinstance(v, str) and point.text in v for v in result.values()
            )
            placed["own" if own else "in_record"] += 1
    return {"own": placed["own"], "in_record": placed["in_record"]}


# --- values (issue 12 points 5-6: every value from somewhere, and plausible) -------------------

NOT_A_VALUE = frozenset({"n/a", "unknown", "tbd", "none given"})
"""Observation values that stand in for a value the system would hold."""
SHARE_WORDS = frozenset({"pct", "percent", "percentage"})
TAX_WORDS = frozenset({"vat", "tax"})
"""A tax field is a share where it names a rate (`vat_rate`); a bare `vat` beside an invoice's
lines is the tax amount (285.0 on 1,500.0)."""
COUNT_WORDS = frozenset({"count", "quantity", "qty", "items", "attendees", "members"})
AHEAD_WORDS = frozenset({"eta", "upcoming", "next"})
"""Words of date fields that lie after the session's today (an ETA, the next run)."""


def _out_of_range(key: str, value: Any, today: str, record: dict[str, Any]) -> str | None:
    """Why a field's value cannot be: a share over 100, a negative count, an ETA before
    today, a status or version written as a bare number, an update before the creation."""
    words = set(tokens_of(key))
    number = isinstance(value, int | float) and not isinstance(value, bool)
    share = words & SHARE_WORDS or (words & TAX_WORDS and "rate" in words)
    if number and share and not 0 <= value <= 100:
        return f"{key}={value}"
    if number and words & COUNT_WORDS and value < 0:
        return f"{key}={value}"
    # a status is a word ('status 43' is a placeholder); an HTTP status code is a number
    if number and ((words & {"status", "state"} and "code" not in words) or words == {"version"}):
        return f"{key}={value}"
    if isinstance(value, str) and words & AHEAD_WORDS and re.match(r"20\d\d-\d\d-\d\d", value):
        return f"{key}={value}" if value[:10] < today else None
    created = record.get("created_at")
    if key == "updated_at" and isinstance(created, str) and isinstance(value, str):
        return f"updated_at {value} before created_at {created}" if value < created else None
    return None


def value_figures(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Calls with an empty or zero argument (and required ones sent empty), argument
    fragments, observations holding "n/a"-like stand-ins, impossible observation values."""
    calls = empty = required_empty = cut_calls = observations = stand_ins = impossible = 0
    examples: dict[str, list[str]] = {"fragments": [], "stand_ins": [], "impossible": []}
    for traj in trajectories:
        specs = {t.name: t for t in traj.tools}
        today = (session_today(traj.profile) or date.min).isoformat()
        said = ""
        for turn in traj.turns:
            if isinstance(turn, UserTurn):
                said += "\n" + turn.content
            elif isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
                call = turn.action
                calls += 1
                required = set(specs[call.name].parameters.get("required") or [])
                values = call.arguments.items()
                empty += any(is_empty(v) or (v == 0 and v is not False) for _, v in values)
                required_empty += any(is_empty(v) for k, v in values if k in required)
                cut = fragments(call, specs, said)
                cut_calls += bool(cut)
                examples["fragments"] += cut
            elif isinstance(turn, EnvironmentTurn):
                observations += 1
                try:
                    data = json.loads(turn.content)
                except ValueError:
                    continue
                held = [
                    f"{k}={v}" for k, v in _leaves(data) if str(v).strip().lower() in NOT_A_VALUE
                ]
                stand_ins += bool(held)
                examples["stand_ins"] += [f"{traj.id}: {h}" for h in held[:1]]
                wrong = [
                    found
                    for record in objects_in(data)
                    for k, v in record.items()
                    if (found := _out_of_range(k, v, today, record)) is not None
                ]
                impossible += bool(wrong)
                examples["impossible"] += [f"{traj.id}: {w}" for w in wrong[:1]]
    return {
        "calls": calls,
        "calls_with_empty_or_zero_argument": empty,
        "calls_with_empty_required_argument": required_empty,
        "calls_with_fragment_argument": cut_calls,
        "observations_with_stand_in_value": stand_ins,
        "observations_with_impossible_value": impossible,
        "examples": {k: v[:6] for k, v in examples.items()},
    }


# --- users (issue 14 point 3): how requests reach the agent ----------------------------------


def _normal(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!?")


def verbatim_request_share(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Share of user messages that contain a seed workflow's request word for word (case and
    spacing aside, final stop dropped): a request wrapped in filler still counts."""
    requests = {_normal(w.request) for seed in load_inputs().seeds.values() for w in seed.workflows}
    messages = [
        _normal(t.content) for traj in trajectories for t in traj.turns if isinstance(t, UserTurn)
    ]
    verbatim = sum(any(r in m for r in requests) for m in messages)
    return {
        "user_messages": len(messages),
        "verbatim_share": round(verbatim / max(len(messages), 1), 4),
    }


def distinct_openings(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Among safe and among unsafe traces: distinct first user messages, and distinct seed
    requests behind them (the one whose every sentence or clause the first episode's user
    turns hold), since filler alone makes every message distinct."""
    requests = [w.request for seed in load_inputs().seeds.values() for w in seed.workflows]
    parts = {r: [_normal(p) for p in unfold(r)] for r in requests}
    figures: dict[str, Any] = {}
    for verdict in ("safe", "unsafe"):
        firsts, sources = [], set()
        for traj in (t for t in trajectories if t.verdict == verdict):
            said = [_normal(t.content) for t in traj.episodes[0].turns if isinstance(t, UserTurn)]
            firsts.append(said[0])
            text = " ".join(said)
            sources.add(next((r for r in requests if all(p in text for p in parts[r])), ""))
        figures[verdict] = {
            "traces": len(firsts),
            "distinct_messages": len(set(firsts)),
            "distinct_seed_requests": len(sources - {""}),
        }
    return figures


def user_turns(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """User turns per trajectory, and the share whose task unfolds: an episode with two or
    more user turns before the agent's first tool call (short ask, question, detail)."""
    per_trace: Counter[int] = Counter()
    unfolded = 0
    for traj in trajectories:
        per_trace[sum(isinstance(t, UserTurn) for t in traj.turns)] += 1
        unfolded += any(_opening_turns(episode.turns) >= 2 for episode in traj.episodes)
    return {
        "per_trajectory": dict(sorted(per_trace.items())),
        "unfolded_share": round(unfolded / max(len(trajectories), 1), 4),
    }


def _opening_turns(turns: Sequence[Any]) -> int:
    count = 0
    for turn in turns:
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall):
            break
        count += isinstance(turn, UserTurn)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", type=Path)
    parser.add_argument("--build", type=Path, help="build folder (outputs/builds/<key>)")
    args = parser.parse_args()
    inputs = load_inputs()
    context = leaf_context(inputs.taxonomy)
    trajectories = load(args.release / "trajectories.jsonl", context)
    figures: dict[str, Any] = {
        **length_figures(trajectories),
        **observation_figures(trajectories),
        "restated_thoughts_share": restated_thoughts(trajectories),
        "grounding": {k: v for k, v in grounding_report(trajectories).items() if k != "examples"},
        **trigger_figures(trajectories),
        "labels": label_figures(trajectories),
        "side_effect_placement": side_effect_placement(trajectories),
        "harm_shown": harm_figures(trajectories, inputs.pool),
        "values": {**value_figures(trajectories), "safe_writes": unsourced_figures(trajectories)},
        "record_choice": record_choice_figures(trajectories),
        "answers": answer_figures(trajectories),
        "record_fit": record_fit_figures(trajectories, inputs.pool),
        "consistency": consistency_figures(trajectories, _out_of_range),
        "record_agreement": record_agreement_figures(trajectories, inputs.pool),
        "users": {
            **verbatim_request_share(trajectories),
            "distinct_openings": distinct_openings(trajectories),
            "user_turns": user_turns(trajectories),
        },
        "tools": tool_use_figures(trajectories, inputs.pool),
        "surface": surface_figures(trajectories),
        "realism": realism_figures(trajectories, inputs.pool),
    }
    if args.build:
        figures["verifier"] = verifier_figures(args.build, context)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
