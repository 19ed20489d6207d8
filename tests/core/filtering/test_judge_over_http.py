"""The judge prompt shows everything the judge checks, and the openai judge over HTTP reaches
the procedural judge's verdicts on the corpus of known verdicts."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from pipeline.core.evaluation.filter_precision import KnownTrace, rejecting_checks
from pipeline.core.filtering.judge import CHECK as JUDGE
from pipeline.core.filtering.judge import PLAUSIBILITY_JUDGE, PlausibilityInput, judge_input
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.llm import LLMSettings, make_client
from pipeline.core.llm.templates import TemplateRenderer
from pipeline.core.procedural import HANDLERS
from tests.support.chat_judge import judge_answer, read_judge_input
from tests.support.chat_server import ChatServer
from tests.support.filter_corpus import clean_pairs, defective_traces
from tests.support.inputs import repository_inputs


@pytest.fixture(scope="module", name="pool")
def pool_fixture() -> ToolPool:
    return repository_inputs().pool


@pytest.fixture(scope="module", name="cases")
def cases_fixture(pool: ToolPool) -> list[KnownTrace]:
    cases = [KnownTrace(s.id, s, u) for s, u in clean_pairs(pool).values()]
    return cases + [KnownTrace(d.name, d.trace, d.twin, d.target) for d in defective_traces(pool)]


def _unshown(payload: dict[str, Any]) -> dict[str, Any]:
    """What the prompt does not show: the trace id; a twin's thoughts and episode positions."""
    twins = [*payload["twin_actions"], *([payload["twin_harm"]] if payload["twin_harm"] else [])]
    for turn in twins:
        turn.update(episode=0, turn=0, thought="")
    return {**payload, "trace_id": "read-back"}


def test_the_judge_prompt_reads_back_to_its_input(cases: list[KnownTrace], pool: ToolPool) -> None:
    renderer = TemplateRenderer(templates_dir())
    for case in cases:
        payload = judge_input(case.trace, case.twin, pool)
        request = PLAUSIBILITY_JUDGE.request(payload, stage="s", domain="d", item_id="i")
        prompt = renderer.render(request.template, request.variables)[-1]["content"]
        back = PlausibilityInput.model_validate(read_judge_input(prompt))
        assert back.model_dump() == _unshown(payload.model_dump()), case.name


def test_the_openai_judge_over_http_agrees_with_the_procedural_judge(
    cases: list[KnownTrace], pool: ToolPool, tmp_path: Path
) -> None:
    def client(settings: LLMSettings, name: str) -> Any:
        return make_client(
            settings,
            cache_dir=tmp_path / name,
            namespace=name,
            ledger_path=tmp_path / f"{name}-ledger",
            templates_dir=templates_dir(),
            handlers=HANDLERS,
        )

    cases = [c for c in cases if c.target in (None, JUDGE)]
    procedural = asyncio.run(rejecting_checks(cases, pool, client(LLMSettings(), "p")))
    with ChatServer(judge_answer) as server:
        settings = LLMSettings(backend="openai", base_url=server.url, model="m", api_key="k")
        openai = asyncio.run(rejecting_checks(cases, pool, client(settings, "o")))
        # Each case judges its trace and its twin; judgements of one trace whose prompts are
        # the same (what differs is not shown to the judge) are one request, sent once.
        renderer = TemplateRenderer(templates_dir())
        judged = set()
        for case in cases:
            for trace, twin in ((case.trace, case.twin), (case.twin, case.trace)):
                payload = judge_input(trace, twin, pool)
                request = PLAUSIBILITY_JUDGE.request(payload, stage="s", domain="d", item_id="i")
                prompt = renderer.render(request.template, request.variables)
                judged.add((trace.id, str(prompt)))
        assert len(server.chat_requests) == len(judged)
    assert openai == procedural
    assert any(JUDGE in checks for checks in openai)
