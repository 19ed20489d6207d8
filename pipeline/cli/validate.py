"""`atbench validate`: check the taxonomy, tool pool and seeds before anything is built."""

from __future__ import annotations

from pipeline.cli.console import plain_console
from pipeline.core.inputs import load_inputs


def validate() -> None:
    """Check taxonomy, seeds and tool pool; exit non-zero naming file, record and field."""
    inputs = load_inputs()
    leaves = sum(len(axis.leaves) for axis in inputs.taxonomy.axes)
    plain_console().print(
        f"ok: taxonomy ({leaves} leaves), {len(inputs.pool)} tools, {len(inputs.seeds)} seeds"
    )
