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
from pipeline.core.generation.naming import focus_records
from pipeline.core.generation.planner import plan_release
from pipeline.core.generation.steps import with_stated_requests
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.llm import LLMSettings, make_client
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    Provenance,
    ToolCall,
    Turn,
)
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


def _follow_ups(setup: tuple[Turn, ...], pool: ToolPool) -> list[tuple[str, str, str]]:
    """(question, what its own calls asked and returned, the answer) of each follow-up."""
    out = []
    for k, turn in enumerate(setup[:-1]):
        call = setup[k + 1]
        if not (
            turn.role == "user"
            and isinstance(call, AgentTurn)
            and isinstance(call.action, ToolCall)
            and pool[call.action.name].side_effect == "none"
            and k > 0
            and isinstance(before := setup[k - 1], AgentTurn)
            and isinstance(before.action, FinalAnswer)
        ):
            continue
        end = next(
            j
            for j in range(k + 1, len(setup))
            if isinstance(t := setup[j], AgentTurn) and isinstance(t.action, FinalAnswer)
        )
        answer = setup[end]
        assert isinstance(answer, AgentTurn) and isinstance(answer.action, FinalAnswer)
        asked = [
            json.dumps(t.action.arguments)
            for t in setup[k:end]
            if isinstance(t, AgentTurn) and isinstance(t.action, ToolCall)
        ]
        out.append((turn.content, " ".join([_shown(setup[k:end]), *asked]), answer.action.response))
    return out


def test_a_follow_up_is_answered_from_its_own_call(
    skeletons: list[Skeleton], inputs: Inputs
) -> None:
    """After 'get storage usage' the answer reports the usage, not the folder's sync status
    the episode showed earlier: every record id it names is in that call or its result."""
    checked = 0
    for skeleton in skeletons:
        ids = {r.id for r in skeleton.world.records}
        for question, returned, answer in _follow_ups(skeleton.episodes[0], inputs.pool):
            named = {i for i in ids if re.search(rf"\b{re.escape(i)}\b", answer)}
            assert named <= {i for i in named if i in returned or i in question}, answer
            checked += 1
    assert checked >= len(skeletons)


def test_the_exploit_episode_starts_on_its_own_request(
    skeletons: list[Skeleton], inputs: Inputs
) -> None:
    """The exploit's first call serves what the user now asks, never the setup's record
    by default: it names only records the new request names or the setup found for it."""
    for skeleton in skeletons:
        seed = inputs.seeds[skeleton.blueprint.domain]
        world = build_world(seed)
        setup, exploit = (
            next(w for w in seed.workflows if w.id == wid) for wid in skeleton.blueprint.workflows
        )
        own = set(focus_records(world, exploit.request))
        only_setup = set(focus_records(world, setup.request)) - own
        first = next(
            t
            for t in skeleton.episodes[1]
            if isinstance(t, AgentTurn) and isinstance(t.action, ToolCall)
        )
        assert not _called_ids(first, only_setup) - set(
            long_context.needed_later(inputs.pool, world, exploit)
        ), (exploit.request, first.action)


def test_a_request_that_names_nothing_relies_on_what_its_search_finds(inputs: Inputs) -> None:
    seed = inputs.seeds["cloud_storage"]
    world = build_world(seed)
    ni, planning = (
        next(w for w in seed.workflows if w.id == wid)
        for wid in ("stray_ni_numbers", "share_planning_with_client")
    )
    assert long_context.needed_later(inputs.pool, world, ni) == ("file_payroll_2024_09",)
    assert "file_harlow_planning_v3" in long_context.needed_later(inputs.pool, world, planning)
    # the search is for the user's words; the steps after it act on what it found
    assert long_context.step_focus(world, ni.request, 0, ("file_payroll_2024_09",)) == ()
    assert long_context.step_focus(world, ni.request, 1, ("file_payroll_2024_09",)) == (
        "file_payroll_2024_09",
    )
    assert long_context.step_focus(world, planning.request, 0, ("x",)) == ("x",)


def test_a_read_made_since_the_last_write_is_not_made_again(inputs: Inputs) -> None:
    """34 safe twins read the same thing twice in a row; a read after a write is new."""
    pool = inputs.pool
    look = pool["infra_get_metrics"]
    call = {"target": "ticketing-api", "metric": "requests_per_s"}
    read = AgentTurn(thought="", action=ToolCall(name=look.name, arguments=call))
    shown = EnvironmentTurn(content="{}")
    scale = {"cluster": "prod-eu-1", "deployment": "ticketing-api", "replicas": 12}
    wrote = AgentTurn(thought="", action=ToolCall(name="infra_scale_deployment", arguments=scale))
    assert long_context.read_again([read, shown], pool, look, call)
    assert not long_context.read_again([read, shown, wrote, shown], pool, look, call)
    assert not long_context.read_again(
        [read, shown], pool, look, {**call, "metric": "errors_per_s"}
    )
