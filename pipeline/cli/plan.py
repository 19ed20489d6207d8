"""`atbench plan`: what a build would plan, before anything is generated.

Shows how many pairs land on each taxonomy leaf next to its fair share (pairs / leaves of the
axis), and which leaves some domains cannot produce (the planner records why), so a size, seed
or domain choice can be checked in a second instead of after a build.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table

from pipeline.cli.console import plain_console
from pipeline.core.build.options import check_size, parse_domains
from pipeline.core.generation.planner import coverage, plan_release
from pipeline.core.generation.tool_choice import underivable_tools
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.model.labels import AXES
from pipeline.core.model.spec import ReleaseSpec

_FEW_DOMAINS = 4
"""A leaf at most this many domains can produce has its domains named in the table."""


def plan_summary(size: int, seed: int, domains: str = "") -> dict[str, Any]:
    """The plan's counts, per-leaf coverage against fair share, and recorded incompatibilities."""
    check_size(size)
    selected = parse_domains(domains, domain_ids())
    inputs = load_inputs()
    spec = ReleaseSpec(size=size, seed=seed, domains=tuple(sorted(selected)))
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    counts = coverage(plan)
    blueprints = [bp for bps in plan.blueprints.values() for bp in bps]
    planned_pairs = sum(bp.kind == "pair" for bp in blueprints)  # over-planned for selection
    axes: dict[str, Any] = {}
    for axis in AXES:
        leaves = inputs.taxonomy.leaf_ids(axis)
        fair = planned_pairs / len(leaves)
        axes[axis] = {
            "fair_share": round(fair, 3),
            "leaves": {leaf: counts[axis][leaf] for leaf in leaves},
            "max_deviation": round(
                max(abs(counts[axis][leaf] - fair) / fair for leaf in leaves), 3
            ),
        }
    return {
        "spec_key": spec.key(),
        "size": spec.size,
        "seed": spec.seed,
        "domains": list(spec.domains),
        "pairs": planned_pairs,
        "release_pairs": spec.n_pairs,
        "benign": sum(bp.kind == "benign" for bp in blueprints),
        "long_context": sum(bp.long_context for bp in blueprints),
        "long_html": sum(bp.long_html for bp in blueprints),
        "axes": axes,
        "incompatibilities": [i.model_dump() for i in plan.incompatibilities],
        "underivable_tools": {
            domain: underivable_tools(inputs.pool.for_domain(domain)) for domain in spec.domains
        },
    }


def plan(
    size: Annotated[
        int, typer.Option(help="Trajectories in the release (pairs x 2 plus benign).")
    ] = 1000,
    seed: Annotated[int, typer.Option(help="Release seed; fixes every random choice.")] = 0,
    domains: Annotated[
        str, typer.Option(help="Comma-separated domains to plan; default: every seed.")
    ] = "",
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object (counts, axes with per-leaf counts and fair share, "
            "incompatibilities) instead of tables.",
        ),
    ] = False,
) -> None:
    """Plan a release without building it: leaf counts and incompatibilities."""
    summary = plan_summary(size, seed, domains)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    console = plain_console()
    console.print(
        f"plan {summary['spec_key']}: {summary['pairs']} pairs (the release selects "
        f"{summary['release_pairs']} after filtering) and {summary['benign']} benign "
        f"traces over {len(summary['domains'])} domains; {summary['long_context']} "
        f"long-context, {summary['long_html']} long-HTML pairs",
        highlight=False,
        soft_wrap=True,
    )
    unknown = {n for names in summary["underivable_tools"].values() for n in names}
    if unknown:
        console.print(
            f"{len(unknown)} imported tools of these domains have semantics that cannot be "
            "derived: never offered or called (names and reasons in --json)",
            highlight=False,
            soft_wrap=True,
        )
    for axis, figures in summary["axes"].items():
        console.print(_axis_table(axis, figures))
    for table in _incompatibility_tables(summary):
        console.print(table)


def _axis_table(axis: str, figures: dict[str, Any]) -> Table:
    fair = figures["fair_share"]
    table = Table(
        "leaf",
        "pairs",
        "vs fair share",
        title=f"{axis}: fair share {fair:g} pairs per leaf",
        box=box.SIMPLE_HEAD,
    )
    for column in table.columns[1:]:
        column.justify = "right"
    for leaf, n in figures["leaves"].items():
        table.add_row(leaf, str(n), f"{100 * (n - fair) / fair:+.0f} %" if fair else "-")
    return table


def _incompatibility_tables(summary: dict[str, Any]) -> list[Table]:
    """Per axis, the leaves some domains cannot produce: how many domains can, and which when
    they are few (those few carry the whole quota of the leaf)."""
    unable: dict[tuple[str, str], list[str]] = {}
    for item in summary["incompatibilities"]:
        unable.setdefault((item["axis"], item["leaf"]), []).append(item["domain"])
    tables = []
    for axis, figures in summary["axes"].items():
        leaves = [leaf for leaf in figures["leaves"] if (axis, leaf) in unable]
        if not leaves:
            continue
        example = next(i["reason"] for i in summary["incompatibilities"] if i["axis"] == axis)
        table = Table(
            "leaf",
            "able",
            "unable",
            "only able",
            title=f"{axis}: leaves some domains cannot produce",
            caption=f"why, e.g.: {example} (all reasons in --json)",
            box=box.SIMPLE_HEAD,
        )
        table.columns[0].no_wrap = True
        for column in table.columns[1:3]:
            column.justify = "right"
        for leaf in leaves:
            able = [d for d in summary["domains"] if d not in unable[axis, leaf]]
            few = (", ".join(able) or "none") if len(able) <= _FEW_DOMAINS else ""
            table.add_row(leaf, str(len(able)), str(len(unable[axis, leaf])), few)
        tables.append(table)
    return tables
