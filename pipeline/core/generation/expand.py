"""Safe expansion: a blueprint executed step by step into a benign run that obeys the policies.

Each workflow step is planned from the task (grounded arguments), preceded by the look-ups its
arguments need (an id the agent has not been shown is looked up first) and, where a policy
gates a consequential call, by the confirmation the policy requires. The final answer states
what the observations showed.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any, TypeGuard

from pydantic import BaseModel, ConfigDict

from pipeline.core.generation import long_context
from pipeline.core.generation.content import bare_name
from pipeline.core.generation.context import Asker, BuildContext, ConstructionError, scene_of
from pipeline.core.generation.dialogue import may_unfold, open_task
from pipeline.core.generation.facts import facts_of
from pipeline.core.generation.feasibility import page_field, reads_text
from pipeline.core.generation.fits import fits
from pipeline.core.generation.grounding import (
    Plan,
    focus_records,
    plan_arguments,
    unsourced_required,
)
from pipeline.core.generation.naming import as_seen, asked_as
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.policy import asks_first, breach
from pipeline.core.generation.roles import QUERY, QueryInput
from pipeline.core.generation.run import Branch, Planted, Turns
from pipeline.core.generation.semantics import tokens
from pipeline.core.generation.spoken import said_field
from pipeline.core.generation.steps import Gap, StepPlan, plan_step
from pipeline.core.generation.tool_choice import chosen_workflow, ordinal_of
from pipeline.core.generation.world import build_world
from pipeline.core.generation.written import reports_findings
from pipeline.core.inputs.seeds import Policy, Workflow
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.seeding import seeded_rng, stable_int
from pipeline.core.model.trajectory import EnvironmentTurn, UserTurn
from pipeline.core.model.world import Record, World, WorldLog


class Skeleton(BaseModel):
    """The benign run of a blueprint: its turns, its world log and the tools it exposed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    blueprint: Blueprint
    episodes: tuple[Turns, ...]
    world: WorldLog
    tools: tuple[str, ...]
    """The tool list shown to the agent: the plan's, plus look-ups the arguments needed."""
    html_step: tuple[int, int] | None = None
    """(episode, agent turn) whose observation is a long HTML page."""
    step_starts: tuple[tuple[int, ...], ...]
    """Per episode, the turn index where each workflow step begins (its look-ups and
    confirmation included): where a later stage can cut and carry on."""

    def step_span(self, episode: int, step_index: int) -> tuple[int, int]:
        """The turns [start, end) of a workflow step, its look-ups included."""
        starts = (*self.step_starts[episode], len(self.episodes[episode]))
        return starts[step_index], starts[step_index + 1]

    def answered_at(self, episode: int, step_index: int) -> int | None:
        """The turn of a workflow step's own answer (its look-ups' answers come before it)."""
        start, end = self.step_span(episode, step_index)
        turns = self.episodes[episode]
        return max(
            (i for i in range(start, end) if isinstance(turns[i], EnvironmentTurn)), default=None
        )

    def observed(self, episode: int, step_index: int) -> Any:
        """The observation the benign run got for a workflow step (its main call)."""
        at = self.answered_at(episode, step_index)
        answer = None if at is None else self.episodes[episode][at]
        return json.loads(answer.content) if isinstance(answer, EnvironmentTurn) else None

    def html_at(self, episode: int, step_index: int) -> bool:
        """Whether a workflow step is the one that returned the long page."""
        if self.html_step is None or self.html_step[0] != episode:
            return False
        start, end = self.step_span(episode, step_index)
        return start <= self.html_step[1] < end


def workflows_of(ctx: BuildContext, blueprint: Blueprint) -> list[Workflow]:
    """The blueprint's workflows, each step served by the tool this trajectory takes among
    the step tool's imported equivalents (`tool_choice`); the hazard's tool stays."""
    ordinal = ordinal_of(blueprint.id)
    avoid = [h.tool for h in ctx.seed.hazards if h.id == blueprint.hazard]
    return [
        chosen_workflow(ctx.seed, ctx.pool, w, ordinal, avoid)
        for wid in blueprint.workflows
        for w in ctx.seed.workflows
        if w.id == wid
    ]


def new_branch(ctx: BuildContext, blueprint: Blueprint, stage: str) -> Branch:
    world = build_world(ctx.seed)
    return Branch(
        ask=Asker(ctx, blueprint, stage),
        scene=scene_of(ctx.seed, blueprint),
        world=world,
        episodes=[],
        initial=world,
    )


def gated(ctx: BuildContext, tool: Tool) -> Policy | None:
    """The policy that requires confirmation before this consequential call."""
    if tool.side_effect == "none":
        return None
    return next(
        (p for p in ctx.seed.policies if tool.name in p.applies_to and asks_first(p.rule)), None
    )


def describe_call(tool: Tool, plan: Plan, world: World) -> str:
    """The call in a user's words: 'apply account credit for Magnus Halvorsen (amount gbp 15,
    reason code goodwill)' — the record it acts on by name, never 'customer id Magnus'."""
    action = " ".join(w for w in tokens(tool.name)[1:])
    named = [r for v in plan.arguments.values() if (r := world.get(str(v))) is not None]
    head = f"{action} for {bare_name(named[0].name)}" if named else action
    parts = []
    for name, value in plan.arguments.items():
        if named and str(value) == named[0].id:
            continue
        record = world.get(str(value))
        shown = bare_name(record.name) if record is not None else value
        if isinstance(shown, list):
            shown = ", ".join(map(str, shown))
        if isinstance(shown, str) and len(shown) > 60:
            continue
        said = tokens(name)[:-1] if record is not None and tokens(name)[-1:] == ["id"] else None
        if isinstance(value, bool):
            # 'cancel series: no', not '… False'; 'pause ad campaign' needs no 'paused: yes'
            if not (value and name.startswith(action.split(" ")[0][:4])):
                parts.append(said_field(name, value))
            continue
        parts.append(
            f"{' '.join(said or tokens(name))} {shown}"
        )  # 'payee Harbor Lane …', not 'payee id …'
    return f"{head} ({', '.join(parts[:4])})" if parts else head


def put_findings(plan: Plan, tool: Tool, request: str, found: Sequence[str]) -> None:
    """The text the user asked the agent's findings to go in ('note the answer'), written
    from what the episode's reads showed (`found`: the facts its answer would state)."""
    if tool.side_effect == "none" or not found:
        return
    text = " ".join(f"{f[:1].upper()}{f[1:].rstrip('.')}." for f in found)
    for name, source in list(plan.sources.items()):
        if source == "composed" and reports_findings(name, tool.name, request):
            limit = (tool.parameters.get("properties") or {}).get(name, {}).get("maxLength")
            plan.set(name, text if limit is None else text[:limit], "composed")


async def step(
    branch: Branch,
    ctx: BuildContext,
    tool: Tool,
    request: str,
    focus: tuple[str, ...],
    item: str,
    *,
    confirm: bool = True,
    html_field: str | None = None,
    planted: Planted | None = None,
) -> dict[str, Any]:
    """One benign workflow step with the look-ups and the confirmation it needs."""
    visible = branch.trusted_text()
    planned = plan_step(ctx.pool, ctx.seed, branch.world, tool, request, focus, visible)
    if isinstance(planned, Gap):
        raise ConstructionError(
            "safe_expansion",
            "ungroundable_argument",
            f"{ctx.seed.id}: {planned.tool}.{planned.field}: {planned.reason}",
        )
    branch.context += [c for c in planned.context if c not in branch.context]
    for k, (finder, lookup) in enumerate(planned.lookups):
        if long_context.made(branch.episodes, finder.name, lookup.arguments):
            continue  # the same listing is in view already
        await branch.call(
            finder,
            lookup,
            f"{item}/lookup{k}",
            intent="benign",
            purpose=f"{' '.join(tokens(finder.name)[1:])}, to find what the next step needs, "
            f"as part of: {request}",
            focus=focus,
        )
    visible = branch.trusted_text()
    plan = plan_arguments(tool, branch.world, focus, request, branch.trusted_ids(), visible)
    if tool.side_effect != "none" and any(s == "composed" for s in plan.sources.values()):
        # what the reads found: a note on a public page never reports the agent's own acts
        found = facts_of(branch, len(branch.episodes) - 1, request, acts=False)
        put_findings(plan, tool, request, found)
    unsourced = unsourced_required(tool, plan)
    if unsourced is not None:
        raise ConstructionError(
            "safe_expansion", "ungroundable_argument", f"{tool.name}.{unsourced}: nothing gives it"
        )
    again = long_context.read_again(branch.episodes[-1], ctx.pool, tool, plan.arguments)
    if planted is None and html_field is None and again:
        return {}  # its answer is in view since the last write (34 safe twins read it twice)
    why = breach(ctx.seed, branch.world, tool.name, plan.arguments, None)
    if tool.side_effect != "none" and why is not None:
        raise ConstructionError("safe_expansion", "policy_breach", f"{tool.name}: {why}")
    gate = gated(ctx, tool) if confirm else None
    if gate is not None:
        await branch.final(
            f"{item}/ask",
            "ask_confirmation",
            facts=(describe_call(tool, plan, branch.world),),
            policy=gate.rule,
        )
        await branch.user(
            describe_call(tool, plan, branch.world), f"{item}/confirm", mode="confirm"
        )
    return await branch.call(
        tool,
        plan,
        item,
        intent="benign",
        purpose=purpose_of(tool, request, branch.world, plan, branch.text()),
        focus=focus,
        html_field=html_field,
        planted=planted,
    )


def purpose_of(tool: Tool, request: str, world: World, plan: Plan, shown: str = "") -> str:
    """What the step does for this task, not what the tool does in general, about its
    record as the conversation so far (`shown`) has named it."""
    targets = [r for v in plan.arguments.values() if (r := world.get(str(v))) is not None]
    action = " ".join(tokens(tool.name)[1:])
    about = f" for {as_seen(targets[0], shown or request)}" if targets else ""
    return f"{action}{about}, as part of: {request}"


async def expand_safe(blueprint: Blueprint, ctx: BuildContext) -> Skeleton:
    """Execute the blueprint into a benign run, one episode per workflow."""
    branch = new_branch(ctx, blueprint, "safe_expansion")
    html_step = None
    carried: tuple[str, ...] = ()
    starts: list[tuple[int, ...]] = []
    for e, workflow in enumerate(workflows_of(ctx, blueprint)):
        branch.episodes.append([])
        await open_task(
            branch,
            workflow.request,
            f"e{e}",
            seeded_rng(blueprint.seed, "dialogue", e),
            context_note=earlier_request(ctx, blueprint, e),
            may_unfold=may_unfold(blueprint, e),
        )
        focus = episode_focus(branch.world, workflow.request, carried)
        episode_starts = []
        for j, name in enumerate(workflow.steps):
            episode_starts.append(len(branch.episodes[e]))
            tool = ctx.pool[name]
            html = page_field(tool) if blueprint.long_html and html_step is None else None
            if html is not None:
                html_step = (e, len(branch.episodes[e]))
            about = long_context.step_focus(branch.world, workflow.request, j, focus)
            await step(branch, ctx, tool, workflow.request, about, f"e{e}/s{j}", html_field=html)
        await branch.final(f"e{e}", "complete", facts=facts_of(branch, e, workflow.request))
        starts.append(tuple(episode_starts))
        last = e == len(blueprint.workflows) - 1
        rng = seeded_rng(blueprint.seed, "follow-up", e)
        later = workflows_of(ctx, blueprint)[e + 1] if not last else None
        ahead = long_context.needed_later(ctx.pool, branch.world, later) if later else ()
        wanted = long_context.follow_ups_wanted(blueprint, last, rng)
        for k in range(wanted):
            leave = frozenset(later.steps) if later else frozenset()
            if not await follow_up(branch, ctx, focus, f"e{e}/f{k}", rng, next_task=(ahead, leave)):
                break  # nothing left worth asking about
        carried = ahead  # the next request's own records, never this one's by default
    tools = tuple(dict.fromkeys((*blueprint.tools, *branch.tools_used)))
    return Skeleton(
        blueprint=blueprint,
        episodes=branch.turns(),
        world=branch.log(),
        tools=tools,
        html_step=html_step,
        step_starts=tuple(starts),
    )


async def follow_up(
    branch: Branch,
    ctx: BuildContext,
    focus: tuple[str, ...],
    item: str,
    rng: random.Random,
    *,
    next_task: tuple[tuple[str, ...], frozenset[str]] = ((), frozenset()),
) -> bool:
    """The user asks one more thing about a record of the task, as people do; the agent
    looks it up and answers from what that call returned (False: no such question is left).
    In a long-context setup the questions turn to the records the next request needs
    (`next_task`: those records, and the calls that task makes itself, left to it), above all to
    what they say, so the later episode acts on values this one established, without either
    saying so."""
    ahead, leave = next_task
    options: dict[tuple[str, str], tuple[Tool, Record | None, Record]] = {}
    shown: dict[tuple[str, str], int] = {}
    visible = branch.text()
    for record_id in dict.fromkeys((*ahead, *focus)):
        record = branch.world.get(record_id)
        if record is None:
            continue
        for name in ctx.seed.tools:
            tool = ctx.pool[name]
            if tool.side_effect != "none" or tool.lookalike_of:
                continue
            if tool.name in branch.tools_used and not ahead:
                continue
            planned = plan_step(
                ctx.pool, ctx.seed, branch.world, tool, record.name, (record_id,), visible
            )
            found = record_id in ahead  # the agent may first look up what the next task needs
            if found and tool.name in leave:
                continue
            if _self_contained(planned, found):
                # the question names the record the call is about, if it names one
                about = next(
                    (r for v in planned.plan.arguments.values() if (r := branch.world.get(str(v)))),
                    None,
                )
                if tool.name in branch.tools_used and (
                    about is None or long_context.asked_about(branch.episodes, tool.name, about.id)
                ):
                    continue  # a tool again only for another record, never the same call
                if about is not None and build_world(ctx.seed).get(about.id) is None:
                    continue  # not about what the run made: 'billing history for Issue refund'
                asked = plan_step(
                    ctx.pool,
                    ctx.seed,
                    branch.world,
                    tool,
                    follow_up_question(tool, about),
                    ((about or record).id,),
                    visible,
                )
                if not _self_contained(asked, found):
                    continue  # the question as worded would not give the call its values
                if long_context.made(branch.episodes, tool.name, asked.plan.arguments):
                    continue  # the same call, asked about by another record's name
                passed = [
                    (name, r)
                    for name, value in asked.plan.arguments.items()
                    if isinstance(value, str) and (r := branch.world.get(value)) is not None
                ]
                if not fits(tool, about or record, branch.world) or not all(
                    fits(tool, r, branch.world, name) for name, r in passed
                ):
                    continue  # no camera snapshot of a thermostat, no lock codes of an oven
                key = (tool.name, about.id if about else "")
                options.setdefault(key, (tool, about, record))
                shown[key] = long_context.records_shown(
                    branch.world, tool, planned.plan.arguments, (record_id,)
                )
    # a question about a record of the job, never 'can you get storage usage as well?';
    # one whose answer is an empty list establishes nothing: asked only as a last resort
    keys = [k for k, (_, about, _) in options.items() if about is not None]
    keys = [k for k in keys if shown.get(k)] or keys
    if not keys:
        return False
    later = [k for k in keys if (options[k][1] or options[k][2]).id in ahead] or keys
    # what a record says (a document, its messages, its history) is what later steps rely on
    rich = [k for k in later if reads_text(options[k][0]) or shown[k] >= long_context.SEVERAL]
    tool, about, record = options[rng.choice(rich or later)]
    question = follow_up_question(tool, about)
    branch.episodes[-1].append(UserTurn(content=await _follow_up_text(branch, question, item)))
    since = len(branch.steps)
    await step(branch, ctx, tool, question, ((about or record).id,), item)
    await branch.final(
        item,
        "complete",
        facts=facts_of(branch, len(branch.episodes) - 1, question, since, every_field=True)[:3],
    )
    return True


def _self_contained(planned: StepPlan | Gap, may_look_up: bool) -> TypeGuard[StepPlan]:
    """A follow-up call whose every value the question or the history gives, with no
    look-up of its own unless it is about a record the next request needs (finding van 17's
    id before reading its trip history is work the later task then relies on)."""
    return (
        isinstance(planned, StepPlan)
        and (may_look_up or not planned.lookups)
        and not planned.context
        and "default" not in planned.plan.sources.values()
    )


def follow_up_question(tool: Tool, about: Record | None) -> str:
    """The follow-up as the user asks it (the query role words the lead-in): a look-up as
    'Can you pull up the medication list for Lucy Grant?', not in the tool's own words
    ('Can you get medication list for …', which auditors read as machine-made)."""
    words = tokens(tool.name)[1:]
    target = f"for {bare_name(about.name)}" if about is not None else "as well"
    if len(words) > 1 and words[0] in _FETCHING:
        thing = " ".join(words[1:])
        what = asked_as(thing, about.name) if about is not None else f"{thing} as well"
        return _FETCH_ASKS[stable_int(f"{tool.name} {target}") % len(_FETCH_ASKS)].format(what)
    return f"Can you {' '.join(words)} {target}?"


_FETCHING = frozenset(
    {"get", "read", "fetch", "view", "show", "lookup", "retrieve", "pull", "open", "see"}
)
_FETCH_ASKS = (
    "Can you pull up the {}?",
    "Could you also check the {}?",
    "Could you bring up the {}?",
)


async def _follow_up_text(branch: Branch, question: str, item: str) -> str:
    answer = await branch.ask(
        QUERY,
        QueryInput(scene=branch.scene, task=question, mode="follow_up", today=branch.today),
        f"{item}/query",
    )
    return answer.request


def earlier_request(ctx: BuildContext, blueprint: Blueprint, episode: int) -> str | None:
    """For a later episode, what the user asked before (the query may refer back to it)."""
    return long_context.earlier_request(workflows_of(ctx, blueprint), episode)


def episode_focus(world: World, request: str, carried: tuple[str, ...]) -> tuple[str, ...]:
    """The records an episode is about: those its request names, then the earlier episode's."""
    return tuple(dict.fromkeys((*focus_records(world, request), *carried)))
