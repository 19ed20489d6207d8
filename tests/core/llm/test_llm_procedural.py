"""Procedural backend, templates, ledger summary and the public names."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import BaseModel

import pipeline.core.llm as llm
from pipeline.core.llm import (
    LLMClient,
    LLMFailure,
    LLMRequest,
    LLMSettings,
    TemplateRenderer,
    make_client,
    summarise_ledger,
)
from pipeline.core.model.errors import InputError
from tests.core.llm.llm_helpers import Answer, ClientFactory, make_request, procedural_handlers


def ask_many(client: LLMClient, requests: list[LLMRequest]) -> list[Answer | LLMFailure]:
    async def run() -> list[Answer | LLMFailure]:
        async with client:
            return await client.ask_all([(request, Answer) for request in requests])

    return asyncio.run(run())


def test_procedural_answers_are_deterministic(
    tmp_path: Path, procedural_client: ClientFactory
) -> None:
    requests = [make_request(str(i), sample_index=i % 2) for i in range(5)]
    first = ask_many(procedural_client(tmp_path / "one"), requests)
    second = ask_many(procedural_client(tmp_path / "two"), requests)
    assert first == second
    assert first[1] == Answer(text="query on topic 1 #1")


def test_procedural_tokens_are_estimated_and_free(
    tmp_path: Path, procedural_client: ClientFactory
) -> None:
    ask_many(procedural_client(price_input_per_mtok=5.0), [make_request()])
    summary = summarise_ledger([tmp_path / "ledger"])
    assert summary["tokens_estimated"] is True
    assert summary["prompt_tokens"] > 0 and summary["cost_usd"] == 0


def test_unknown_role_names_the_known_ones(procedural_client: ClientFactory) -> None:
    with pytest.raises(LookupError, match=r"'planner'; known roles: judge, query_generator"):
        ask_many(procedural_client(), [make_request(role="planner")])


def test_procedural_backend_needs_handlers(tmp_path: Path, templates_dir: Path) -> None:
    with pytest.raises(ValueError, match="needs handlers"):
        make_client(
            LLMSettings(),
            cache_dir=tmp_path,
            namespace="d",
            ledger_path=tmp_path,
            templates_dir=templates_dir,
        )


def test_invalid_procedural_answer_is_a_failure_not_an_exception(
    tmp_path: Path, templates_dir: Path
) -> None:
    client = make_client(
        LLMSettings(max_reasks=1),
        cache_dir=tmp_path / "cache",
        namespace="d",
        ledger_path=tmp_path / "ledger",
        templates_dir=templates_dir,
        handlers={"query_generator": lambda r: {"text": 3}},
    )
    (result,) = ask_many(client, [make_request()])
    assert isinstance(result, LLMFailure)
    assert (result.reason_code, result.attempts) == ("invalid_answer", 2)


def test_ledger_summary_counts_per_role_stage_and_domain(
    tmp_path: Path, procedural_client: ClientFactory
) -> None:
    requests = [
        make_request("1"),
        make_request("2", domain="health"),
        make_request("3", role="judge", template="judge.j2", stage="judging"),
    ]
    ask_many(procedural_client(), requests)
    ask_many(procedural_client(), requests[:2])  # both cache hits
    summary = summarise_ledger([tmp_path / "ledger"])
    assert (summary["calls"], summary["cache_hits"], summary["ok"]) == (5, 2, 5)
    assert summary["attempts"] == 3
    assert summary["by_role"]["query_generator"]["calls"] == 4
    assert summary["by_role"]["judge"]["cache_hits"] == 0
    assert summary["by_stage"]["judging"]["calls"] == 1
    assert summary["by_domain"] == {
        "finance": summary["by_domain"]["finance"],
        "health": summary["by_domain"]["health"],
    }
    assert summary["by_domain"]["health"]["cache_hits"] == 1


@pytest.mark.parametrize("edited", ["query_generator.j2", "system.j2"])
def test_an_edited_template_is_a_cache_miss_for_the_procedural_backend(
    edited: str, tmp_path: Path, templates_dir: Path, procedural_client: ClientFactory
) -> None:
    """The procedural backend reads the variables, not the prompt, yet its answers are keyed
    by the templates too: a prompt edited for real models never serves a stale answer."""
    (templates_dir / "system.j2").write_text("You write benchmarks.")
    ask_many(procedural_client(), [make_request()])
    ask_many(procedural_client(), [make_request()])
    (templates_dir / edited).write_text("Edited: {{ topic }}")
    ask_many(procedural_client(), [make_request()])
    summary = summarise_ledger([tmp_path / "ledger"])
    assert (summary["calls"], summary["cache_hits"]) == (3, 1)


def test_system_template_renders_the_system_message(templates_dir: Path) -> None:
    (templates_dir / "system.j2").write_text("You write {{ topic }} benchmarks.")
    messages = TemplateRenderer(templates_dir).render("judge.j2", {"topic": "safety"})
    assert messages == [
        {"role": "system", "content": "You write safety benchmarks."},
        {"role": "user", "content": "Judge this: safety"},
    ]


def test_undefined_variable_is_an_input_error(templates_dir: Path) -> None:
    with pytest.raises(InputError, match="'topic' is undefined; the request's variables are: x"):
        TemplateRenderer(templates_dir).render("judge.j2", {"x": 1})


def test_missing_template_lists_the_known_ones(templates_dir: Path) -> None:
    with pytest.raises(InputError, match=r"'nope\.j2' not found; known templates: judge\.j2"):
        TemplateRenderer(templates_dir).render("nope.j2", {})


def test_answer_model_is_enforced_beyond_the_schema(tmp_path: Path, templates_dir: Path) -> None:
    class Strict(BaseModel):
        text: int

    client = make_client(
        LLMSettings(max_reasks=0),
        cache_dir=tmp_path / "cache",
        namespace="d",
        ledger_path=tmp_path / "ledger",
        templates_dir=templates_dir,
        handlers=procedural_handlers(),
    )

    async def run() -> Strict | LLMFailure:
        async with client:
            return await client.ask(make_request(), Strict)

    result = asyncio.run(run())
    assert isinstance(result, LLMFailure)
    assert "does not fit Strict: text" in result.errors[0]


def test_public_names() -> None:
    assert llm.__all__ == sorted(llm.__all__)
    assert set(llm.__all__) == {
        "LLMClient",
        "LLMFailure",
        "LLMRequest",
        "LLMSettings",
        "Ledger",
        "LedgerEntry",
        "OpenAIBackend",
        "ProceduralBackend",
        "ResponseCache",
        "TemplateRenderer",
        "make_client",
        "summarise_ledger",
    }
