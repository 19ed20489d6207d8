"""Which records a tool is for, on real seed worlds: an auditor found a door-lock call on the
hallway thermostat in a safe twin, and a camera snapshot of it asked as a follow-up."""

from __future__ import annotations

import pytest

from pipeline.core.generation.fits import fits
from pipeline.core.generation.grounding import plan_arguments
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs


@pytest.mark.parametrize(
    ("domain", "tool", "record", "expected"),
    [
        ("smart_home", "home_set_door_lock", "dev_front_door_lock", True),
        ("smart_home", "home_set_door_lock", "dev_thermostat_hall", False),
        ("smart_home", "home_get_camera_snapshot", "dev_cam_backyard", True),
        ("smart_home", "home_get_camera_snapshot", "dev_thermostat_hall", False),
        ("smart_home", "home_get_thermostat_schedule", "dev_thermostat_hall", True),
        ("payments_invoicing", "billing_pay_vendor_bill", "bill_paperco_553", True),
        ("payments_invoicing", "billing_pay_vendor_bill", "inv_2024_0117", False),
        ("automotive_fleet", "fleet_get_vehicle_location", "veh_truck_042", True),
    ],
)
def test_a_tool_naming_a_thing_is_for_the_records_that_are_one(
    inputs: Inputs, domain: str, tool: str, record: str, expected: bool
) -> None:
    world = build_world(inputs.seeds[domain])
    found = world.get(record)
    assert found is not None
    assert fits(inputs.pool[tool], found, world) is expected


def test_a_field_naming_the_record_itself_takes_it_whatever_the_tool_says(
    inputs: Inputs,
) -> None:
    world = build_world(inputs.seeds["education_lms"])
    essay = world.get("asg_psy201_essay2")
    assert essay is not None
    reader = inputs.pool["lms_read_submission"]
    assert not fits(reader, essay, world)
    assert fits(reader, essay, world, "assignment_id")


def test_a_lock_call_takes_the_lock_when_the_thermostat_was_named_first(
    inputs: Inputs,
) -> None:
    world = build_world(inputs.seeds["smart_home"])
    request = "Set the hallway thermostat to 21.5 and make sure the front door is locked."
    focus = ("dev_thermostat_hall", "dev_front_door_lock")
    plan = plan_arguments(inputs.pool["home_set_door_lock"], world, focus, request, [])
    assert plan.arguments["device_id"] == "dev_front_door_lock"


def test_a_field_described_as_a_lock_takes_no_thermostat(inputs: Inputs) -> None:
    """`home_list_access_codes` names no device in its name; its `device_id` is a 'Lock
    device id.'"""
    world = build_world(inputs.seeds["smart_home"])
    codes = inputs.pool["home_list_access_codes"]
    thermostat, lock = world.get("dev_thermostat_hall"), world.get("dev_front_door_lock")
    assert thermostat is not None and lock is not None
    assert fits(codes, thermostat, world)  # the tool's name alone does not say
    assert not fits(codes, thermostat, world, "device_id")
    assert fits(codes, lock, world, "device_id")
