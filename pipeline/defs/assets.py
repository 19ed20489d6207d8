"""The construction stages as per-domain assets, and the release as the one DuckDB writer.

Partitioned assets use a single-run backfill policy: a run over a range of domains handles
them all in one process, so a whole build does not pay one process start per step; on a
distributed executor each partition can still run on its own worker.
"""

import asyncio
import json
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import dagster as dg

from pipeline.core.build import stages
from pipeline.core.build.workspace import StageReport
from pipeline.core.filtering.judge import merge_agreement
from pipeline.defs.resources import BuildSettings, inputs
from pipeline.partitions import domain_partitions

# The single-run backfill policy is marked beta in Dagster; we rely on it knowingly (see the
# module docstring) and keep the warning out of every build's output.
warnings.filterwarnings("ignore", message="Parameter `backfill_policy`", category=dg.BetaWarning)

_PARTITIONED = {
    "partitions_def": domain_partitions,
    "backfill_policy": dg.BackfillPolicy.single_run(),
    "group_name": "construction",
}


def _run_domains(
    context: dg.AssetExecutionContext, stage: Callable[[str], Awaitable[StageReport]]
) -> dg.MaterializeResult:
    """Run every domain of the run at once, in one event loop: a model's latency is paid once
    per wave of requests, not once per domain."""

    async def one(domain: str) -> StageReport:
        report = await stage(domain)
        context.log.info(
            f"{report.stage} {domain}: {report.written} written, {report.rejected} rejected"
        )
        return report

    async def every_domain() -> list[StageReport]:
        return list(await asyncio.gather(*(one(d) for d in context.partition_keys)))

    reports = asyncio.run(every_domain())
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


@dg.asset(kinds={"python"}, **_PARTITIONED)  # type: ignore[arg-type]
def blueprints(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Coverage-controlled plan: one blueprint per pair (taxonomy slice, tools, triggers)."""
    spec, ws = settings.spec(), settings.workspace()

    async def plan(domain: str) -> StageReport:
        return stages.plan_stage(spec, inputs(), domain, ws)

    return _run_domains(context, plan)


@dg.asset(kinds={"python"}, deps=[blueprints], pool="llm", **_PARTITIONED)  # type: ignore[arg-type]
def skeletons(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Safe expansion: each blueprint executed step by step into a benign trace."""
    spec, ws, llm = settings.spec(), settings.workspace(), settings.llm()
    limiter = asyncio.Semaphore(llm.max_concurrency)  # shared by every domain of the run
    return _run_domains(context, lambda d: stages.expand_stage(spec, inputs(), d, ws, llm, limiter))


@dg.asset(kinds={"python"}, deps=[skeletons], pool="llm", **_PARTITIONED)  # type: ignore[arg-type]
def injected(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Risk injection: the sampled risk source planted at 1-3 trigger points."""
    spec, ws, llm = settings.spec(), settings.workspace(), settings.llm()
    limiter = asyncio.Semaphore(llm.max_concurrency)  # shared by every domain of the run
    return _run_domains(context, lambda d: stages.inject_stage(spec, inputs(), d, ws, llm, limiter))


@dg.asset(kinds={"python"}, deps=[injected], pool="llm", **_PARTITIONED)  # type: ignore[arg-type]
def paired(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Paired variants: unsafe and safe twins sharing the prefix up to divergence."""
    spec, ws, llm = settings.spec(), settings.workspace(), settings.llm()
    limiter = asyncio.Semaphore(llm.max_concurrency)  # shared by every domain of the run
    return _run_domains(context, lambda d: stages.pair_stage(spec, inputs(), d, ws, llm, limiter))


@dg.asset(kinds={"python"}, deps=[paired], pool="llm", **_PARTITIONED)  # type: ignore[arg-type]
def filtered(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Rules, then the plausibility judge; every rejection kept with its check and reason."""
    spec, ws, llm = settings.spec(), settings.workspace(), settings.llm()
    limiter = asyncio.Semaphore(llm.max_concurrency)  # shared by every domain of the run
    result = _run_domains(
        context, lambda d: stages.filter_stage(spec, inputs(), d, ws, llm, limiter)
    )
    figures = [
        json.loads((ws.root / "judge_agreement" / f"{d}.json").read_text())
        for d in context.partition_keys
    ]
    agreement = merge_agreement(figures)
    return dg.MaterializeResult(
        metadata={
            **(result.metadata or {}),
            "judge_agreement_rate": agreement["rate"],
            "judge_agreement": dg.MetadataValue.json(agreement),
        }
    )


@dg.asset(kinds={"python"}, deps=[filtered], group_name="release")
def release_candidate(settings: BuildSettings) -> dg.MaterializeResult:
    """All domains' kept traces and rejections, consolidated for the release gates."""
    report = stages.candidate_stage(settings.spec(), settings.workspace())
    return dg.MaterializeResult(
        metadata={"trajectories": report.written, "rejected": report.rejected, **report.details}
    )


class ReleaseConfig(dg.Config):
    out: str = ""
    """Release directory; empty: outputs/releases/<spec key>."""


@dg.asset(kinds={"duckdb"}, deps=[release_candidate], group_name="release")
def release(
    context: dg.AssetExecutionContext, config: ReleaseConfig, settings: BuildSettings
) -> dg.MaterializeResult:
    """The published release: DuckDB, ATBench JSON, Parquet, dataset card, manifest."""
    spec = settings.spec()
    out = Path(config.out) if config.out else settings.outputs_path() / "releases" / spec.key()
    summary = stages.publish_stage(spec, inputs(), settings.workspace(), out, settings.llm())
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
