"""The construction stages as per-domain assets, and the release as the one DuckDB writer.

Partitioned assets use a single-run backfill policy: a run over a range of domains handles
them all in one process, so a whole build does not pay one process start per step; on a
distributed executor each partition can still run on its own worker.
"""

import asyncio
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import dagster as dg

from pipeline import __version__
from pipeline.core.build import parallel, regen, stages
from pipeline.core.build.workspace import StageReport, Workspace
from pipeline.core.inputs.loading import Inputs
from pipeline.core.llm import LLMSettings
from pipeline.core.model.progress import report as progress
from pipeline.core.model.spec import ReleaseSpec
from pipeline.defs.resources import BuildSettings, inputs
from pipeline.partitions import domain_partitions

# The single-run backfill policy is marked beta in Dagster; we rely on it knowingly (see the
# module docstring) and keep the warning out of every build's output.
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)

LLMStage = Callable[
    [ReleaseSpec, Inputs, str, Workspace, LLMSettings, asyncio.Semaphore],
    Awaitable[StageReport],
]
"""A construction stage that asks the LLM layer, over one domain (`pipeline.core.build.stages`)."""

CODE_VERSION = __version__
"""Stages change with the package; a new version marks every materialisation stale."""


def _run_domains(
    context: dg.AssetExecutionContext,
    stage: Callable[[str], Awaitable[StageReport]],
    *,
    processes: int,
    ws: Workspace,
) -> dg.MaterializeResult[None]:
    """Run every domain of the run at once: in one event loop, so a model's latency is paid
    once per wave of requests, not once per domain; for a CPU-bound backend, in `processes`
    processes of about equal work (by the size of each domain's plan)."""
    domains = context.partition_keys
    weights = {d: float(ws.stage_file("plan", d).stat().st_size) for d in domains}
    reports = parallel.run_domains(domains, stage, processes=processes, weights=weights)
    # One line per stage, not one per domain: each is an event-log write, and `per_domain`
    # below holds the figures.
    context.log.info(
        f"{reports[0].stage if reports else 'stage'}: {len(reports)} domains, "
        f"{sum(r.written for r in reports)} written, {sum(r.rejected for r in reports)} rejected"
    )
    metadata: dict[str, Any] = {
        "domains": len(reports),
        "written": sum(r.written for r in reports),
        "rejected": sum(r.rejected for r in reports),
        "per_domain": dg.MetadataValue.json(
            {r.domain: {"written": r.written, "rejected": r.rejected, **r.details} for r in reports}
        ),
    }
    # LLM stages: this run's calls, as totals and as a table per domain.
    ledgers = {r.domain: r.details["llm"] for r in reports if "llm" in r.details}
    if ledgers:
        for key in ("calls", "cache_hits", "prompt_tokens", "completion_tokens"):
            metadata[f"llm_{key}"] = sum(figures[key] for figures in ledgers.values())
        metadata["llm_cost_usd"] = round(sum(f["cost_usd"] for f in ledgers.values()), 6)
        est = {domain: " (est.)" if f["tokens_estimated"] else "" for domain, f in ledgers.items()}
        rows = [
            f"| {domain} | {f['calls']} | {f['cache_hits']} | {f['failed'] + f['invalid']} "
            f"| {f['prompt_tokens']:,}{est[domain]} | {f['completion_tokens']:,}{est[domain]} "
            f"| {f['cost_usd']:.4f} |"
            for domain, f in ledgers.items()
        ]
        metadata["llm_ledger"] = dg.MetadataValue.md(
            "| domain | calls | cache hits | failed | prompt tokens | completion tokens "
            "| cost (USD) |\n|---|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows)
        )
    return dg.MaterializeResult(metadata=metadata)


@dg.asset(kinds={"python"}, group_name="construction", code_version=CODE_VERSION)
def blueprints(settings: BuildSettings) -> dg.MaterializeResult[None]:
    """Coverage-controlled plan of the whole release, made once: one blueprint per pair
    (taxonomy slice, tools, triggers), in a file per domain."""
    progress().start("blueprints")
    config = settings.config()
    reports = stages.plan_stage(config.spec(), inputs(), config.workspace())
    columns = ("written", "pairs", "benign", "long_context")
    return dg.MaterializeResult(
        metadata={
            "blueprints": sum(r.written for r in reports),
            "per_domain": dg.MetadataValue.table(
                records=[
                    dg.TableRecord({"domain": r.domain, "written": r.written, **r.details})
                    for r in reports
                ],
                schema=dg.TableSchema(
                    columns=[
                        dg.TableColumn("domain", "string"),
                        *(dg.TableColumn(name, "int") for name in columns),
                    ]
                ),
            ),
        }
    )


def llm_stage_asset(
    name: str, stage: LLMStage, *, after: dg.AssetsDefinition, description: str
) -> dg.AssetsDefinition:
    """A per-domain construction asset over `stage`: every domain of the run in one event loop,
    sharing one bound on requests in flight, in the `llm` concurrency pool."""

    @dg.asset(
        name=name,
        description=description,
        kinds={"python"},
        deps=[after],
        pool="llm",
        partitions_def=domain_partitions,
        backfill_policy=dg.BackfillPolicy.single_run(),
        group_name="construction",
        code_version=CODE_VERSION,
    )
    def llm_stage(
        context: dg.AssetExecutionContext, settings: BuildSettings
    ) -> dg.MaterializeResult[None]:
        progress().start(name)
        config = settings.config()
        spec, ws, llm = config.spec(), config.workspace(), config.llm()
        limiter = asyncio.Semaphore(llm.max_concurrency)
        return _run_domains(
            context,
            lambda d: stage(spec, inputs(), d, ws, llm, limiter),
            processes=parallel.processes_for(llm.backend),
            ws=ws,
        )

    return llm_stage


skeletons = llm_stage_asset(
    "skeletons",
    stages.expand_stage,
    after=blueprints,
    description="Safe expansion: each blueprint executed step by step into a benign trace.",
)
injected = llm_stage_asset(
    "injected",
    stages.inject_stage,
    after=skeletons,
    description="Risk injection: the sampled risk source planted at 1-3 trigger points.",
)
paired = llm_stage_asset(
    "paired",
    stages.pair_stage,
    after=injected,
    description="Paired variants: unsafe and safe twins sharing the prefix up to divergence.",
)
filtered = llm_stage_asset(
    "filtered",
    stages.filter_stage,
    after=paired,
    description="Rules, then the plausibility judge; every rejection kept with its reason.",
)


class CandidateConfig(dg.Config):
    regenerate_from: str = ""
    """A published release whose `domain` this build rebuilt; empty: a whole new release."""
    domain: str = ""


@dg.asset(kinds={"python"}, deps=[filtered], group_name="release", code_version=CODE_VERSION)
def release_candidate(
    config: CandidateConfig, settings: BuildSettings
) -> dg.MaterializeResult[None]:
    """All domains' kept traces and rejections, consolidated for the release gates; in a
    regeneration, the rebuilt domain beside the source release's other domains."""
    build = settings.config()
    if config.regenerate_from:
        source = Path(config.regenerate_from)
        report = regen.regen_candidate(source, config.domain, build.workspace())
    else:
        report = stages.candidate_stage(build.spec(), build.workspace(), build.llm())
    return dg.MaterializeResult(
        metadata={"trajectories": report.written, "rejected": report.rejected, **report.details}
    )


class ReleaseConfig(dg.Config):
    out: str = ""
    """Release directory; empty: outputs/releases/<spec key>."""


@dg.asset(
    kinds={"duckdb"}, deps=[release_candidate], group_name="release", code_version=CODE_VERSION
)
def release(
    context: dg.AssetExecutionContext, config: ReleaseConfig, settings: BuildSettings
) -> dg.MaterializeResult[None]:
    """The published release: DuckDB, ATBench JSON, Parquet, dataset card, manifest."""
    build = settings.config()
    spec = build.spec()
    out = Path(config.out) if config.out else build.outputs_path() / "releases" / spec.key()
    progress().start("release")
    progress().planned(1)
    summary = stages.publish_stage(inputs(), build.workspace(), out)
    progress().item_done(rejected=False)
    context.log.info(f"published release v{summary.version} to {summary.out_dir}")
    return dg.MaterializeResult(
        metadata={
            "path": dg.MetadataValue.path(str(summary.out_dir)),
            "version": summary.version,
            "total": summary.total,
            "safe": summary.safe,
            "unsafe": summary.unsafe,
            "rejected": summary.rejected,
        }
    )
