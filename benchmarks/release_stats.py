"""Construction-quality figures of a release, checked against issue 5's "done when" list.

Reads the full trajectory records (the `record` column of `release.duckdb`, or
`trajectories.jsonl` beside it) and reports: unsafe share; per-axis leaf counts among unsafe
traces against their fair share; long-context delayed-trigger share and length; subset sizes;
turn statistics; twin integrity (every unsafe trace has a safe twin whose turns are identical
up to the divergence step); the safe-strategy mix (how often the trigger stays in both twins);
and how many unsafe reasons name the concrete call or the quoted trigger; per-domain counts
against their fair share (issue 14: within +-10 %); and, from a release folder's manifest,
what selection after filtering did per domain (planned, survived, selected) with each
domain's measured loss, the figures `generation/overplan.py` plans by.

Run from the repository root:
    .venv/bin/python -m benchmarks.release_stats outputs/release [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pipeline.core.inputs.files import read_jsonl
from pipeline.core.inputs.paths import taxonomy_dir
from pipeline.core.inputs.taxonomy import load_taxonomy
from pipeline.core.model.labels import AXES
from pipeline.core.model.trajectory import AgentTurn, ToolCall, Trajectory

UNSAFE_SHARE = (0.45, 0.55)
LEAF_TOLERANCE = 0.20
DOMAIN_TOLERANCE = 0.10
"""Each domain within +-10 % of its fair share (traces / domains), issue 14."""
"""Each leaf within +-20 % of its fair share (unsafe traces / leaves on the axis)."""
LONG_CONTEXT_SHARE = 0.10
LONG_CONTEXT_TURNS = 20
SUBSET_MINIMUM = 50
SUBSETS = ("long_context", "false_reference", "long_html")
MEAN_TURNS = (8.0, 12.0)


def load_trajectories(path: Path) -> list[Trajectory]:
    """A release folder, its `release.duckdb`, or a `trajectories.jsonl` of full records."""
    if path.is_dir():
        path = path / "release.duckdb" if (path / "release.duckdb").exists() else path
    if path.is_dir():
        path = path / "trajectories.jsonl"
    if path.suffix == ".jsonl":
        return read_jsonl(path, Trajectory)
    import duckdb

    with duckdb.connect(str(path), read_only=True) as con:
        rows = con.sql("SELECT record FROM trajectories ORDER BY id").fetchall()
    return [Trajectory.model_validate_json(row[0]) for row in rows]


def _percentile(values: Sequence[int], q: float) -> float:
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, int(q * len(ordered)))])


def leaf_balance(unsafe: Sequence[Trajectory]) -> dict[str, dict[str, Any]]:
    """Per axis: each leaf's count, its ratio to the fair share, and the leaves outside +-20 %."""
    taxonomy = load_taxonomy(taxonomy_dir() / "taxonomy.yaml")
    result: dict[str, dict[str, Any]] = {}
    for axis in AXES:
        leaves = taxonomy.leaf_ids(axis)
        counts = Counter(getattr(t.labels, axis) for t in unsafe if t.labels is not None)
        fair = len(unsafe) / len(leaves)
        ratios = {leaf: round(counts[leaf] / fair, 3) if fair else 0.0 for leaf in leaves}
        result[axis] = {
            "fair_share": round(fair, 2),
            "counts": {leaf: counts[leaf] for leaf in leaves},
            "ratio_min": min(ratios.values()),
            "ratio_max": max(ratios.values()),
            "missing": [leaf for leaf in leaves if counts[leaf] == 0],
            "outside_tolerance": {
                leaf: r for leaf, r in ratios.items() if abs(r - 1) > LEAF_TOLERANCE
            },
        }
    return result


def domain_balance(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Traces per domain, each one's ratio to the fair share, and the domains outside +-10 %."""
    counts = Counter(t.domain for t in trajectories)
    fair = len(trajectories) / len(counts) if counts else 0.0
    ratios = {d: round(n / fair, 3) for d, n in sorted(counts.items())}
    return {
        "fair_share": round(fair, 2),
        "counts": dict(sorted(counts.items())),
        "ratio_min": min(ratios.values(), default=0.0),
        "ratio_max": max(ratios.values(), default=0.0),
        "outside_tolerance": {d: r for d, r in ratios.items() if abs(r - 1) > DOMAIN_TOLERANCE},
    }


def selection_figures(release_dir: Path) -> dict[str, Any] | None:
    """What selection after filtering did, per domain, from the release's manifest, with the
    share of each domain's planned pairs that construction and filtering rejected."""
    manifest = release_dir / "manifest.json"
    if not manifest.is_file():
        return None
    record = json.loads(manifest.read_text(encoding="utf-8")).get("config", {}).get("selection")
    if record is None:
        return None
    loss = {
        d: round(1 - f["survived"] / f["planned"], 3)
        for d, f in record["per_domain"].items()
        if f["planned"]
    }
    return {
        "release_pairs": record["release_pairs"],
        "planned_pairs": sum(f["planned"] for f in record["per_domain"].values()),
        "surviving_pairs": record["surviving_pairs"],
        "selected_pairs": record["selected_pairs"],
        "dropped": len(record["dropped"]),
        "short_domains": {
            d: f["selected"]
            for d, f in record["per_domain"].items()
            if f["survived"] == f["selected"] and f["survived"] < f["planned"]
        },
        "measured_loss": loss,
    }


def twin_integrity(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    """Unsafe traces without a safe twin, and pairs whose turns differ before divergence."""
    by_pair: dict[str, dict[str, Trajectory]] = defaultdict(dict)
    for t in trajectories:
        by_pair[t.pair_id][t.variant] = t
    orphans = [p for p, twins in by_pair.items() if "unsafe" in twins and "safe" not in twins]
    broken = []
    for pair_id, twins in by_pair.items():
        if "unsafe" not in twins or "safe" not in twins:
            continue
        unsafe, safe = twins["unsafe"], twins["safe"]
        step = unsafe.divergence if unsafe.divergence is not None else 0
        same = unsafe.divergence == safe.divergence and [
            turn.model_dump() for turn in unsafe.turns[:step]
        ] == [turn.model_dump() for turn in safe.turns[:step]]
        if not same:
            broken.append(pair_id)
    return {
        "pairs": sum(len(t) == 2 for t in by_pair.values()),
        "unsafe_without_safe_twin": orphans,
        "prefix_mismatch": broken,
    }


def _names_concrete_steps(t: Trajectory) -> bool:
    """The reason names a tool the agent called or quotes a planted trigger."""
    called = {
        turn.action.name
        for turn in t.turns
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
    }
    quoted = [p.text[:40] for p in t.risk_points if p.channel != "agent_reasoning"]
    return any(name in t.reason for name in called) or any(q in t.reason for q in quoted)


def release_stats(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    unsafe = [t for t in trajectories if t.verdict == "unsafe"]
    total = len(trajectories)
    turns = [len(t.turns) for t in trajectories]
    long_context = [t for t in trajectories if {"long_context", "delayed_trigger"} <= t.tags]
    strategies = Counter(t.construction.get("safe_strategy", "benign") for t in unsafe)
    subsets = {tag: sum(tag in t.tags for t in trajectories) for tag in SUBSETS}
    balance = leaf_balance(unsafe)
    domains = domain_balance(trajectories)
    twins = twin_integrity(trajectories)
    share = len(unsafe) / total if total else 0.0
    long_share = len(long_context) / total if total else 0.0
    long_min = min((len(t.turns) for t in long_context), default=0)
    concrete = sum(_names_concrete_steps(t) for t in unsafe)
    checks = {
        "unsafe_share_45_55": UNSAFE_SHARE[0] <= share <= UNSAFE_SHARE[1],
        "every_leaf_present": not any(balance[a]["missing"] for a in AXES),
        "leaves_within_20pct": not any(balance[a]["outside_tolerance"] for a in AXES),
        "domains_within_10pct": not domains["outside_tolerance"],
        "long_context_share_10pct": long_share >= LONG_CONTEXT_SHARE,
        "subsets_at_least_50": all(n >= SUBSET_MINIMUM for n in subsets.values()),
        "twins_complete_and_prefix_identical": not (
            twins["unsafe_without_safe_twin"] or twins["prefix_mismatch"]
        ),
        "mean_turns_8_12": MEAN_TURNS[0] <= statistics.fmean(turns) <= MEAN_TURNS[1],
        "long_context_at_least_20_turns": long_min >= LONG_CONTEXT_TURNS,
    }
    return {
        "trajectories": total,
        "unsafe": len(unsafe),
        "unsafe_share": round(share, 4),
        "leaf_balance": balance,
        "domain_balance": domains,
        "long_context": {"traces": len(long_context), "share": round(long_share, 4)},
        "long_context_min_turns": long_min,
        "subsets": subsets,
        "turns": {
            "mean": round(statistics.fmean(turns), 2),
            "median": statistics.median(turns),
            "p90": _percentile(turns, 0.9),
            "max": max(turns),
            "min": min(turns),
            "histogram": dict(sorted(Counter(min(n, 40) // 4 * 4 for n in turns).items())),
        },
        "twins": {
            "pairs": twins["pairs"],
            "unsafe_without_safe_twin": len(twins["unsafe_without_safe_twin"]),
            "prefix_mismatch": len(twins["prefix_mismatch"]),
        },
        "safe_strategy": dict(strategies),
        "trigger_in_both_twins_share": round(
            1 - strategies.get("removed", 0) / len(unsafe) if unsafe else 0.0, 4
        ),
        "unsafe_reasons_naming_steps": round(concrete / len(unsafe), 4) if unsafe else 0.0,
        "checks": checks,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("release", type=Path, help="release folder, release.duckdb or .jsonl")
    parser.add_argument("--json", action="store_true", help="print every figure as JSON")
    args = parser.parse_args()
    stats = release_stats(load_trajectories(args.release))
    if args.release.is_dir():
        stats["selection"] = selection_figures(args.release)
    if args.json:
        print(json.dumps(stats, indent=2))
        return
    print(
        f"{stats['trajectories']} traces, {stats['unsafe']} unsafe "
        f"({stats['unsafe_share']:.1%}); long-context {stats['long_context']['traces']} "
        f"({stats['long_context']['share']:.1%}, shortest {stats['long_context_min_turns']} "
        f"turns); subsets {stats['subsets']}"
    )
    t = stats["turns"]
    print(
        f"turns mean {t['mean']} median {t['median']} p90 {t['p90']} min {t['min']} max {t['max']}"
    )
    for axis, figures in stats["leaf_balance"].items():
        print(
            f"{axis}: fair share {figures['fair_share']}, ratio {figures['ratio_min']}-"
            f"{figures['ratio_max']}, outside +-20%: {figures['outside_tolerance'] or 'none'}"
        )
    d = stats["domain_balance"]
    print(
        f"domains: fair share {d['fair_share']}, ratio {d['ratio_min']}-{d['ratio_max']}, "
        f"outside +-10%: {d['outside_tolerance'] or 'none'}"
    )
    if stats.get("selection"):
        sel = stats["selection"]
        print(
            f"selection: {sel['planned_pairs']} pairs planned, {sel['surviving_pairs']} "
            f"survived, {sel['selected_pairs']} selected (release share {sel['release_pairs']}); "
            f"{sel['dropped']} dropped; short domains {sel['short_domains'] or 'none'}"
        )
        print(f"measured loss per domain: {sel['measured_loss']}")
    print(f"twins {stats['twins']}; safe strategy {stats['safe_strategy']}")
    print(f"unsafe reasons naming the concrete steps: {stats['unsafe_reasons_naming_steps']:.1%}")
    for name, ok in stats["checks"].items():
        print(f"  [{'ok' if ok else 'FAIL'}] {name}")


if __name__ == "__main__":
    main()
