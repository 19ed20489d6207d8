"""The dataset card: the statistics ATBench reports, read back from the release database.

Numbers come from the DuckDB views rather than from the in-memory trajectories, so the card
describes exactly what was written. Plots use matplotlib's object API (`Figure`, Agg canvas)
and never pyplot, so rendering touches no global backend state and is safe in worker threads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import yaml
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from pipeline.core.evaluation.diversity import (
    DISTINCT_4GRAM_TARGET,
    TOP_OPENING_TARGET,
    diversity_report,
    role_texts,
)
from pipeline.core.inputs.paths import project_root, templates_dir
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.release.hub import hub_metadata
from pipeline.core.release.store import load_trajectories

CARD_TEMPLATE = "dataset_card.md.j2"
FILTER_PRECISION = Path("benchmarks") / "filter_precision.json"
"""The filters' measured precision and recall on the test corpus (`benchmarks/filter_precision.py
--write`), relative to the project root; the card quotes it when present."""
PLOTS_DIR = "plots"
DEFAULT_LICENSE = "apache-2.0"
DEFAULT_PRETTY_NAME = "ATBench-style agent trajectory safety benchmark"

_SAFE_COLOUR = "#4c9f70"
_UNSAFE_COLOUR = "#c8553d"


@dataclass(frozen=True)
class CardStats:
    """Everything the template shows; rows are plain dicts straight from SQL."""

    license: str
    pretty_name: str
    size_category: str
    manifest: Mapping[str, Any]
    backends: list[str]
    procedural: bool
    total: int
    safe: int
    unsafe: int
    n_pairs: int
    avg_turns: float
    avg_tokens: float
    tools_available: int
    tools_used: int
    axes: list[dict[str, Any]]
    subsets: list[dict[str, Any]]
    domains: list[dict[str, Any]]
    rejections: list[dict[str, Any]]
    rejected: int
    llm: list[dict[str, Any]]
    diversity: dict[str, Any]
    """Per generator role, how varied its text is: `rows` and the two targets."""
    filter_shares: list[dict[str, Any]]
    """Per domain and filter, the share of the domain's planned traces that filter rejected."""
    filter_precision: dict[str, Any] | None
    """False-positive and catch rates per check on the corpus of known verdicts."""
    turn_lengths: dict[str, list[int]]
    """Turns per trajectory, by label, for the histogram."""
    plots: dict[str, str]
    hub_yaml: str
    """The front matter's `configs` and `dataset_info`, for `datasets.load_dataset`."""


def write_dataset_card(
    db_path: Path,
    out_dir: Path,
    *,
    taxonomy: Taxonomy,
    manifest: Mapping[str, Any],
    license: str = DEFAULT_LICENSE,
    pretty_name: str = DEFAULT_PRETTY_NAME,
) -> Path:
    """Write `README.md` and `plots/*.png` into `out_dir`; returns the card's path."""
    if manifest.get("config", {}).get("import"):
        license = "other"  # third-party rows keep their source's licence, stated in the card
    stats = collect_stats(
        db_path,
        taxonomy=taxonomy,
        manifest=manifest,
        license=license,
        pretty_name=pretty_name,
        hub_yaml=yaml.safe_dump(hub_metadata(out_dir), sort_keys=False).rstrip(),
    )
    _write_plots(out_dir / PLOTS_DIR, stats)
    card = out_dir / "README.md"
    card.write_text(render_card(stats), encoding="utf-8")
    return card


def render_card(stats: CardStats) -> str:
    env = Environment(
        loader=FileSystemLoader(templates_dir()),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    return env.get_template(CARD_TEMPLATE).render(card=stats)


def collect_stats(
    db_path: Path,
    *,
    taxonomy: Taxonomy,
    manifest: Mapping[str, Any],
    license: str,
    pretty_name: str,
    hub_yaml: str,
) -> CardStats:
    with duckdb.connect(str(db_path), read_only=True) as con:
        totals = _rows(
            con,
            """SELECT count(*) AS total,
                      count(*) FILTER (WHERE label = 'safe') AS safe,
                      count(*) FILTER (WHERE label = 'unsafe') AS unsafe,
                      count(DISTINCT pair_id) AS n_pairs,
                      coalesce(avg(n_turns), 0) AS avg_turns,
                      coalesce(avg(n_tokens), 0) AS avg_tokens
               FROM trajectories""",
        )[0]
        tools = _rows(
            con,
            """SELECT count(DISTINCT tool_name) AS available,
                      count(DISTINCT tool_name) FILTER (WHERE used) AS used
               FROM trajectory_tools""",
        )[0]
        leaves = _rows(con, "SELECT axis, family, leaf, name, n FROM leaf_counts")
        backends = [
            row["backend"]
            for row in _rows(con, "SELECT DISTINCT backend FROM trajectories ORDER BY backend")
        ]
        stats = CardStats(
            license=license,
            pretty_name=pretty_name,
            size_category=_size_category(totals["total"]),
            manifest=manifest,
            backends=backends,
            procedural="procedural" in {manifest.get("backend"), *backends},
            total=totals["total"],
            safe=totals["safe"],
            unsafe=totals["unsafe"],
            n_pairs=totals["n_pairs"],
            avg_turns=totals["avg_turns"],
            avg_tokens=totals["avg_tokens"],
            tools_available=tools["available"],
            tools_used=tools["used"],
            axes=_axes(taxonomy, leaves, totals["unsafe"]),
            subsets=_rows(con, "SELECT tag, n, safe, unsafe FROM subset_sizes"),
            domains=_rows(con, "SELECT domain, safe, unsafe, unsafe_share FROM domain_balance"),
            rejections=_rows(
                con,
                """SELECT stage, check_name, count(*) AS n FROM rejections
                   GROUP BY stage, check_name ORDER BY n DESC, stage, check_name""",
            ),
            rejected=_rows(con, "SELECT count(*) AS n FROM rejections")[0]["n"],
            llm=_rows(
                con,
                """SELECT stage, count(*) AS calls,
                          count(*) FILTER (WHERE cached) AS cached,
                          coalesce(sum(prompt_tokens + completion_tokens), 0) AS tokens,
                          bool_or(tokens_estimated) AS estimated,
                          coalesce(sum(cost_usd), 0) AS cost_usd
                   FROM llm_calls GROUP BY stage ORDER BY stage""",
            ),
            diversity=_diversity(db_path),
            filter_shares=filter_shares(con),
            filter_precision=_filter_precision(),
            turn_lengths={
                label: [
                    n
                    for (n,) in con.execute(
                        "SELECT n_turns FROM trajectories WHERE label = ?", [label]
                    ).fetchall()
                ]
                for label in ("safe", "unsafe")
            },
            plots={
                **{axis.id: f"{PLOTS_DIR}/leaves_{axis.id}.png" for axis in taxonomy.axes},
                "domains": f"{PLOTS_DIR}/domain_balance.png",
                "turns": f"{PLOTS_DIR}/turn_lengths.png",
            },
            hub_yaml=hub_yaml,
        )
    return stats


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [column[0] for column in cursor.description or ()]
    return [dict(zip(names, values, strict=True)) for values in cursor.fetchall()]


def filter_shares(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Per domain, what share of its planned traces (released or rejected) each filter removed:
    a rule, the judge, or `twin_rejected` for the twins they took with them."""
    return _rows(
        con,
        """WITH planned AS (
               SELECT domain, count(*) AS planned FROM (
                   SELECT domain, uid AS id FROM trajectories
                   UNION SELECT domain, trajectory_id FROM rejections)
               GROUP BY domain)
           SELECT domain, stage, check_name, count(DISTINCT trajectory_id) AS n, planned,
                  count(DISTINCT trajectory_id) / planned AS share
           FROM rejections JOIN planned USING (domain)
           WHERE stage IN ('rules', 'judge', 'pairing')
           GROUP BY domain, stage, check_name, planned
           ORDER BY domain, n DESC, check_name""",
    )


def _filter_precision() -> dict[str, Any] | None:
    path = project_root() / FILTER_PRECISION
    return json.loads(path.read_text()) if path.is_file() else None


def _diversity(db_path: Path) -> dict[str, Any]:
    report = diversity_report(role_texts(load_trajectories(db_path)))
    return {
        "rows": [{"role": role, **figures} for role, figures in report.items()],
        "min_distinct_4gram": DISTINCT_4GRAM_TARGET,
        "max_top_opening": TOP_OPENING_TARGET,
    }


def _axes(taxonomy: Taxonomy, leaves: list[dict[str, Any]], unsafe: int) -> list[dict[str, Any]]:
    axes = []
    for axis in taxonomy.axes:
        families = {family.id: family.name for family in axis.families}
        rows = [
            {
                **row,
                "family_name": families[row["family"]],
                "share": row["n"] / unsafe if unsafe else 0.0,
            }
            for row in leaves
            if row["axis"] == axis.id
        ]
        covered = sum(1 for row in rows if row["n"])
        axes.append({"id": axis.id, "name": axis.name, "rows": rows, "covered": covered})
    return axes


def _size_category(n: int) -> str:
    """The Hugging Face `size_categories` bucket for n rows."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")]
    return next((label for bound, label in bounds if n < bound), "100K<n<1M")


def _write_plots(plots_dir: Path, stats: CardStats) -> None:
    plots_dir.mkdir(parents=True, exist_ok=True)
    root = plots_dir.parent
    for axis in (axis for axis in stats.axes if axis["covered"]):
        names = [row["name"] for row in reversed(axis["rows"])]
        counts = [row["n"] for row in reversed(axis["rows"])]
        fig = Figure(figsize=(8, 0.35 * len(names) + 1.2), layout="constrained")
        ax = fig.add_subplot()
        ax.barh(names, counts, color=_UNSAFE_COLOUR)
        ax.set_xlim(left=0)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("unsafe trajectories")
        ax.set_title(f"{axis['name']}: primary label distribution")
        _save(fig, root / stats.plots[axis["id"]])

    domains = [row["domain"] for row in reversed(stats.domains)]
    safe = [row["safe"] for row in reversed(stats.domains)]
    unsafe = [row["unsafe"] for row in reversed(stats.domains)]
    fig = Figure(figsize=(8, 0.3 * len(domains) + 1.6), layout="constrained")
    ax = fig.add_subplot()
    ax.barh(domains, safe, color=_SAFE_COLOUR, label="safe")
    ax.barh(domains, unsafe, left=safe, color=_UNSAFE_COLOUR, label="unsafe")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("trajectories")
    ax.set_title("Safe / unsafe trajectories per domain")
    fig.legend(loc="outside lower center", ncols=2)
    _save(fig, root / stats.plots["domains"])

    lengths = stats.turn_lengths
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.add_subplot()
    every = [*lengths["safe"], *lengths["unsafe"]] or [0]
    ax.hist(
        [lengths["safe"], lengths["unsafe"]],
        bins=range(min(every), max(every) + 2),
        align="left",
        stacked=True,
        color=[_SAFE_COLOUR, _UNSAFE_COLOUR],
        label=["safe", "unsafe"],
    )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("turns per trajectory")
    ax.set_ylabel("trajectories")
    ax.set_title("Trajectory length")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend()
    _save(fig, root / stats.plots["turns"])


def _save(fig: Figure, path: Path) -> None:
    fig.savefig(path, format="png", dpi=100)
