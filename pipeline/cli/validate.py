"""`atbench validate`: check the taxonomy, tool pool and seeds before anything is built."""

from __future__ import annotations

from rich.console import Console

from pipeline.core.inputs.loading import load_inputs


def validate() -> None:
    """Check taxonomy, seeds and tool pool; exit non-zero naming file, record and field."""
    inputs = load_inputs()
    leaves = sum(len(axis.leaves) for axis in inputs.taxonomy.axes)
    Console().print(
        f"ok: taxonomy ({leaves} leaves), {len(inputs.pool)} tools, {len(inputs.seeds)} seeds"
    )
