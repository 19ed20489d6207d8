"""The construction stages as per-domain assets, and the release as the one DuckDB writer.

Partitioned assets use a single-run backfill policy: a run over a range of domains handles
them all in one process, so a whole build does not pay one process start per step; on a
distributed executor each partition can still run on its own worker.
"""

from collections.abc import Callable
from pathlib import Path

import dagster as dg

from pipeline.core import stages
from pipeline.core.stages import StageReport
from pipeline.defs.resources import BuildSettings, inputs
from pipeline.partitions import domain_partitions

_PARTITIONED = {
    "partitions_def": domain_partitions,
    "backfill_policy": dg.BackfillPolicy.single_run(),
    "group_name": "construction",
}


def _run_domains(
    context: dg.AssetExecutionContext, stage: Callable[[str], StageReport]
) -> dg.MaterializeResult:
    reports = []
    for domain in context.partition_keys:
        report = stage(domain)
        context.log.info(
            f"{report.stage} {domain}: {report.written} written, {report.rejected} rejected"
        )
        reports.append(report)
    return dg.MaterializeResult(
        metadata={
            "domains": len(reports),
            "written": sum(r.written for r in reports),
            "rejected": sum(r.rejected for r in reports),
            "per_domain": dg.MetadataValue.json(
                {
                    r.domain: {"written": r.written, "rejected": r.rejected, **r.details}
                    for r in reports
                }
            ),
        }
    )


@dg.asset(kinds={"python"}, **_PARTITIONED)  # type: ignore[arg-type]
def blueprints(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Coverage-controlled plan: one blueprint per pair (taxonomy slice, tools, triggers)."""
    spec, ws = settings.spec(), settings.workspace()
    return _run_domains(context, lambda d: stages.plan_stage(spec, inputs(), d, ws))


@dg.asset(kinds={"python"}, deps=[blueprints], pool="llm", **_PARTITIONED)  # type: ignore[arg-type]
def skeletons(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Safe expansion: each blueprint executed step by step into a benign trace."""
    spec, ws, llm = settings.spec(), settings.workspace(), settings.llm()
    return _run_domains(context, lambda d: stages.expand_stage(spec, inputs(), d, ws, llm))


@dg.asset(kinds={"python"}, deps=[skeletons], pool="llm", **_PARTITIONED)  # type: ignore[arg-type]
def injected(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Risk injection: the sampled risk source planted at 1-3 trigger points."""
    spec, ws, llm = settings.spec(), settings.workspace(), settings.llm()
    return _run_domains(context, lambda d: stages.inject_stage(spec, inputs(), d, ws, llm))


@dg.asset(kinds={"python"}, deps=[injected], pool="llm", **_PARTITIONED)  # type: ignore[arg-type]
def paired(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Paired variants: unsafe and safe twins sharing the prefix up to divergence."""
    spec, ws, llm = settings.spec(), settings.workspace(), settings.llm()
    return _run_domains(context, lambda d: stages.pair_stage(spec, inputs(), d, ws, llm))


@dg.asset(kinds={"python"}, deps=[paired], **_PARTITIONED)  # type: ignore[arg-type]
def filtered(context: dg.AssetExecutionContext, settings: BuildSettings) -> dg.MaterializeResult:
    """Rule-based filtering; every rejection kept with its rule and reason."""
    ws = settings.workspace()
    return _run_domains(context, lambda d: stages.filter_stage(inputs(), d, ws))


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
