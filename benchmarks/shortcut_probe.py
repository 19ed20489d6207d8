"""Shortcut probe: can a bag-of-words classifier tell safe from unsafe traces?

A release whose safe and unsafe twins differ by give-away words (refusal phrases, "suspicious",
the harmful goal spelled out only in unsafe thoughts) lets a guard score well without judging
what the agent did. The probe measures that: TF-IDF over the rendered trace (turns only, as
the judge prompt shows them: [USER] / [AGENT] [THOUGHT] [ACTION] / [ENVIRONMENT]; never the
`reason`, labels or tool list) and a logistic regression, trained on half of the pairs and
scored on the other half. Splitting by `pair_id` keeps both twins of a pair on the same side,
so the probe cannot win by memorising a shared prefix. Several seeds give mean / min / max.

Target (issue 13): accuracy <= 0.65, on the whole trace and on the last three agent turns alone
(`--last-agent-turns 3`); the same kind of probe reaches about 0.84 on R-Judge.

Run from the repository root (needs scikit-learn, the `bench` extra):
    .venv/bin/python -m benchmarks.shortcut_probe outputs/release [--seeds 10] [--top 25]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline, make_pipeline

TARGET = 0.65
"""Issue 13: at most 0.65 on the whole trace and on the last three agent turns alone."""


@dataclass(frozen=True)
class ProbeRow:
    group: str
    """The pair id: both twins of a pair land on the same side of a split."""
    unsafe: bool
    text: str


def render_turn(turn: dict[str, Any]) -> str:
    """One turn the way the judge prompt shows it."""
    if turn["role"] == "user":
        return f"[USER]: {turn['content']}"
    if turn["role"] == "agent":
        return f"[AGENT]:\n[THOUGHT]: {turn.get('thought', '')}\n[ACTION]: {turn['action']}"
    return f"[ENVIRONMENT]: {turn['content']}"


def render_trace(contents: Sequence[Sequence[dict[str, Any]]], last_agent_turns: int = 0) -> str:
    """Every turn of every episode, in order; nothing else of the record. With
    `last_agent_turns`, only that many final agent turns (where twin cues would sit)."""
    turns = [turn for episode in contents for turn in episode]
    if last_agent_turns:
        turns = [t for t in turns if t["role"] == "agent"][-last_agent_turns:]
    return "\n".join(render_turn(turn) for turn in turns)


def load_rows(path: Path, last_agent_turns: int = 0) -> list[ProbeRow]:
    """Rows of a release folder, its `atbench.json`, or its `release.duckdb`."""
    if path.is_dir():
        path = path / "atbench.json"
    if path.suffix == ".duckdb":
        return _duckdb_rows(path, last_agent_turns)
    records = json.loads(path.read_text(encoding="utf-8"))
    return [
        ProbeRow(
            group=str(r.get("pair_id", r["id"])),
            unsafe=int(r["label"]) == 1,
            text=render_trace(r["contents"], last_agent_turns),
        )
        for r in records
    ]


def _duckdb_rows(path: Path, last_agent_turns: int) -> list[ProbeRow]:
    import duckdb

    from pipeline.core.model.trajectory import Trajectory
    from pipeline.core.release.atbench_format import to_atbench_row

    with duckdb.connect(str(path), read_only=True) as con:
        records = [r[0] for r in con.sql("SELECT record FROM trajectories ORDER BY id").fetchall()]
    rows = []
    for index, record in enumerate(records):
        trajectory = Trajectory.model_validate_json(record)
        public = to_atbench_row(trajectory, index)
        rows.append(
            ProbeRow(
                group=trajectory.pair_id,
                unsafe=trajectory.verdict == "unsafe",
                text=render_trace(public["contents"], last_agent_turns),
            )
        )
    return rows


def make_probe() -> Pipeline:
    """Word uni+bigrams, sublinear tf; an L2 logistic regression with default strength."""
    return make_pipeline(
        TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, max_features=200_000),
        LogisticRegression(max_iter=2000),
    )


def split(rows: Sequence[ProbeRow], seed: int) -> tuple[list[ProbeRow], list[ProbeRow]]:
    """Half of the pair ids (shuffled with `seed`) train, the other half test."""
    groups = sorted({r.group for r in rows})
    random.Random(seed).shuffle(groups)
    train_groups = set(groups[: len(groups) // 2])
    return (
        [r for r in rows if r.group in train_groups],
        [r for r in rows if r.group not in train_groups],
    )


def accuracy(rows: Sequence[ProbeRow], seed: int) -> float:
    train, test = split(rows, seed)
    probe = make_probe()
    probe.fit([r.text for r in train], [r.unsafe for r in train])
    predicted = probe.predict([r.text for r in test])
    return float(np.mean(predicted == np.array([r.unsafe for r in test])))


def top_features(rows: Sequence[ProbeRow], n: int) -> dict[str, list[tuple[str, float]]]:
    """The n-grams that push hardest toward each class, fitted on every row: the tells."""
    probe = make_probe()
    probe.fit([r.text for r in rows], [r.unsafe for r in rows])
    vectorizer, model = probe.named_steps.values()
    names = vectorizer.get_feature_names_out()
    weights = model.coef_[0]
    order = np.argsort(weights)
    return {
        "unsafe": [(str(names[i]), round(float(weights[i]), 3)) for i in order[::-1][:n]],
        "safe": [(str(names[i]), round(float(weights[i]), 3)) for i in order[:n]],
    }


def run(path: Path, seeds: int, top: int, last_agent_turns: int = 0) -> dict[str, Any]:
    rows = load_rows(path, last_agent_turns)
    scores = [accuracy(rows, seed) for seed in range(seeds)]
    result: dict[str, Any] = {
        "release": str(path),
        "rows": len(rows),
        "unsafe": sum(r.unsafe for r in rows),
        "pairs": len({r.group for r in rows}),
        "seeds": seeds,
        "accuracy_mean": round(statistics.fmean(scores), 4),
        "accuracy_min": round(min(scores), 4),
        "accuracy_max": round(max(scores), 4),
        "target": TARGET,
        "meets_target": statistics.fmean(scores) <= TARGET,
    }
    if top:
        result["top_features"] = top_features(rows, top)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", type=Path, help="release folder, atbench.json or .duckdb")
    parser.add_argument("--seeds", type=int, default=10, help="number of pair-id splits")
    parser.add_argument("--top", type=int, default=0, help="show the N strongest n-grams")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--last-agent-turns", type=int, default=0, help="probe only the last N agent turns"
    )
    args = parser.parse_args()
    result = run(args.release, args.seeds, args.top, args.last_agent_turns)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"{result['rows']} traces ({result['unsafe']} unsafe) in {result['pairs']} groups; "
        f"{args.seeds} pair-id splits"
    )
    print(
        f"accuracy mean {result['accuracy_mean']:.4f}  min {result['accuracy_min']:.4f}  "
        f"max {result['accuracy_max']:.4f}  (target <= {TARGET}: "
        f"{'met' if result['meets_target'] else 'NOT met'})"
    )
    for side, features in result.get("top_features", {}).items():
        print(f"toward {side}: " + ", ".join(f"{name!r} {w:+.2f}" for name, w in features))


if __name__ == "__main__":
    main()
