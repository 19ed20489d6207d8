"""Long-context runs on real seed data: the setup episode does work the exploit episode
relies on (ids it established are used later without being looked up again)."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from pathlib import Path

import pytest

from pipeline.core.generation import long_context
from pipeline.core.generation.context import BuildContext
from pipeline.core.generation.expand import Skeleton, expand_safe
from pipeline.core.generation.planner import plan_release
from pipeline.core.generation.steps import with_stated_requests
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.llm import LLMSettings, make_client
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, Provenance, ToolCall, Turn
from pipeline.core.procedural import HANDLERS

_DOMAINS = ("automotive_fleet", "customer_support_crm")


async def _skeletons(inputs: Inputs, root: Path) -> list[Skeleton]:
    spec = ReleaseSpec(size=300, domains=_DOMAINS)
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    out = []
    for domain, blueprints in plan.blueprints.items():
        client = make_client(
            LLMSettings(backend="procedural"),
            cache_dir=root / "cache",
            namespace=domain,
            ledger_path=root / "ledger" / domain,
            templates_dir=templates_dir(),
            handlers=HANDLERS,
        )
        ctx = BuildContext(
            seed=with_stated_requests(inputs.seeds[domain], inputs.pool),
            pool=inputs.pool,
            taxonomy=inputs.taxonomy,
            client=client,
            provenance=Provenance(release_seed=0, config_hash="test", backend="procedural"),
        )
        async with client:
            for blueprint in [b for b in blueprints if b.long_context][:2]:
                out.append(await expand_safe(blueprint, ctx))
    return out


@pytest.fixture(scope="module")
def skeletons(inputs: Inputs, tmp_path_factory: pytest.TempPathFactory) -> list[Skeleton]:
    return asyncio.run(_skeletons(inputs, tmp_path_factory.mktemp("long")))


def _shown(turns: tuple[Turn, ...]) -> str:
    return " ".join(t.content for t in turns if isinstance(t, EnvironmentTurn))


def _called_ids(turn: AgentTurn, ids: set[str]) -> set[str]:
    assert isinstance(turn.action, ToolCall)
    text = json.dumps(turn.action.arguments)
    return {i for i in ids if re.search(rf"\b{re.escape(i)}\b", text)}


def test_a_long_context_run_has_a_setup_and_an_exploit_episode(
    skeletons: list[Skeleton],
) -> None:
    assert len(skeletons) >= 4
    for skeleton in skeletons:
        kinds = [e.kind for e in long_context.episodes_of(skeleton.episodes)]
        assert kinds == ["setup", "exploit"]


def test_the_exploit_episode_uses_ids_the_setup_established_without_looking_them_up(
    skeletons: list[Skeleton],
) -> None:
    relied = 0
    for skeleton in skeletons:
        setup, exploit = skeleton.episodes
        ids = {r.id for r in skeleton.world.records}
        established = {i for i in ids if re.search(rf"\b{re.escape(i)}\b", _shown(setup))}
        for k, turn in enumerate(exploit):
            if not isinstance(turn, AgentTurn) or not isinstance(turn.action, ToolCall):
                continue
            used = _called_ids(turn, established)
            request = str(exploit[0].content if hasattr(exploit[0], "content") else "")
            # an id the exploit episode acts on, shown only by the setup episode's reads
            for record_id in used - {i for i in used if i in _shown(exploit[:k]) + request}:
                relied += 1
                assert record_id in _shown(setup)
    assert relied >= 2, "setup episodes establish values the exploit episodes act on"


def test_a_setup_keeps_working_after_its_own_task(
    skeletons: list[Skeleton], inputs: Inputs
) -> None:
    """Follow-up questions: a later user turn answered by a read-only look-up (a user's
    confirmation is answered by the consequential call it allowed). The opening may unfold
    over several user turns before the task's first call; those give the task, they are not
    follow-ups."""
    asked = 0
    for skeleton in skeletons:
        setup = skeleton.episodes[0]
        first_call = next(
            k
            for k, turn in enumerate(setup)
            if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
        )
        follow_ups = [
            k
            for k, turn in enumerate(setup[first_call:-1], start=first_call)
            if turn.role == "user"
            and isinstance(call := setup[k + 1], AgentTurn)
            and isinstance(call.action, ToolCall)
            and inputs.pool[call.action.name].side_effect == "none"
        ]
        asked += len(follow_ups)
        assert len(follow_ups) <= long_context.SETUP_FOLLOW_UPS
    assert asked >= len(skeletons) * 2


def test_a_setup_never_asks_the_same_question_twice(skeletons: list[Skeleton]) -> None:
    """A follow-up may use a tool again for another record, never repeat a call."""
    for skeleton in skeletons:
        setup = skeleton.episodes[0]
        calls = [
            (turn.action.name, json.dumps(turn.action.arguments, sort_keys=True))
            for before, turn in itertools.pairwise(setup)
            if before.role == "user"
            and isinstance(turn, AgentTurn)
            and isinstance(turn.action, ToolCall)
        ]
        assert len(calls) == len(set(calls)), [c for c in calls if calls.count(c) > 1]
        made = [t for t in setup if isinstance(t, AgentTurn) and isinstance(t.action, ToolCall)]
        last = made[-1].action
        assert isinstance(last, ToolCall)
        for value in map(str, last.arguments.values()):
            assert long_context.asked_about(skeleton.episodes, last.name, value)
        assert not long_context.asked_about(skeleton.episodes, last.name, "never-an-id")
