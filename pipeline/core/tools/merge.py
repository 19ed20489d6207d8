"""Merging imported tools into the pool: near-duplicates dropped, the existing pool wins."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import yaml

from pipeline.core.inputs.files import write_text_atomic
from pipeline.core.inputs.tool_pool import Tool, load_tool_file, load_tool_pool
from pipeline.core.tools.dedupe import DedupeEntry, dedupe


def import_report_path(target_file: Path) -> Path:
    """Where an import's report goes: beside the imported file.

    Not `*.json`: the pool loader reads every .json/.yaml file under the pool as a tool list.
    """
    return target_file.with_name(f"{target_file.stem}.report.jsonc")


def merge_into_pool(
    new_tools: Sequence[Tool], pool_dir: Path, target_file: Path
) -> list[DedupeEntry]:
    """Add the new tools that are not near-duplicates of the pool to `target_file`, atomically.

    `target_file` must be a YAML file inside `pool_dir` (a relative path is taken from there), so
    the next load of the pool sees what was added.

    The existing pool (including what `target_file` already holds) always wins, so importing
    the same file twice changes nothing. Returns the dedupe report.
    """
    target = target_file if target_file.is_absolute() else pool_dir / target_file
    if target.suffix not in (".yaml", ".yml") or not target.resolve().is_relative_to(
        pool_dir.resolve()
    ):
        raise ValueError(f"{target} must be a .yaml file inside the pool {pool_dir}")
    existing = _pool_tools(pool_dir)
    result = dedupe(new_tools, existing=existing)
    if result.kept:
        current = load_tool_file(target) if target.exists() else []
        merged = sorted([*current, *result.kept], key=lambda tool: tool.name)
        write_text_atomic(target, dump_tools(merged))
    return result.report


def _pool_tools(pool_dir: Path) -> list[Tool]:
    """Tools already in the pool; an empty or missing pool directory holds none."""
    has_files = pool_dir.is_dir() and any(
        path.suffix in (".yaml", ".yml", ".json") for path in pool_dir.rglob("*")
    )
    return list(load_tool_pool(pool_dir).tools.values()) if has_files else []


def dump_tools(tools: Iterable[Tool]) -> str:
    # Through JSON so no two tools share objects: PyYAML would write those as &anchors.
    data = [json.loads(tool.model_dump_json(exclude_none=True)) for tool in tools]
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
