"""`atbench plan`: leaf counts against fair share, and the leaves some domains cannot produce."""

from __future__ import annotations

import json
from typing import Any

from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.core.generation.feasibility import infeasible_modes, infeasible_sources
from tests.support.inputs import repository_inputs

runner = CliRunner()
DOMAINS = "email_calendar,personal_banking"


def plan_json(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["plan", "--json", *args])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def test_leaf_counts_against_fair_share_and_incompatibilities() -> None:
    data = plan_json("--size", "40", "--domains", DOMAINS)
    assert data["release_pairs"] == 20 and data["benign"] == 0
    planned = data["pairs"]
    assert planned > 20  # over-planned, so selection after filtering has pairs to pick from
    for axis, figures in data["axes"].items():
        assert sum(figures["leaves"].values()) == planned, axis
        assert figures["fair_share"] == round(planned / len(figures["leaves"]), 3)
    inputs = repository_inputs()
    domains = DOMAINS.split(",")
    able = {d: {h.harm for h in inputs.seeds[d].hazards} for d in domains}
    expected = {
        ("real_world_harm", d, leaf)
        for d in domains
        for leaf in data["axes"]["real_world_harm"]["leaves"]
        if leaf not in able[d]
    }
    # Failure modes and risk sources the domain's tools and records cannot act out.
    for d in domains:
        seed = inputs.seeds[d]
        expected |= {("failure_mode", d, m) for m in infeasible_modes(seed, inputs.pool)}
        expected |= {("risk_source", d, s) for s in infeasible_sources(seed, inputs.pool)}
    found = {(i["axis"], i["domain"], i["leaf"]) for i in data["incompatibilities"]}
    assert found == expected
    assert all(i["reason"] for i in data["incompatibilities"])
    for axis, figures in data["axes"].items():
        for leaf, n in figures["leaves"].items():
            if all((axis, d, leaf) in found for d in domains):
                assert n == 0, leaf  # no domain can produce it, so nothing is planned there


def test_tables_show_which_domains_can_produce_a_leaf() -> None:
    result = runner.invoke(
        app, ["plan", "--size", "40", "--domains", DOMAINS], env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    planned = plan_json("--size", "40", "--domains", DOMAINS)["pairs"]
    assert f": {planned} pairs (the release selects 20 after filtering)" in result.output
    assert f"failure_mode: fair share {round(planned / 14, 3):g} pairs per leaf" in result.output
    assert "real_world_harm: leaves some domains cannot produce" in result.output
    assert "none" in result.output  # a leaf neither domain's hazards produce


def test_unknown_domain_is_refused() -> None:
    result = runner.invoke(app, ["plan", "--domains", "atlantis"])
    assert result.exit_code != 0
    assert "unknown domains 'atlantis'" in str(result.exception)
