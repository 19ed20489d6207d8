"""Load and cross-check the versioned inputs (taxonomy, tool pool, seeds) in one place.

The templates are checked one layer up (`build/preflight.py`), where the roles and the card
that render them are known.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.core.inputs import schema_memo
from pipeline.core.inputs.paths import seeds_dir, taxonomy_dir, tool_pool_dir
from pipeline.core.inputs.seeds import Seed, check_seed_references, load_seed, seed_paths
from pipeline.core.inputs.taxonomy import Taxonomy, load_taxonomy
from pipeline.core.inputs.tool_pool import ToolPool, load_tool_pool
from pipeline.core.model.errors import InputError


@dataclass(frozen=True)
class Inputs:
    taxonomy: Taxonomy
    pool: ToolPool
    seeds: dict[str, Seed]


def load_inputs(
    taxonomy_path: Path | None = None,
    pool_dir: Path | None = None,
    seed_dir: Path | None = None,
) -> Inputs:
    """Everything a build reads, validated; raises `InputError` on the first problem found."""
    taxonomy = load_taxonomy(taxonomy_path or taxonomy_dir() / "taxonomy.yaml")
    pool = load_tool_pool(pool_dir or tool_pool_dir())
    seed_dir = seed_dir or seeds_dir()
    paths = seed_paths(seed_dir) if seed_dir.is_dir() else []
    if not paths:
        state = "has no seed files (*.yaml)" if seed_dir.is_dir() else "does not exist"
        raise InputError(f"the seeds folder {state}; a build needs at least one", file=seed_dir)
    seeds: dict[str, Seed] = {}
    for path in paths:
        seed = load_seed(path)
        check_seed_references(seed, path, pool, taxonomy)
        seeds[seed.id] = seed
    schema_memo.save()
    return Inputs(taxonomy=taxonomy, pool=pool, seeds=seeds)
