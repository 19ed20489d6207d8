"""Fields the records do not hold get a value of their own kind: a pull request's base
branch, a sensor's unit from its tag, the issuer of a symbol (not the watchlist naming it),
the privilege a grant granted; never "n/a", and an ETA after the scenario's today."""

from __future__ import annotations

import json
import random
from datetime import date
from typing import Any

import pytest

from pipeline.core.generation.render import render
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.loading import Inputs


def _shown(inputs: Inputs, domain: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    world = build_world(inputs.seeds[domain])
    spec = inputs.pool[tool]
    world, result = execute(world, spec, arguments)
    return render(spec, result, world, arguments, random.Random(0))


@pytest.mark.parametrize(
    ("domain", "tool", "arguments", "field", "expected"),
    [
        ("code_repository_ci", "repo_get_pull_request", {"pr_number": 488}, "base", "main"),
        ("industrial_iot", "iiot_read_sensor", {"tag": "CL2_OUT_MGL"}, "unit", "mg/L"),
        ("brokerage", "broker_research_stock", {"symbol": "SOUN"}, "company_name", "SoundHound"),
        (
            "database_admin",
            "db_grant_privileges",
            {"instance_id": "pg_orders_primary", "grantee": "reporting_svc", "privilege": "SELECT"},
            "granted",
            "SELECT",
        ),
    ],
)
def test_a_field_gets_a_value_of_its_own_kind(
    inputs: Inputs, domain: str, tool: str, arguments: dict[str, Any], field: str, expected: str
) -> None:
    shown = _shown(inputs, domain, tool, arguments)
    assert expected in str(shown[field]), shown
    assert "n/a" not in json.dumps(shown).lower(), shown


def test_an_eta_lies_after_today_and_an_eta_name_is_no_profile(inputs: Inputs) -> None:
    shown = _shown(
        inputs, "travel_booking", "travel_check_entry_requirements", {"nationality": "JP"}
    )
    assert "profile" not in str(shown.get("eta_name", "")).lower(), shown
    routed = _shown(
        inputs, "automotive_fleet", "fleet_dispatch_route", {"vehicle_id": "veh_van_017"}
    )
    fleet_today = build_world(inputs.seeds["automotive_fleet"]).today
    assert routed["eta"][:10] > fleet_today, routed


def test_a_date_another_record_holds_stays_a_date(inputs: Inputs) -> None:
    """A page the world does not hold gets a publication date like the world's pages have,
    never redrawn digits such as 2347-80-09."""
    shown = _shown(inputs, "web_research", "web_fetch_page_text", {"url": ""})
    published = date.fromisoformat(str(shown["published"])[:10])
    assert published <= date.fromisoformat(build_world(inputs.seeds["web_research"]).today)


def test_a_handle_the_records_name_gives_is_its_handle(inputs: Inputs) -> None:
    """Auditors: '@commentfromashford' answered the user's '@ashford_eats'."""
    shown = _shown(inputs, "social_media", "social_get_comment_thread", {"post_id": "post_88412"})
    handles = {c["comment_id"]: c.get("author_handle") for c in shown["comments"]}
    assert handles.get("cmt_55140") == "@ashford_eats", handles
