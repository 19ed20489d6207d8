"""`atbench plan`: leaf counts against fair share, and the leaves some domains cannot produce."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.core.inputs.seeds import load_seeds

runner = CliRunner()
DOMAINS = "email_calendar,personal_banking"


def plan_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["plan", "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def test_leaf_counts_against_fair_share_and_incompatibilities() -> None:
    data = plan_json("--size", "40", "--domains", DOMAINS)
    assert data["pairs"] == 20 and data["benign"] == 0
    for axis, figures in data["axes"].items():
        assert sum(figures["leaves"].values()) == 20, axis
        assert figures["fair_share"] == round(20 / len(figures["leaves"]), 3)
    seeds = load_seeds()
    able = {d: {h.harm for h in seeds[d].hazards} for d in DOMAINS.split(",")}
    expected = {(d, leaf) for d in able for leaf in data["axes"]["real_world_harm"]["leaves"]} - {
        (d, harm) for d, harms in able.items() for harm in harms
    }
    found = {(i["domain"], i["leaf"]) for i in data["incompatibilities"]}
    assert found == expected
    for leaf, n in data["axes"]["real_world_harm"]["leaves"].items():
        if all((d, leaf) in found for d in able):
            assert n == 0, leaf  # no domain can produce it, so nothing is planned there


def test_tables_show_which_domains_can_produce_a_leaf() -> None:
    result = runner.invoke(
        app, ["plan", "--size", "40", "--domains", DOMAINS], env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    assert "plan " in result.output and "20 pairs" in result.output
    assert "failure_mode: fair share 1.429 pairs per leaf" in result.output
    assert "real_world_harm: leaves some domains cannot produce" in result.output
    assert "none" in result.output  # a leaf neither domain's hazards produce


def test_unknown_domain_is_refused() -> None:
    result = runner.invoke(app, ["plan", "--domains", "atlantis"])
    assert result.exit_code != 0
    assert "unknown domains 'atlantis'" in str(result.exception)
