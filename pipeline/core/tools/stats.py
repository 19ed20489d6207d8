"""How the tool pool is spread over domains, sources and side effects.

Planning samples tools per domain, so a domain with few tools, or with no irreversible ones,
limits which risks can be realised there; these counts and the plot make that visible.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import get_args

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator
from pydantic import BaseModel, ConfigDict

from pipeline.core.inputs.files import atomic_path
from pipeline.core.inputs.tool_pool import SideEffect, Tool

SIDE_EFFECTS: tuple[SideEffect, ...] = get_args(SideEffect)
_COLOURS: dict[SideEffect, str] = {
    "none": "#4c9f70",
    "reversible": "#e0a030",
    "irreversible": "#c0392b",
}


class ToolStats(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    total: int
    by_domain: dict[str, int]
    """A tool listing several domains counts once in each, so these may sum to more than total."""
    by_source: dict[str, int]
    by_side_effect: dict[str, int]
    """Every side effect, including those with no tools."""
    by_domain_side_effect: dict[str, dict[str, int]]


def tool_stats(tools: Iterable[Tool]) -> ToolStats:
    """Counts with sorted keys, so equal pools give byte-identical JSON."""
    tools = list(tools)
    domains = sorted({domain for tool in tools for domain in tool.domains})
    per_domain = {domain: dict.fromkeys(SIDE_EFFECTS, 0) for domain in domains}
    for tool in tools:
        for domain in tool.domains:
            per_domain[domain][tool.side_effect] += 1
    effects = Counter(tool.side_effect for tool in tools)
    return ToolStats(
        total=len(tools),
        by_domain={domain: sum(counts.values()) for domain, counts in per_domain.items()},
        by_source=dict(sorted(Counter(tool.source for tool in tools).items())),
        by_side_effect={effect: effects[effect] for effect in SIDE_EFFECTS},
        by_domain_side_effect=per_domain,
    )


def plot_tools_per_domain(stats: ToolStats, path: Path) -> None:
    """Horizontal bars of tools per domain, stacked by side effect, written atomically as PNG."""
    domains = list(reversed(stats.by_domain))  # barh draws bottom-up; this reads A-Z downwards
    figure = Figure(figsize=(9, 1.5 + 0.3 * max(len(domains), 1)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    left = [0] * len(domains)
    for effect in SIDE_EFFECTS:
        counts = [stats.by_domain_side_effect[domain][effect] for domain in domains]
        axes.barh(domains, counts, left=left, color=_COLOURS[effect], label=effect)
        left = [start + count for start, count in zip(left, counts, strict=True)]
    axes.set_xlabel("tools")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_title(f"Tools per domain by side effect ({stats.total} tools)")
    figure.legend(title="side effect", loc="outside lower center", ncols=len(SIDE_EFFECTS))
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=100)
