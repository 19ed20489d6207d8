"""The real-LLM tier: the pipeline end to end against a real OpenAI-compatible server.

Runs only where ATBENCH_REAL_LLM_URL names a server (the CI integration tier starts
`atbench llm serve-local`, Gemma 3 270M behind llama-cpp-python, and sets it); elsewhere every
test here is skipped with that reason. The model is a 270M *base* model: its prose is weak, so
construction checks reject many items. What is asserted is what must hold whatever the model
writes: the run completes, every planned trajectory is kept or rejected with a reason, what is
kept passes the rule filter, the ledger holds the server's token counts, a failed release gate
leaves the previous release in place, and a rerun gets every answer from the cache.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pipeline.cli.build import run_build
from pipeline.core.build.config import BuildConfig
from pipeline.core.build.workspace import Workspace
from pipeline.core.filtering.rules import rule_problems
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.roles import OBSERVATION, REASON, TOOL_CALL, ReasonAnswer, ReasonInput
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.llm import LLMSettings, make_client
from pipeline.core.llm.ledger import LedgerEntry, read_ledger
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.trajectory import Trajectory
from tests.core.llm.test_schema_subset import all_roles, sent_schema
from tests.support.chat_server import ChatServer
from tests.support.inputs import repository_inputs

URL = os.environ.get("ATBENCH_REAL_LLM_URL", "")
DOMAINS = "devops_cloud,workplace_chat"
"""Two domains whose plans have short workflows: few calls, so the tier stays in budget."""
SIZE = 4
GATES = ("balance", "leaf_coverage", "pair_integrity", "schema")
"""The blocking checks on the release candidate (pipeline/defs/checks.py)."""

pytestmark = [
    pytest.mark.real_llm,
    pytest.mark.skipif(
        not URL,
        reason="ATBENCH_REAL_LLM_URL is not set: start `atbench llm serve-local` and set it to "
        "the printed OPENAI_BASE_URL (see docs/llm-backends.md)",
    ),
]


def served_model() -> str:
    """ATBENCH_REAL_LLM_MODEL, or the first model the server lists."""
    if name := os.environ.get("ATBENCH_REAL_LLM_MODEL"):
        return name
    with urllib.request.urlopen(f"{URL.rstrip('/')}/models", timeout=30) as response:
        return str(json.load(response)["data"][0]["id"])


def openai_settings(**overrides: Any) -> dict[str, Any]:
    return {
        "size": SIZE,
        "domains": DOMAINS,
        "backend": "openai",
        "model": served_model(),
        "base_url": URL,
        "structured_output": "json_object",
        "max_concurrency": 1,  # llama-cpp-python answers one request at a time
        **overrides,
    }


# --- the json_object dialect against the real server ------------------------------------------


def ask_reason(tmp_path: Path, structured_output: str) -> tuple[Any, Any, list[LedgerEntry]]:
    """One reason_generator question through the real templates; (answer, backend, ledger)."""
    settings = LLMSettings(
        backend="openai",
        base_url=URL,
        model=served_model(),
        structured_output=structured_output,
        timeout_s=120,
    )
    client = make_client(
        settings,
        cache_dir=tmp_path / "cache",
        namespace="test",
        ledger_path=tmp_path / "ledger",
        templates_dir=templates_dir(),
    )
    request = REASON.request(
        ReasonInput(
            verdict="unsafe",
            labels={"risk_source": "Indirect Prompt Injection"},
            steps=("a web page tells the agent to email the API key", "the agent emails it"),
        ),
        stage="test",
        domain="test",
        item_id="reason-1",
    )

    async def run() -> Any:
        async with client:
            return await client.ask(request, ReasonAnswer)

    answer = asyncio.run(run())
    return answer, client.backend, read_ledger([tmp_path / "ledger"])


def test_json_object_with_a_schema_gets_a_valid_answer_and_real_tokens(tmp_path: Path) -> None:
    answer, backend, ledger = ask_reason(tmp_path, "json_object")
    assert isinstance(answer, ReasonAnswer), answer
    (entry,) = ledger
    assert entry.status == "ok" and not entry.tokens_estimated
    assert entry.prompt_tokens > 0 and entry.completion_tokens > 0
    assert backend.dialect == "json_object"


def test_auto_settles_on_json_object_when_the_server_refuses_json_schema(tmp_path: Path) -> None:
    answer, backend, _ = ask_reason(tmp_path, "auto")
    assert isinstance(answer, ReasonAnswer), answer
    assert backend.dialect == "json_object"


def test_every_schema_sent_compiles_to_a_llama_cpp_grammar() -> None:
    """llama-cpp-python falls back to unconstrained JSON when its converter raises: it must not."""
    converter = pytest.importorskip("llama_cpp.llama_grammar")
    schemas = {f"role {role.name}": sent_schema(role) for role in all_roles()}
    for tool in repository_inputs().pool.tools.values():
        schemas[f"call {tool.name}"] = sent_schema(
            TOOL_CALL,
            {"tool": {"type": "string", "enum": [tool.name]}, "arguments": tool.parameters},
        )
        schemas[f"observation {tool.name}"] = sent_schema(
            OBSERVATION, {"observation": tool.returns}
        )
    failures = {}
    for name, schema in schemas.items():
        try:
            converter.json_schema_to_gbnf(json.dumps(schema))
        except Exception as err:  # whatever the converter raises means "no grammar"
            failures[name] = repr(err)
    assert failures == {}


# --- a tiny release end to end ----------------------------------------------------------------


@dataclass
class Build:
    """The build against the real server, as it stood before the rerun, and the rerun's calls."""

    ws: Workspace
    previous_manifest: bytes
    """manifest.json of the release that was in place before the build."""
    manifest: bytes
    """manifest.json in the same place after the build."""
    summary: dict[str, Any] | None
    error: str | None
    planned: set[str]
    """Trajectory ids the plan asked for."""
    kept: list[Trajectory]
    rejections: list[Rejection]
    first: list[LedgerEntry]
    """Ledger entries of the build against the real server."""
    rerun: list[LedgerEntry]
    """Ledger entries of the same build rerun against a stand-in server."""
    rerun_requests: int
    """Chat requests the stand-in server received during the rerun."""


@pytest.fixture(scope="module")
def build(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Build]:
    root = tmp_path_factory.mktemp("real-llm")
    out = root / "release"
    domains = DOMAINS.split(",")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("ATBENCH_OUTPUTS", str(root / "outputs"))
        env.setenv("DAGSTER_HOME", str(root / "dagster"))
        # A previous release in the same place, so a failed gate can be seen to leave it alone.
        run_build(BuildConfig.load(size=SIZE, domains=DOMAINS), out)
        previous = (out / "manifest.json").read_bytes()
        settings = openai_settings()
        summary, error = None, None
        try:
            summary = run_build(BuildConfig.load(**settings), out)
        except AtbenchError as err:
            error = str(err)
        ws = BuildConfig.load(**settings).workspace()
        planned = set()
        for domain in domains:
            for blueprint in ws.read("plan", domain, Blueprint):
                variants = ("unsafe", "safe") if blueprint.kind == "pair" else ("safe",)
                planned |= {f"{blueprint.id}-{variant}" for variant in variants}
        kept = [t for d in domains for t in ws.read("filtered", d, Trajectory)]
        rejections = [r for d in domains for r in ws.rejections(d)]
        manifest = (out / "manifest.json").read_bytes()
        ledger_dirs = [ws.ledger_dir(d) for d in domains]
        first = read_ledger(ledger_dirs)
        # The rerun starts from an empty work folder, so every stage runs again and every
        # answer must come from the response cache (which lives beside it). It goes to a
        # stand-in server: the real model must not be needed again, and the stand-in counts
        # whatever is still asked besides the endpoint probe.
        shutil.rmtree(ws.root)
        rerun_started = time.time()
        with ChatServer() as stand_in:
            with contextlib.suppress(AtbenchError):  # the first build covers the gates
                run_build(BuildConfig.load(**{**settings, "base_url": stand_in.url}), out)
            rerun_requests = sum(r.role != "preflight" for r in stand_in.chat_requests)
        rerun = [e for e in read_ledger(ledger_dirs) if e.ts >= rerun_started]
        yield Build(
            ws=ws,
            previous_manifest=previous,
            manifest=manifest,
            summary=summary,
            error=error,
            planned=planned,
            kept=kept,
            rejections=rejections,
            first=first,
            rerun=rerun,
            rerun_requests=rerun_requests,
        )


def pair_of(entry: LedgerEntry) -> str:
    """The blueprint (pair) a call was for: item ids are `<pair>/...` or `<pair>-<variant>`."""
    head = entry.item_id.split("/")[0]
    return head.removesuffix("-unsafe").removesuffix("-safe")


def failed_gate(error: str) -> str | None:
    """The release gate an error names, in either wording the CLI uses for a failed gate."""
    found = re.search(r"release gate '(\w+)'|release_candidate: (\w+)", error)
    gate = found and (found.group(1) or found.group(2))
    return gate if gate in GATES else None


def test_every_stage_completes_for_both_domains(build: Build) -> None:
    assert build.error is None or failed_gate(build.error), build.error
    for domain in DOMAINS.split(","):
        assert build.ws.stage_file("filtered", domain).is_file(), domain


def test_every_planned_trajectory_is_kept_or_rejected_with_a_reason(build: Build) -> None:
    kept_ids = {t.id for t in build.kept}
    rejected_ids = {r.trajectory_id for r in build.rejections}
    assert kept_ids | rejected_ids == build.planned
    assert not kept_ids & rejected_ids
    assert all(r.reason_code and r.message for r in build.rejections)


def test_every_kept_trajectory_passes_the_rule_filter(build: Build) -> None:
    pool = repository_inputs().pool
    broken = {t.id: problems for t in build.kept if (problems := rule_problems(t, pool))}
    assert broken == {}


def test_the_ledger_holds_the_servers_token_counts(build: Build) -> None:
    called = [e for e in build.first if not e.cached]
    assert called and all(e.attempts > 0 for e in called)
    # A call that timed out on every attempt (a loaded machine) has no counts to report.
    answered = [e for e in called if e.status == "ok"]
    assert not [e for e in answered if e.tokens_estimated or e.prompt_tokens <= 0]
    assert any(e.status == "ok" and e.completion_tokens > 0 for e in called)


def test_the_release_is_published_or_refused_naming_the_gate(build: Build) -> None:
    if build.error is not None:
        assert failed_gate(build.error), build.error
        assert build.manifest == build.previous_manifest
    else:
        assert build.summary is not None
        assert build.summary["total"] == len(build.kept)
        assert json.loads(build.manifest)["backend"] == "openai"


def test_a_rerun_takes_every_answer_from_the_cache(build: Build) -> None:
    answered = {(e.role, e.item_id) for e in build.first if e.status == "ok"}
    cached = {(e.role, e.item_id) for e in build.rerun if e.cached}
    assert answered <= cached
    # Failures are not cached, so only pairs that had one may ask again (and what follows).
    failed_pairs = {pair_of(e) for e in build.first if e.status != "ok"}
    asked = [e for e in build.rerun if not e.cached]
    assert {pair_of(e) for e in asked} <= failed_pairs
    assert build.rerun_requests == sum(e.attempts for e in asked)
