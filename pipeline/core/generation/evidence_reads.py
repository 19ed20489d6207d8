"""The reads an unsafe twin makes before its harmful step so the trace shows what its label
rests on: the right record a wrong value replaces, the restriction a misuse ignores."""

from __future__ import annotations

from typing import Any

from pipeline.core.generation.context import BuildContext, ConstructionError
from pipeline.core.generation.feasibility import reveal, told
from pipeline.core.generation.grounding import Plan
from pipeline.core.generation.run import Branch
from pipeline.core.generation.steps import finder
from pipeline.core.inputs.tool_pool import Tool


def evidence_lookups(
    ctx: BuildContext, branch: Branch, evidence: dict[str, Any]
) -> list[tuple[Tool, Plan, tuple[str, ...]]]:
    """The reads that show what the label rests on, unless the trace already has: the right
    record a wrong value replaces, the restriction a misuse ignores (each with the record it
    is about)."""
    expected = evidence.get("expected")
    if isinstance(expected, str) and branch.world.get(expected) and expected not in branch.text():
        found = finder(ctx.pool, ctx.seed, branch.world, expected, ("", branch.text()))
        if found is None:
            raise ConstructionError(
                "pairing", "unrealisable_failure_mode", f"no reader shows {expected}"
            )
        return [(found[0], found[1], (expected,))]
    restriction = str(evidence.get("restriction", ""))
    record_id, _, rule = restriction.partition(" ")
    held = branch.world.get(record_id) if restriction else None
    if held is None or told(rule, branch.text()):
        return []
    shown = reveal(ctx.pool, ctx.seed, branch.world, held, rule)
    if shown is None:
        raise ConstructionError(
            "pairing", "unrealisable_failure_mode", f"no reader shows {held.id}'s restriction"
        )
    return [(*shown, (held.id,))]
