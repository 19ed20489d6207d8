"""Everything a build reads, checked before it starts: inputs, and the templates against the
variables each is rendered with, so `atbench validate` finds what a build would trip on."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from pipeline.core.filtering.judge import PLAUSIBILITY_JUDGE
from pipeline.core.generation.roles import ROLES
from pipeline.core.inputs.loading import Inputs, load_inputs
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.llm.templates import SYSTEM_TEMPLATE, check_templates
from pipeline.core.release.card import CARD_TEMPLATE, CardStats


def load_checked_inputs(
    taxonomy_path: Path | None = None,
    pool_dir: Path | None = None,
    seed_dir: Path | None = None,
    template_dir: Path | None = None,
) -> Inputs:
    """`load_inputs`, then every template compiled and its variables checked."""
    inputs = load_inputs(taxonomy_path, pool_dir, seed_dir)
    check_templates(template_dir or templates_dir(), template_variables())
    return inputs


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
