"""Which records a listing can show: those of the kind its items describe. A news search for
NVDA finds the NVDA earnings item and the open NVDA stop order; only the first is news."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.core.generation.semantics import list_field
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import Record

_EVIDENCE = 2
"""Item fields a family must hold before the families holding none are dropped."""


def of_listed_kind(tool: Tool, records: Sequence[Record]) -> list[Record]:
    """`records` without the families (records sharing an id prefix) that hold none of the
    listed item's own fields, when another family holds at least two of them."""
    field = list_field(tool)
    if field is None or not records:
        return list(records)
    items = (tool.returns.get("properties") or {})[field].get("items") or {}
    wanted = set(items.get("properties") or {}) - {"id", "name"}
    fit: dict[str, int] = {}
    for record in records:
        family = record.id.split("_")[0]
        fit[family] = max(fit.get(family, 0), len(wanted & set(record.attributes)))
    if max(fit.values()) < _EVIDENCE:
        return list(records)
    return [r for r in records if fit[r.id.split("_")[0]] > 0]
