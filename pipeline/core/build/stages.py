"""The pipeline's stages as plain functions over per-domain files.

Each partitioned stage reads the previous stage's file for one domain and writes its own,
atomically, under the build's work folder (`outputs/builds/<spec key>/<stage>/<domain>.jsonl`),
so stages run in any process, on any worker sharing the folder, and a rerun trusts what it
finds. Dagster assets are thin wrappers over these functions.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from pipeline import __version__
from pipeline.core.build import stamps
from pipeline.core.build.carriers import plan_carriers
from pipeline.core.build.stamps import current_report, stage_digest, stamped
from pipeline.core.build.stated_seeds import stated_seed
from pipeline.core.build.workspace import StageReport, Workspace
from pipeline.core.filtering.judge import (
    JudgeOutcome,
    agreement,
    agreement_sample,
    judge_trajectories,
    record_agreement,
)
from pipeline.core.filtering.rules import RULES, apply_rules, reject_pairs
from pipeline.core.filtering.selection import select_release
from pipeline.core.filtering.verifier import verify_labels
from pipeline.core.generation.context import BuildContext, ConstructionError, generation_rejections
from pipeline.core.generation.expand import Skeleton, expand_safe
from pipeline.core.generation.inject import Injected, inject_risk
from pipeline.core.generation.pair import build_benign, build_pair
from pipeline.core.generation.planner import Blueprint, coverage, plan_release
from pipeline.core.inputs.files import (
    read_jsonl,
    write_json_atomic,
    write_jsonl_atomic,
    write_text_atomic,
)
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.llm import LLMSettings, make_client, summarise_ledger
from pipeline.core.model.labels import leaf_context
from pipeline.core.model.progress import report as progress
from pipeline.core.model.rejection import Rejection
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import Provenance, Trajectory
from pipeline.core.procedural import HANDLERS
from pipeline.core.release.publish import ReleaseSummary, publish_release

T = TypeVar("T")
R = TypeVar("R")

STAGES = ("plan", "skeletons", "injected", "paired", "filtered")


def _provenance(spec: ReleaseSpec, settings: LLMSettings) -> Provenance:
    return Provenance(
        release_seed=spec.seed,
        config_hash=spec.key(),
        backend=settings.backend,
        model=settings.model,
        template_versions={
            path.name: hashlib.sha256(path.read_bytes()).hexdigest()[:12]
            for path in sorted(templates_dir().glob("*.j2"))
        },
    )


def _context(
    spec: ReleaseSpec,
    inputs: Inputs,
    domain: str,
    ws: Workspace,
    settings: LLMSettings,
    limiter: asyncio.Semaphore | None,
) -> BuildContext:
    client = make_client(
        settings,
        cache_dir=ws.cache_dir,
        namespace=domain,
        ledger_path=ws.ledger_dir(domain),
        templates_dir=templates_dir(),
        handlers=HANDLERS,
        limiter=limiter,
    )
    return BuildContext(
        seed=stated_seed(inputs, domain, ws),
        pool=inputs.pool,
        taxonomy=inputs.taxonomy,
        client=client,
        provenance=_provenance(spec, settings),
    )


async def _each(
    items: Sequence[T], build: Callable[[T], Awaitable[R]], blueprint_of: Callable[[T], Blueprint]
) -> tuple[list[R], list[Rejection]]:
    """Build every item concurrently; an item that cannot be built becomes rejections."""

    async def one(item: T) -> R | list[Rejection]:
        try:
            built = await build(item)
        except ConstructionError as err:
            progress().item_done(rejected=True)
            return generation_rejections(blueprint_of(item), err)
        progress().item_done(rejected=False)
        return built

    progress().planned(len(items))
    built: list[R] = []
    rejected: list[Rejection] = []
    for outcome in await asyncio.gather(*(one(item) for item in items)):
        if isinstance(outcome, list):
            rejected += outcome
        else:
            built.append(outcome)
    return built, rejected


def plan_stage(spec: ReleaseSpec, inputs: Inputs, ws: Workspace) -> list[StageReport]:
    """Plan the whole release once: every domain's blueprint file, and the plan record.
    Skipped when every domain's plan file is current (see `stamps`)."""
    done = [current_report("plan", spec, None, ws, domain) for domain in spec.domains]
    if ws.plan_record_file.exists() and all(report is not None for report in done):
        return [report for report in done if report is not None]
    plan_carriers(spec, inputs)
    plan = plan_release(spec, inputs.seeds, inputs.pool, inputs.taxonomy)
    write_json_atomic(
        ws.plan_record_file,
        {
            "coverage": {axis: dict(c) for axis, c in coverage(plan).items()},
            "incompatible": [i.model_dump() for i in plan.incompatibilities],
        },
    )
    reports = []
    for domain in spec.domains:
        blueprints = plan.blueprints[domain]
        write_jsonl_atomic(ws.stage_file("plan", domain), blueprints)
        report = StageReport(
            stage="plan",
            domain=domain,
            written=len(blueprints),
            details={
                "pairs": sum(bp.kind == "pair" for bp in blueprints),
                "benign": sum(bp.kind == "benign" for bp in blueprints),
                "long_context": sum(bp.long_context for bp in blueprints),
            },
        )
        digest = stage_digest("plan", spec, None, ws, domain)
        stamps.write_stamp(ws.root, "plan", domain, digest, report.model_dump(mode="json"))
        reports.append(report)
    return reports


async def _run_stage(
    stage: str,
    domain: str,
    ws: Workspace,
    ctx: BuildContext,
    work: Callable[[], Coroutine[Any, Any, tuple[list[Any], list[Rejection]]]],
) -> StageReport:
    async def run() -> tuple[list[Any], list[Rejection]]:
        async with ctx.client:  # closes the HTTP client in its own loop, and the cache and ledger
            return await work()

    # The client writes a segment of its own (created on its first call), so the segments that
    # appear during this run hold exactly this stage's calls for this domain, cache hits included.
    before = set(ws.ledger_dir(domain).glob("*.jsonl"))
    built, rejected = await run()
    write_jsonl_atomic(ws.stage_file(stage, domain), built)
    write_jsonl_atomic(ws.rejections_file(stage, domain), rejected)
    segments = sorted(set(ws.ledger_dir(domain).glob("*.jsonl")) - before)
    ledger = summarise_ledger(segments)
    figures = (
        "calls",
        "cache_hits",
        "failed",
        "invalid",
        "attempts",
        "prompt_tokens",
        "completion_tokens",
        "tokens_estimated",
        "latency_s_p50",
        "cost_usd",
    )
    return StageReport(
        stage=stage,
        domain=domain,
        written=len(built),
        rejected=len(rejected),
        details={"llm": {key: ledger[key] for key in figures}},
        ledger_segments=[path.name for path in segments],
    )


@stamped("skeletons")
async def expand_stage(
    spec: ReleaseSpec,
    inputs: Inputs,
    domain: str,
    ws: Workspace,
    settings: LLMSettings,
    limiter: asyncio.Semaphore | None = None,
) -> StageReport:
    ctx = _context(spec, inputs, domain, ws, settings, limiter)
    blueprints: list[Blueprint] = ws.read("plan", domain, Blueprint)
    return await _run_stage(
        "skeletons",
        domain,
        ws,
        ctx,
        lambda: _each(blueprints, lambda bp: expand_safe(bp, ctx), lambda bp: bp),
    )


@stamped("injected")
async def inject_stage(
    spec: ReleaseSpec,
    inputs: Inputs,
    domain: str,
    ws: Workspace,
    settings: LLMSettings,
    limiter: asyncio.Semaphore | None = None,
) -> StageReport:
    ctx = _context(spec, inputs, domain, ws, settings, limiter)
    skeletons: list[Skeleton] = ws.read("skeletons", domain, Skeleton)
    pairs = [s for s in skeletons if s.blueprint.kind == "pair"]
    return await _run_stage(
        "injected",
        domain,
        ws,
        ctx,
        lambda: _each(pairs, lambda s: inject_risk(s, ctx), lambda s: s.blueprint),
    )


@stamped("paired")
async def pair_stage(
    spec: ReleaseSpec,
    inputs: Inputs,
    domain: str,
    ws: Workspace,
    settings: LLMSettings,
    limiter: asyncio.Semaphore | None = None,
) -> StageReport:
    ctx = _context(spec, inputs, domain, ws, settings, limiter)
    injected: list[Injected] = ws.read("injected", domain, Injected)
    benign = [s for s in ws.read("skeletons", domain, Skeleton) if s.blueprint.kind == "benign"]

    async def work() -> tuple[list[Trajectory], list[Rejection]]:
        pairs, rejected = await _each(
            injected, lambda i: build_pair(i, ctx), lambda i: i.skeleton.blueprint
        )
        singles, rejected_singles = await _each(
            benign, lambda s: build_benign(s, ctx), lambda s: s.blueprint
        )
        return [t for pair in pairs for t in pair] + singles, rejected + rejected_singles

    return await _run_stage("paired", domain, ws, ctx, work)


@stamped("filtered")
async def filter_stage(
    spec: ReleaseSpec,
    inputs: Inputs,
    domain: str,
    ws: Workspace,
    settings: LLMSettings,
    limiter: asyncio.Semaphore | None = None,
) -> StageReport:
    """Rules, then the plausibility judge on what they kept; a rejected trace takes its twin.

    The judge also sees a sample of rule-rejected traces, so its agreement with the rules is
    measured on both outcomes; only its verdicts on rule-kept traces remove anything.
    """
    trajectories: list[Trajectory] = ws.read("paired", domain, Trajectory)
    progress().planned(len(trajectories))
    ruled, rule_rejections, counts = apply_rules(trajectories, inputs.pool)
    ruled, verifier_rejections = verify_labels(ruled, inputs.pool, inputs.seeds[domain])
    rule_rejections += verifier_rejections
    by_rules = {r.trajectory_id for r in rule_rejections if r.stage == "rules"}
    sample = agreement_sample(trajectories, by_rules, f"{spec.seed}/{domain}")
    ctx = _context(spec, inputs, domain, ws, settings, limiter)
    outcomes: list[JudgeOutcome] = []
    rejected: list[Rejection] = []

    async def work() -> tuple[list[Trajectory], list[Rejection]]:
        outcomes.extend(
            await judge_trajectories(ctx.client, [*ruled, *sample], trajectories, inputs.pool)
        )
        judged = [o.rejection for o in outcomes[: len(ruled)] if o.rejection is not None]
        kept, pairing = reject_pairs(ruled, judged)
        rejected.extend([*rule_rejections, *judged, *pairing])
        kept_ids = {t.id for t in kept}
        for trajectory in trajectories:
            progress().item_done(rejected=trajectory.id not in kept_ids)
        return kept, rejected

    report = await _run_stage("filtered", domain, ws, ctx, work)
    agreed = agreement(outcomes, by_rules)
    record_agreement(ws.agreement_dir, domain, agreed)
    report.details |= {
        "rules": {
            name: {"kept": len(trajectories) - counts[name], "rejected": counts[name]}
            for name in [*RULES, "pair_integrity"]
        },
        "label_verifier": dict(
            Counter(r.reason_code for r in verifier_rejections if r.check == "label_verifier")
        ),
        "judge": dict(Counter(o.code for o in outcomes[: len(ruled)])),
        "rejected_by_check": dict(Counter(r.check for r in rejected)),
        "judge_agreement": agreed,
    }
    return report


def plan_record(ws: Workspace) -> dict[str, Any]:
    """The plan's leaf coverage and incompatibilities, as `plan_stage` wrote them."""
    data: dict[str, Any] = json.loads(ws.plan_record_file.read_text())
    return data


def candidate_stage(
    spec: ReleaseSpec, inputs: Inputs, ws: Workspace, settings: LLMSettings
) -> StageReport:
    """Consolidate every domain's kept traces, rejections and LLM calls for the release gates;
    the release's pairs are selected from the over-planned survivors (`filtering.selection`)."""
    planned = {  # for the record only: a candidate made from filtered files alone has none
        d: sum(bp.kind == "pair" for bp in ws.read("plan", d, Blueprint))
        for d in spec.domains
        if ws.stage_file("plan", d).exists()
    }
    selection = select_release(
        [t for d in spec.domains for t in ws.read("filtered", d, Trajectory)],
        spec.n_pairs,
        inputs.taxonomy,
        planned,
    )
    return write_candidate(
        ws,
        selection.kept,
        [r for d in spec.domains for r in ws.rejections(d)],
        stamps.release_ledger(ws, spec.domains),
        Candidate(
            config={
                "spec": spec.model_dump(mode="json"),
                "llm": settings.fingerprint(),
                # Leaves some domains cannot produce, with the planner's reason, by the spec.
                "plan_incompatibilities": plan_record(ws)["incompatible"],
                # Which surviving pairs the release left out to meet its quotas, and why.
                "selection": selection.record,
                # What the release is made from: an unchanged rebuild finds it, skips the run.
                "build_digest": stamps.release_digest(spec, settings, ws),
            },
            backend=settings.backend,
        ),
    )


class Candidate(BaseModel):
    """What the release records beyond its rows (`Workspace.candidate_release_file`)."""

    config: dict[str, Any]
    backend: str
    follows_version: int = 0
    """The version of the release this one derives from (regeneration), else 0."""


def write_candidate(
    ws: Workspace,
    trajectories: list[Trajectory],
    rejections: list[Rejection],
    ledger_rows: list[dict[str, Any]],
    candidate: Candidate,
) -> StageReport:
    """Write the release candidate that the gates check and `publish_stage` publishes."""
    write_jsonl_atomic(ws.candidate_trajectories_file, trajectories)
    write_jsonl_atomic(ws.candidate_rejections_file, rejections)
    # Rows copied from a release's DuckDB file carry datetimes; the store reads ISO strings.
    lines = (json.dumps(row, default=datetime.isoformat) + "\n" for row in ledger_rows)
    write_text_atomic(ws.candidate_ledger_file, "".join(lines))
    write_json_atomic(ws.candidate_release_file, candidate.model_dump(mode="json"))
    return StageReport(
        stage="candidate",
        domain="*",
        written=len(trajectories),
        rejected=len(rejections),
        details={
            "unsafe": sum(t.verdict == "unsafe" for t in trajectories),
            "safe": sum(t.verdict == "safe" for t in trajectories),
        },
    )


def publish_stage(inputs: Inputs, ws: Workspace, out_dir: Path) -> ReleaseSummary:
    """Write the release candidate (the only DuckDB writer) and swap it into `out_dir`."""
    candidate = Candidate.model_validate_json(ws.candidate_release_file.read_text())
    ledger = ws.candidate_ledger_file.read_text(encoding="utf-8").splitlines()
    return publish_release(
        read_jsonl(ws.candidate_trajectories_file, Trajectory, leaf_context(inputs.taxonomy)),
        read_jsonl(ws.candidate_rejections_file, Rejection),
        [json.loads(line) for line in ledger if line.strip()],
        out_dir,
        taxonomy=inputs.taxonomy,
        config=candidate.config,
        backend=candidate.backend,
        code_version=__version__,
        follows_version=candidate.follows_version,
    )
