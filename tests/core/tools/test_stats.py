"""Pool statistics and the per-domain plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.tools.stats import plot_tools_per_domain, tool_stats

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def tool(name: str, domains: list[str], side_effect: str, source: str) -> Tool:
    data: dict[str, Any] = {
        "name": name,
        "description": f"The {name} tool of the test pool.",
        "parameters": {"type": "object", "properties": {}, "required": []},
        "returns": {"type": "object"},
        "domains": domains,
        "side_effect": side_effect,
        "source": source,
    }
    return Tool.model_validate(data)


TOOLS = [
    tool("bank_get_balance", ["personal_banking"], "none", "curated"),
    tool("bank_transfer", ["personal_banking", "payments_invoicing"], "irreversible", "curated"),
    tool("fx_get_rate", ["brokerage"], "none", "toolbench"),
    tool("inv_send", ["payments_invoicing"], "reversible", "openai"),
]


def test_counts_by_domain_source_and_side_effect() -> None:
    stats = tool_stats(TOOLS)

    assert stats.total == 4
    assert stats.by_domain == {"brokerage": 1, "payments_invoicing": 2, "personal_banking": 2}
    assert list(stats.by_domain) == sorted(stats.by_domain)
    assert stats.by_source == {"curated": 2, "openai": 1, "toolbench": 1}
    assert stats.by_side_effect == {"none": 2, "reversible": 1, "irreversible": 1}
    assert stats.by_domain_side_effect["payments_invoicing"] == {
        "none": 0,
        "reversible": 1,
        "irreversible": 1,
    }


def test_equal_pools_give_identical_json_whatever_the_order() -> None:
    assert tool_stats(TOOLS).model_dump_json() == tool_stats(TOOLS[::-1]).model_dump_json()


def test_empty_pool() -> None:
    stats = tool_stats([])
    assert (stats.total, stats.by_domain, stats.by_source) == (0, {}, {})
    assert stats.by_side_effect == {"none": 0, "reversible": 0, "irreversible": 0}


def test_plot_is_a_png_written_without_leftovers(tmp_path: Path) -> None:
    target = tmp_path / "plots" / "tools.png"
    plot_tools_per_domain(tool_stats(TOOLS), target)
    assert target.read_bytes().startswith(PNG_MAGIC)
    assert [p.name for p in target.parent.iterdir()] == ["tools.png"]

    empty = tmp_path / "empty.png"
    plot_tools_per_domain(tool_stats([]), empty)
    assert empty.read_bytes().startswith(PNG_MAGIC)
