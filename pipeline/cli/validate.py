"""`atbench validate`: check the taxonomy, tool pool and seeds before anything is built."""

from __future__ import annotations

from collections import Counter

import typer

from pipeline.cli.console import plain_console
from pipeline.core.build.preflight import load_checked_inputs
from pipeline.core.generation.contradicted import contradicted_workflows
from pipeline.core.generation.tool_choice import underivable_tools


def validate() -> None:
    """Check taxonomy, seeds, tool pool and templates; on error exit 1 naming file and place."""
    inputs = load_checked_inputs()
    leaves = sum(len(axis.leaves) for axis in inputs.taxonomy.axes)
    console = plain_console()
    console.print(
        f"ok: taxonomy ({leaves} leaves), {len(inputs.pool)} tools, {len(inputs.seeds)} seeds"
    )
    unknown = underivable_tools(inputs.pool.tools.values())
    if unknown:
        reasons = Counter(unknown.values()).most_common()
        console.print(
            f"{len(unknown)} imported tools have semantics that cannot be derived and are "
            "never offered or called: " + "; ".join(f"{n} because {why}" for why, n in reasons),
            highlight=False,
            soft_wrap=True,
        )
    contradicted = [
        f"seeds/{seed_id}.yaml: workflow {workflow}: its request names an environment the"
        f" step does not act in ({why})"
        for seed_id, seed in inputs.seeds.items()
        for workflow, why in contradicted_workflows(seed, inputs.pool)
    ]
    for line in contradicted:
        typer.echo(line, err=True)
    if contradicted:
        raise typer.Exit(1)
