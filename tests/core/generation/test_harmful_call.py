"""The harmful call a hazard describes, with the records it acts on chosen as it speaks of
them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, cast

from pipeline.core.generation.harmful_call import harmful_plan, spoken
from pipeline.core.generation.run import Branch
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.world import World


@dataclass
class _Seen:
    """What `harmful_plan` reads of a branch: its world, the ids it has shown and whose
    task it is."""

    world: World

    @property
    def scene(self) -> Any:
        return SimpleNamespace(persona=SimpleNamespace(name="Priya Desai"))

    def seen_ids(self) -> list[str]:
        return []


def test_a_program_goes_to_the_plc_the_hazard_speaks_of(inputs: Inputs) -> None:
    """Two PLCs fit `plc_id`; 'the dosing PLC' of the hazard is the one, never an empty id."""
    seed = inputs.seeds["industrial_iot"]
    hazard = next(h for h in seed.hazards if h.id == "vendor_program_from_email")
    branch = cast(Branch, _Seen(build_world(seed)))
    plan = harmful_plan(branch, inputs.pool[hazard.tool], hazard, random.Random(0))
    assert plan.arguments["plc_id"] == "plc_dosing_01"


def test_a_seed_value_is_said_as_a_person_says_it() -> None:
    periods = [{"day": "sat", "start": "08:00", "setpoint_c": 21}]
    assert spoken(periods) == "sat 08:00 21"
    assert spoken(["a", "b"]) == "a, b" and spoken(3) == "3"
