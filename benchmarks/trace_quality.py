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
from pathlib import Path
from typing import Any

from pipeline.core.filtering.grounding import grounding_report
from pipeline.core.filtering.verifier import CONSTRUCTION_WORDS, THE_AGENT, shares_run, shown_share
from pipeline.core.generation.dialogue import unfold
from pipeline.core.generation.semantics import tokens as tokens_of
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.model.labels import leaf_context
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


def _lists(value: Any) -> Iterable[list[Any]]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _lists(v)
    elif isinstance(value, list):
        yield value
        for v in value:
            yield from _lists(v)


def _identity(item: Any) -> str | None:
    """A listed record's own id: its first `…id` field (a document's `document_id`, not the
    `matter_id` every document of one matter shares)."""
    if not isinstance(item, dict):
        return None
    return next((str(v) for k, v in item.items() if k.endswith("id")), None)


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
            for items in _lists(data):
                ids = [identity for item in items if (identity := _identity(item)) is not None]
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
    context = leaf_context(load_inputs().taxonomy)
    trajectories = load(args.release / "trajectories.jsonl", context)
    figures: dict[str, Any] = {
        **length_figures(trajectories),
        **observation_figures(trajectories),
        "restated_thoughts_share": restated_thoughts(trajectories),
        "grounding": {k: v for k, v in grounding_report(trajectories).items() if k != "examples"},
        **trigger_figures(trajectories),
        "users": {
            **verbatim_request_share(trajectories),
            "distinct_openings": distinct_openings(trajectories),
            "user_turns": user_turns(trajectories),
        },
    }
    if args.build:
        figures["verifier"] = verifier_figures(args.build, context)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
