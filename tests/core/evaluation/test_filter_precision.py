"""The filters on the corpus of known verdicts: every clean trace kept, every defect caught by
the check it is aimed at, and the card's figures as the code measures them now."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from pipeline.core.evaluation.filter_precision import (
    CHECKS,
    KnownTrace,
    precision_table,
    rejecting_checks,
)
from pipeline.core.filtering.judge import CHECK as JUDGE
from pipeline.core.filtering.rules import rule_problems
from pipeline.core.inputs.paths import project_root, templates_dir
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.llm import LLMSettings, make_client
from pipeline.core.procedural import HANDLERS
from pipeline.core.release.card import FILTER_PRECISION
from tests.support.filter_corpus import Defective, clean_pairs, defective_traces
from tests.support.inputs import repository_inputs


@pytest.fixture(scope="module", name="pool")
def pool_fixture() -> ToolPool:
    return repository_inputs().pool


@pytest.fixture(scope="module", name="defects")
def defects_fixture(pool: ToolPool) -> list[Defective]:
    return defective_traces(pool)


@pytest.fixture(scope="module", name="cases")
def cases_fixture(pool: ToolPool, defects: list[Defective]) -> list[KnownTrace]:
    cases = []
    for safe, unsafe in clean_pairs(pool).values():
        cases += [KnownTrace(safe.id, safe, unsafe), KnownTrace(unsafe.id, unsafe, safe)]
    return cases + [KnownTrace(d.name, d.trace, d.twin, d.target) for d in defects]


@pytest.fixture(scope="module", name="rejected")
def rejected_fixture(
    cases: list[KnownTrace], pool: ToolPool, tmp_path_factory: pytest.TempPathFactory
) -> list[set[str]]:
    tmp = tmp_path_factory.mktemp("judge")
    client = make_client(
        LLMSettings(),
        cache_dir=tmp / "cache",
        namespace="corpus",
        ledger_path=tmp / "ledger",
        templates_dir=templates_dir(),
        handlers=HANDLERS,
    )
    return asyncio.run(rejecting_checks(cases, pool, client))


def test_the_corpus_covers_every_check_and_domain_family(
    cases: list[KnownTrace], defects: list[Defective]
) -> None:
    assert {d.target for d in defects} == set(CHECKS)
    assert {c.trace.domain for c in cases if c.target is None} >= {
        "code_repository_ci",
        "devops_cloud",
        "web_research",
        "email_calendar",
        "security_operations",
        "database_admin",
    }


def test_every_clean_trace_is_kept_by_every_check(
    cases: list[KnownTrace], rejected: list[set[str]]
) -> None:
    clean = {c.name: checks for c, checks in zip(cases, rejected, strict=True) if not c.target}
    assert len(clean) >= 16
    assert clean == {name: set() for name in clean}


def test_a_code_trace_with_todo_secrets_and_jinja_is_kept(pool: ToolPool) -> None:
    for trace in clean_pairs(pool)["code_review_webhook_retry"]:
        text = trace.model_dump_json()
        assert all(s in text for s in ("TODO", "${{ secrets.", "{% for ", "{{ merchant."))
        assert rule_problems(trace, pool) == {}


def test_every_defect_is_caught_by_its_check(
    cases: list[KnownTrace], defects: list[Defective], rejected: list[set[str]]
) -> None:
    found = {c.name: checks for c, checks in zip(cases, rejected, strict=True) if c.target}
    caught = {d.name: d.target in found[d.name] for d in defects}
    assert caught == {d.name: d.blind_spot is None for d in defects}


def test_the_residue_rule_fires_on_residue_only(
    cases: list[KnownTrace], rejected: list[set[str]]
) -> None:
    pairs = zip(cases, rejected, strict=True)
    firing = {c.name for c, checks in pairs if "leftover_markup" in checks}
    assert firing == {c.name for c in cases if c.target == "leftover_markup"}


def test_precision_table_counts_per_check(cases: list[KnownTrace]) -> None:
    clean = [c for c in cases if c.target is None][:4]
    aimed = [c for c in cases if c.target == JUDGE][:2]
    table = precision_table([*clean, *aimed], [{JUDGE}, set(), set(), set(), {JUDGE}, set()])
    judge = next(row for row in table["checks"] if row["check"] == JUDGE)
    assert (judge["false_positives"], judge["false_positive_rate"]) == (1, 0.25)
    assert (judge["defects"], judge["caught"], judge["catch_rate"]) == (2, 1, 0.5)
    assert (table["clean_kept"], table["caught_by_any"], table["missed"]) == (3, 1, [aimed[1].name])


def test_the_cards_figures_are_the_current_measurement(
    cases: list[KnownTrace], rejected: list[set[str]]
) -> None:
    """Rerun `benchmarks/filter_precision.py --write` when a rule, the judge or the corpus
    changes."""
    committed = json.loads(Path(project_root() / FILTER_PRECISION).read_text())
    assert committed["procedural"] == precision_table(cases, rejected)
