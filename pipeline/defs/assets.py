"""The release assets: the consolidated candidate the gates check, and the release itself,
the one DuckDB writer. Construction is `pipeline.defs.construction`."""

from pathlib import Path

import dagster as dg

from pipeline.core.build import regen, stages
from pipeline.core.model.progress import report as progress
from pipeline.defs.construction import CODE_VERSION, constructed, filtered
from pipeline.defs.resources import BuildSettings, inputs


class CandidateConfig(dg.Config):
    regenerate_from: str = ""
    """A published release whose `domain` this build rebuilt; empty: a whole new release."""
    domain: str = ""


@dg.asset(
    kinds={"python"}, deps=[constructed, filtered], group_name="release", code_version=CODE_VERSION
)
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
        report = stages.candidate_stage(build.spec(), inputs(), build.workspace(), build.llm())
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
