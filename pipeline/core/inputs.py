"""Load and cross-check the versioned inputs (taxonomy, tool pool, seeds, templates) in one
place, so `atbench validate` and the start of a build find what a build would trip on later."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from pipeline.core.errors import InputError
from pipeline.core.judge import PLAUSIBILITY_JUDGE
from pipeline.core.llm.templates import SYSTEM_TEMPLATE, check_templates
from pipeline.core.paths import seeds_dir, taxonomy_dir, templates_dir, tool_pool_dir
from pipeline.core.release.card import CARD_TEMPLATE, CardStats
from pipeline.core.roles import ROLES
from pipeline.core.seeds import Seed, check_seed_references, load_seed, seed_paths
from pipeline.core.taxonomy import Taxonomy, load_taxonomy
from pipeline.core.tools import ToolPool, load_tool_pool


@dataclass(frozen=True)
class Inputs:
    taxonomy: Taxonomy
    pool: ToolPool
    seeds: dict[str, Seed]


def load_inputs(
    taxonomy_path: Path | None = None,
    pool_dir: Path | None = None,
    seed_dir: Path | None = None,
    template_dir: Path | None = None,
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
    check_templates(template_dir or templates_dir(), template_variables())
    return Inputs(taxonomy=taxonomy, pool=pool, seeds=seeds)


def template_variables() -> dict[str, set[str]]:
    """What each template is rendered with: a role's input fields (the system message sees
    any role's), and the dataset card's `card` with its attributes."""
    roles = [*ROLES.values(), PLAUSIBILITY_JUDGE]
    fields = {role.template: set(role.input_type.model_fields) for role in roles}
    card = {f"card.{field.name}" for field in dataclasses.fields(CardStats)}
    return {
        **fields,
        SYSTEM_TEMPLATE: set().union(*fields.values()),
        CARD_TEMPLATE: {"card", *card},
    }
