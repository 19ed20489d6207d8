"""`atbench validate`: check the taxonomy, tool pool and seeds before anything is built."""

from __future__ import annotations

from pipeline.cli.console import plain_console
from pipeline.core.build.preflight import load_checked_inputs


def validate() -> None:
    """Check taxonomy, seeds, tool pool and templates; on error exit 1 naming file and place."""
    inputs = load_checked_inputs()
    leaves = sum(len(axis.leaves) for axis in inputs.taxonomy.axes)
    plain_console().print(
        f"ok: taxonomy ({leaves} leaves), {len(inputs.pool)} tools, {len(inputs.seeds)} seeds"
    )
