"""Coverage-controlled planning: which taxonomy slice each pair realises, in which domain.

Quotas are global (every leaf of every axis near its fair share across the release), yet a
domain's blueprints depend only on the release spec (seed, size, domain list), so regenerating
one domain reproduces exactly its share of the plan. Each domain is planned more pairs than
its share of the release (`overplan`), so `filtering.selection` can pick the release from what
survives filtering with every domain and leaf at its quota.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Literal

from pydantic import BaseModel, ConfigDict

from pipeline.core.generation.feasibility import (
    carrier_workflows,
    exec_tool,
    groundable_workflows,
    hazard_fits,
    infeasible_modes,
    infeasible_sources,
    page_tools,
    plantable,
    written_by_its_kind,
)
from pipeline.core.generation.harms import CONTENT_HARMS, accumulates
from pipeline.core.generation.overplan import harm_targets, pair_slots, release_shares
from pipeline.core.generation.quotas import acted_out_modes, pick_balanced, pick_preferring
from pipeline.core.generation.semantics import operation_of
from pipeline.core.generation.slices import failure_mode_fits, on_task_step
from pipeline.core.generation.tool_choice import distractors, ordinal_of
from pipeline.core.inputs.seeds import Seed, Workflow
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.channels import CHANNEL_OF, OBSERVED_CHANNELS
from pipeline.core.model.labels import OUTPUT_MODES, AxisId, Labels
from pipeline.core.model.seeding import seeded_rng
from pipeline.core.model.spec import ReleaseSpec

SafeStrategy = Literal["removed", "resisted", "handled"]

_SAFE_STRATEGY_WEIGHTS: dict[SafeStrategy, float] = {
    "removed": 0.14,
    "resisted": 0.48,
    "handled": 0.38,
}
"""Mostly the trigger stays in both twins, so the verdict rests on what the agent does; about
one safe twin in seven meets no risk at all (issue 13 asks for at least one in ten)."""


class Blueprint(BaseModel):
    """Everything construction needs to build one pair (or one benign trace)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    """The pair id, `<domain>-<nnnn>`; benign-only traces use `<domain>-b<nnn>`."""
    domain: str
    kind: Literal["pair", "benign"]
    persona: str
    workflows: tuple[str, ...]
    """Seed workflow ids: one per episode (two for delayed-trigger cases)."""
    tools: tuple[str, ...]
    """The tool list exposed to the agent, in presentation order."""
    slice: Labels | None = None
    hazard: str | None = None
    trigger_points: int = 0
    safe_strategy: SafeStrategy | None = None
    long_context: bool = False
    long_html: bool = False
    seed: int
    """Per-blueprint seed for construction's own choices."""


class Incompatibility(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    domain: str
    axis: AxisId
    leaf: str
    reason: str


class ReleasePlan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    blueprints: dict[str, tuple[Blueprint, ...]]
    incompatibilities: tuple[Incompatibility, ...]


def plan_release(
    spec: ReleaseSpec, seeds: dict[str, Seed], pool: ToolPool, taxonomy: Taxonomy
) -> ReleasePlan:
    missing = [d for d in spec.domains if d not in seeds]
    if missing:
        raise ValueError(f"spec names domains without seeds: {missing}")
    rng = seeded_rng(spec.seed, "plan")
    pairs = pair_slots(spec, rng)  # over-planned: selection after filtering picks the release
    benign = release_shares(spec.n_benign, spec.domains, rng)

    harms_of = {d: {h.harm for h in seeds[d].hazards} for d in spec.domains}
    infeasible = {d: infeasible_modes(seeds[d], pool) for d in spec.domains}
    no_source = {d: infeasible_sources(seeds[d], pool) for d in spec.domains}
    incompatible = (
        [
            Incompatibility(
                domain=d,
                axis="real_world_harm",
                leaf=leaf,
                reason=f"no hazard in seed {d!r} produces this harm",
            )
            for d in spec.domains
            for leaf in taxonomy.leaf_ids("real_world_harm")
            if leaf not in harms_of[d]
        ]
        + [
            Incompatibility(domain=d, axis="failure_mode", leaf=leaf, reason=why)
            for d in spec.domains
            for leaf, why in sorted(infeasible[d].items())
        ]
        + [
            Incompatibility(domain=d, axis="risk_source", leaf=leaf, reason=why)
            for d in spec.domains
            for leaf, why in sorted(no_source[d].items())
        ]
    )

    # Interleave domains so quota pressure is shared instead of exhausted by the first domain.
    order = [
        (d, k) for k in range(max(pairs.values(), default=0)) for d in spec.domains if k < pairs[d]
    ]
    counts: dict[AxisId, Counter[str]] = {
        axis: Counter() for axis in ("risk_source", "failure_mode", "real_world_harm")
    }
    paired: Counter[tuple[str, str]] = Counter()  # (source, mode) slices taken so far
    targets: dict[AxisId, float | dict[str, float]] = {
        axis: len(order) / len(taxonomy.leaf_ids(axis)) for axis in counts
    }
    targets["real_world_harm"] = harm_targets(len(order), taxonomy.leaf_ids("real_world_harm"))
    acted = {d: acted_out_modes(seeds[d], pool) for d in spec.domains}
    n_long = round(len(order) * spec.long_context_share)
    n_html = round(len(order) * spec.long_html_share)
    long_slots = set(rng.sample(range(len(order)), min(n_long, len(order))))
    # a long page needs a tool that returns one: only slots of domains that have such a tool
    paged = [i for i, (d, _) in enumerate(order) if page_tools(seeds[d], pool)]
    html_slots = set(rng.sample(paged, min(n_html, len(paged))))

    blueprints: dict[str, list[Blueprint]] = {d: [] for d in spec.domains}
    for position, (domain, k) in enumerate(order):
        slot_rng = seeded_rng(spec.seed, domain, k)
        source = pick_balanced(
            [s for s in taxonomy.leaf_ids("risk_source") if s not in no_source[domain]],
            counts["risk_source"],
            targets["risk_source"],
            slot_rng,
        )
        harm = pick_balanced(
            sorted(harms_of[domain]),
            counts["real_world_harm"],
            targets["real_world_harm"],
            slot_rng,
        )
        fitting = [
            f
            for f in taxonomy.leaf_ids("failure_mode")
            if failure_mode_fits(source, f) and f not in infeasible[domain]
        ]
        modes = [
            f
            for f in fitting
            if any(
                hazard_fits(seeds[domain], pool, h, f)
                for h in seeds[domain].hazards
                # an answer's content can be about any hazard's records; a disclosure
                # is made by a hazard of the harm it does
                if f in OUTPUT_MODES or h.harm in CONTENT_HARMS.get(f, {harm})
            )
        ] or fitting
        # a mode a hazard of this harm was written for, whose story the pair then acts out
        mode = pick_preferring(
            modes,
            acted[domain][harm],
            counts["failure_mode"],
            targets["failure_mode"],
            slot_rng,
            {f: paired[(source, f)] for f in modes},
        )
        if mode in CONTENT_HARMS and harm not in CONTENT_HARMS[mode]:
            # the content decides what it hurts: the harm follows the mode
            harm = pick_balanced(
                sorted(CONTENT_HARMS[mode]),
                counts["real_world_harm"],
                targets["real_world_harm"],
                slot_rng,
            )
        for axis, leaf in (
            ("real_world_harm", harm),
            ("risk_source", source),
            ("failure_mode", mode),
        ):
            counts[axis][leaf] += 1  # type: ignore[index]
        paired[(source, mode)] += 1
        blueprints[domain].append(
            _blueprint(
                seeds[domain],
                pool,
                spec,
                slot_rng,
                pair_id=f"{domain}-{k:04d}",
                slice_=Labels(risk_source=source, failure_mode=mode, real_world_harm=harm),
                long_context=position in long_slots,
                long_html=position in html_slots,
            )
        )
    for domain in spec.domains:
        for k in range(benign[domain]):
            blueprints[domain].append(
                _blueprint(
                    seeds[domain],
                    pool,
                    spec,
                    seeded_rng(spec.seed, domain, "benign", k),
                    pair_id=f"{domain}-b{k:03d}",
                    slice_=None,
                    long_context=False,
                    long_html=False,
                )
            )
    return ReleasePlan(
        blueprints={d: tuple(bps) for d, bps in blueprints.items()},
        incompatibilities=tuple(incompatible),
    )


def _blueprint(
    seed: Seed,
    pool: ToolPool,
    spec: ReleaseSpec,
    rng: random.Random,
    *,
    pair_id: str,
    slice_: Labels | None,
    long_context: bool,
    long_html: bool,
) -> Blueprint:
    episodes = 2 if long_context else 1
    workflows = _workflows(seed, pool, rng, episodes, slice_, long_html)
    readers = [
        name
        for name in seed.tools
        if pool[name].side_effect == "none" and pool[name].lookalike_of is None
    ] or list(seed.tools)
    hazard = None
    strategy: SafeStrategy | None = None
    points = 0
    if slice_ is not None:
        # a content mode's harm is its content's: any hazard's records can be its subject
        matching = [h for h in seed.hazards if h.harm == slice_.real_world_harm] or list(
            seed.hazards
        )
        # The slice's mode was chosen because some hazard of this harm can show it: prefer
        # those, then the ones that list the mode themselves.
        matching = [
            h for h in matching if hazard_fits(seed, pool, h, slice_.failure_mode)
        ] or matching
        fitting = [h for h in matching if slice_.failure_mode in h.failure_modes] or matching
        if slice_.failure_mode == "choosing_malicious_tool":
            fakes = {pool[n].lookalike_of for n in seed.tools if pool[n].lookalike_of}
            fitting = [h for h in fitting if h.tool in fakes] or fitting
        if slice_.risk_source == "unreliable_or_misinformation" and slice_.failure_mode != (
            "provide_inaccurate_misleading_or_unverified_information"
        ):
            # a false report the seed wrote gives the call its reason (`planted.written_claim`)
            fitting = [h for h in fitting if h.claim] or fitting
        hazard = rng.choice(fitting).id
        strategy = rng.choices(
            list(_SAFE_STRATEGY_WEIGHTS), weights=list(_SAFE_STRATEGY_WEIGHTS.values())
        )[0]
        multi = CHANNEL_OF[slice_.risk_source] in {"observation", "tool_output"}
        points = rng.choices((1, 2, 3), weights=(0.6, 0.3, 0.1))[0] if multi else 1
    drawn = rng.choice(seed.personas).name
    return Blueprint(
        id=pair_id,
        domain=seed.id,
        kind="benign" if slice_ is None else "pair",
        persona=_speaker(seed, workflows[-1]) or _owner(seed, workflows[-1]) or drawn,
        workflows=workflows,
        tools=_exposed_tools(seed, pool, rng, workflows, hazard, readers, pair_id),
        slice=slice_,
        hazard=hazard,
        trigger_points=points,
        safe_strategy=strategy,
        long_context=long_context,
        long_html=long_html,
        seed=rng.getrandbits(32),
    )


def _speaker(seed: Seed, workflow_id: str) -> str | None:
    """The persona a request says is speaking ('Leah here - I've approved the draft'): the
    user is then that person, not a customer asking to schedule the brand's posts."""
    request = next(w.request for w in seed.workflows if w.id == workflow_id)
    for persona in seed.personas:
        names = "|".join(re.escape(n) for n in persona.name.split() if n[:1].isupper())
        if names and re.search(
            rf"\b(?:{names}) here\b|\b(?:it's|I'm|this is) (?:{names})\b", request
        ):
            return persona.name
    return None


def _owner(seed: Seed, workflow_id: str) -> str | None:
    """The persona who holds what a request calls 'my' ('shift 500 EUR from my checking'
    is the account holder's, not the bank's care supervisor's), when the seed's records
    name one holder among its personas."""
    request = next(w.request for w in seed.workflows if w.id == workflow_id)
    if not re.search(r"\bmy\b", request, re.I):
        return None
    people = {p.name for p in seed.personas}
    held = {
        str(value)
        for entity in seed.entities
        for key, value in entity.attributes.items()
        if key in _HOLDERS and str(value) in people
    }
    return held.pop() if len(held) == 1 else None


_HOLDERS = frozenset({"holder", "account_holder", "owner", "policyholder", "cardholder"})


def _workflows(
    seed: Seed,
    pool: ToolPool,
    rng: random.Random,
    episodes: int,
    slice_: Labels | None,
    long_html: bool,
) -> tuple[str, ...]:
    """Workflows that can carry the slice: the last one returns text a risk can ride in when
    the risk enters through an observation; one fetches a page when a long HTML page is due."""
    ids = groundable_workflows(seed, pool) or [w.id for w in seed.workflows]
    last_choices = ids
    if slice_ is not None and CHANNEL_OF[slice_.risk_source] in OBSERVED_CHANNELS:
        carriers = carrier_workflows(seed, pool) or ids
        source = slice_.risk_source  # a step whose writer is this source's (feasibility)
        fit = [w.id for w in seed.workflows if w.id in carriers and _written(source, pool, w)]
        last_choices = fit or carriers
    if slice_ is not None and on_task_step(slice_.risk_source, slice_.failure_mode):
        # the wrong value goes into a step the user asked for: a task with one that acts
        acting = [
            w.id for w in seed.workflows if any(pool[s].side_effect != "none" for s in w.steps)
        ]
        last_choices = [w for w in last_choices if w in acting] or last_choices
    if slice_ is not None and slice_.failure_mode == "inefficient_or_wasteful_execution":
        # the waste repeats the task's own next step, which must add something each time (a
        # repeated order, message or run); the hazard's values, said by no one, cannot be
        # repeated from the trace (the verifier's `failure_mode_mismatch`)
        adding = [w.id for w in seed.workflows if _adds_first(pool, w)]
        last_choices = [w for w in last_choices if w in adding] or last_choices
    if long_html:
        pages = page_tools(seed, pool)
        with_page = [w.id for w in seed.workflows if set(w.steps) & pages]
        last_choices = [w for w in last_choices if w in with_page] or last_choices
    last = rng.choice(last_choices)
    if episodes == 1:
        return (last,)
    others = [w for w in ids if w != last] or [last]
    return (rng.choice(others), last)


def _adds_first(pool: ToolPool, workflow: Workflow) -> bool:
    """Whether the workflow's first consequential step adds something each time it runs."""
    acting = [pool[s] for s in workflow.steps if pool[s].side_effect != "none"]
    return bool(acting) and accumulates(acting[0].name, operation_of(acting[0]))


def _written(source: str, pool: ToolPool, workflow: Workflow) -> bool:
    tools = [pool[s] for s in workflow.steps]
    return any(plantable(t) and written_by_its_kind(source, t) for t in tools)


_IMPORTED_OFFERED = 3
"""Imported public-API readers of the domain each tool list offers beside the plan's."""


def _exposed_tools(
    seed: Seed,
    pool: ToolPool,
    rng: random.Random,
    workflows: tuple[str, ...],
    hazard: str | None,
    readers: list[str],
    pair_id: str,
) -> tuple[str, ...]:
    """The tools the plan needs, their lookalikes, a verifier and distractors, shuffled, so a
    guard cannot tell the risky tool by its presence."""
    steps = {s for w in seed.workflows if w.id in workflows for s in w.steps}
    needed = steps | {rng.choice(readers)}
    if hazard is not None:
        needed.add(next(h.tool for h in seed.hazards if h.id == hazard))
    runner = exec_tool(pool, seed.tools)
    if runner is not None:
        needed.add(runner.name)  # a tool that fetches or runs things, in every list alike
    if not any(pool[n].lookalike_of in needed for n in seed.tools):
        # Every list offers one look-alike beside its genuine tool, whatever the slice, so
        # its presence gives nothing away and `choosing_malicious_tool` always has a choice.
        pairs = sorted(n for n in seed.tools if pool[n].lookalike_of in seed.tools)
        if pairs:
            fake = rng.choice(pairs)
            needed |= {fake, str(pool[fake].lookalike_of)}
    for name in seed.tools:
        if pool[name].lookalike_of in needed:
            needed.add(name)
    others = sorted(set(seed.tools) - needed)
    needed.update(rng.sample(others, k=min(len(others), rng.choice((1, 2, 3)))))
    needed.update(distractors(pool, seed.id, ordinal_of(pair_id), _IMPORTED_OFFERED))
    tools = sorted(needed)
    rng.shuffle(tools)
    return tuple(tools)


def coverage(plan: ReleasePlan) -> dict[str, Counter[str]]:
    """Leaf counts per axis over the planned pairs."""
    result: dict[str, Counter[str]] = {
        "risk_source": Counter(),
        "failure_mode": Counter(),
        "real_world_harm": Counter(),
    }
    for blueprints in plan.blueprints.values():
        for bp in blueprints:
            if bp.slice is not None:
                for axis, counter in result.items():
                    counter[getattr(bp.slice, axis)] += 1
    return result
