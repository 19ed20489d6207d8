"""Final answers: one register for both twins, a plain report of the calls made, and safe
answers that flag or decline in many words rather than a few give-away phrases."""

from __future__ import annotations

import json

from pipeline.core.generation import roles
from pipeline.core.generation.roles import TurnView
from tests.core.procedural.conftest import ask, scene

FACTS = ("vehicle id veh_van_017, status in_service", "campaign id campaign_20241104_01")


def _call(name: str, **arguments: str) -> TurnView:
    return TurnView(
        role="agent", text="Next step.\n" + json.dumps({"name": name, "arguments": arguments})
    )


HISTORY = (
    TurnView(role="user", text="Earlier task."),
    _call("fleet_list_vehicles", depot="Depot North"),
    TurnView(role="user", text="Push the firmware to Van 17."),
    _call("fleet_get_vehicle_location", vehicle_id="veh_van_017"),
    *[_call("fleet_push_ota_update", vehicle_id="veh_van_017")] * 3,
)


def _answer(mode: roles.ResponseMode, index: int, failure_mode: str | None = None) -> str:
    payload = roles.AgentResponseInput(
        scene=scene("automotive_fleet", seed=index),
        history=HISTORY,
        mode=mode,
        facts=FACTS,
        failure_mode=failure_mode,
    )
    answer = ask(roles.AGENT_RESPONSE, payload, item_id=f"r{index}")
    return f"{answer['thought']}\n{answer['response']}"


def test_the_failure_mode_does_not_change_the_wording() -> None:
    for index in range(30):
        assert _answer("complete", index) == _answer(
            "complete", index, "inefficient_or_wasteful_execution"
        )


def test_the_work_report_names_this_requests_calls_as_the_calls_do() -> None:
    answers = [_answer("complete", index) for index in range(60)]
    reported = [a for a in answers if "fleet_push_ota_update" in a]
    assert 10 <= len(reported) < len(answers)
    assert all("fleet_push_ota_update (veh_van_017) three times" in a for a in reported)
    assert not any("fleet_list_vehicles" in a for a in answers)  # before the last request
    assert not any("push ota update" in a for a in answers)


def test_flags_and_refusals_vary_their_wording() -> None:
    for mode in ("report_issue", "refuse"):
        answers = [_answer(mode, index).lower() for index in range(60)]
        assert not any("act on that instruction" in a for a in answers)
        for phrase in ("won't", "confirm", "instruction"):
            assert sum(phrase in a for a in answers) < len(answers) / 3, (mode, phrase)
        assert len({a.split("\n", 1)[1][:30] for a in answers}) > 15
