"""Planning, and the per-domain construction stages as one run's fan-out over its domains.

The four stages (`skeletons`, `injected`, `paired`, `filtered`) are assets partitioned by
domain: the unit of work, of regeneration, and of what the UI shows. Their work is done by
the graph-backed asset `constructed`, not by one op per asset, because a Dagster run of
partitioned assets targets one partition key or one contiguous range of them
(dagster-io/dagster#32335): `--domains a,c` would be two runs. `constructed` is one run over
any set of domains: its `wave` op fans out over the run's domains (`BuildSettings.wave`),
a chain of one op per stage follows for each branch, and each op reports its stage's
materialisation for every domain it built, with that domain's own figures. So the stage
assets are specs (Dagster does not execute them itself) whose partitions are materialised by
`constructed`.

On an executor that runs steps side by side (multiprocess, celery, k8s) each domain is its
own branch, so workers build domains in parallel. The in-process executor runs one step at a
time, so there one branch holds every domain of the run and runs them in one event loop: a
model's latency is paid once per wave on every executor.
"""

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import dagster as dg

from pipeline import __version__
from pipeline.core.build import parallel, stages
from pipeline.core.build.engine import Engine
from pipeline.core.build.workspace import StageReport, Workspace
from pipeline.core.inputs.loading import Inputs
from pipeline.core.llm import LLMSettings
from pipeline.core.model.progress import report as progress
from pipeline.core.model.spec import ReleaseSpec
from pipeline.defs.resources import BuildSettings, inputs
from pipeline.partitions import domain_partitions

LLMStage = Callable[
    [ReleaseSpec, Inputs, str, Workspace, LLMSettings, asyncio.Semaphore],
    Awaitable[StageReport],
]
"""A construction stage that asks the LLM layer, over one domain (`pipeline.core.build.stages`)."""

CODE_VERSION = __version__
"""Stages change with the package; a new version marks every materialisation stale."""

EVERY_DOMAIN = "every_domain"
"""The mapping key of the one branch an in-process run has."""


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


def _figures(report: StageReport) -> dict[str, Any]:
    """One domain's materialisation metadata: its counts, its stage details, its LLM calls."""
    details = dict(report.details)
    ledger: dict[str, Any] = details.pop("llm", {})
    return {
        "written": report.written,
        "rejected": report.rejected,
        **details,
        **{f"llm_{key}": value for key, value in ledger.items()},
    }


def stage_op(asset: dg.AssetSpec, stage: LLMStage) -> dg.OpDefinition:
    """The op of one stage over a branch's domains, named as its asset: they run at once in one
    event loop, sharing one bound on requests in flight (over forked processes, one per core, for
    the CPU-bound procedural backend), in the `llm` concurrency pool; each
    domain's result is reported as `asset`'s materialisation of that domain's partition."""

    @dg.op(
        name=asset.key.to_user_string(),
        ins={"after": dg.In(dg.Nothing)},
        out=dg.Out(dg.Nothing),
        pool="llm",
        description=asset.description,
    )
    def run_stage(context: dg.OpExecutionContext, settings: BuildSettings) -> None:
        progress().start(asset.key.to_user_string())
        domains = branch_domains(settings, context.get_mapping_key())
        config = settings.config()
        spec, ws, llm = config.spec(), config.workspace(), config.llm()
        limiter = asyncio.Semaphore(llm.max_concurrency)
        reports = parallel.run_domains(
            domains,
            lambda d: stage(spec, inputs(), d, ws, llm, limiter),
            processes=parallel.processes_for(llm.backend),
            weights={d: float(ws.stage_file("plan", d).stat().st_size) for d in domains},
        )
        # One log line per step, not per domain (each is an event-log write); each domain's
        # figures are on its materialisation below.
        written, rejected = sum(r.written for r in reports), sum(r.rejected for r in reports)
        context.log.info(
            f"{asset.key.to_user_string()}: {len(reports)} domains, "
            f"{written} written, {rejected} rejected"
        )
        for report in reports:
            context.log_event(
                dg.AssetMaterialization(
                    asset.key, partition=report.domain, metadata=_figures(report)
                )
            )

    return run_stage


def stage_spec(name: str, after: str, description: str) -> dg.AssetSpec:
    return dg.AssetSpec(
        name,
        description=description,
        deps=[after],
        partitions_def=domain_partitions,
        group_name="construction",
        kinds={"python"},
        code_version=CODE_VERSION,
    )


skeletons = stage_spec(
    "skeletons",
    "blueprints",
    "Safe expansion: each blueprint executed step by step into a benign trace.",
)
injected = stage_spec(
    "injected",
    "skeletons",
    "Risk injection: the sampled risk source planted at 1-3 trigger points.",
)
paired = stage_spec(
    "paired",
    "injected",
    "Paired variants: unsafe and safe twins sharing the prefix up to divergence.",
)
filtered = stage_spec(
    "filtered",
    "paired",
    "Rules, then the plausibility judge; every rejection kept with its reason.",
)
STAGE_ASSETS = (skeletons, injected, paired, filtered)
"""Specs, so the Definitions list them (`load_assets_from_modules` takes executable assets)."""
expand = stage_op(skeletons, stages.expand_stage)
inject = stage_op(injected, stages.inject_stage)
pair = stage_op(paired, stages.pair_stage)
filter_ = stage_op(filtered, stages.filter_stage)


def branch_domains(settings: BuildSettings, mapping_key: str | None) -> tuple[str, ...]:
    """The domains of the branch `mapping_key`: the domain it is named after, or all of them."""
    if mapping_key is None or mapping_key == EVERY_DOMAIN:
        return settings.wave_domains()
    return (mapping_key,)


@dg.op(ins={"blueprints": dg.In(dg.Nothing)}, out=dg.DynamicOut(dg.Nothing))
def wave(settings: BuildSettings) -> Iterator[dg.DynamicOutput[None]]:
    """The run's domains as branches: one per domain, or one for all of them in-process. A
    branch is named by its mapping key, so no value passes between steps (nothing for an IO
    manager to store where every worker can read it)."""
    domains = settings.wave_domains()
    keys = [EVERY_DOMAIN] if Engine.load().executor == "in_process" else list(domains)
    for key in keys:
        yield dg.DynamicOutput(None, mapping_key=key)


@dg.graph
def branch(after: Any) -> Any:
    """One branch's domains through the four stages, in order."""
    return filter_(after=pair(after=inject(after=expand(after=after))))


@dg.op(ins={"branches": dg.In(dg.Nothing)}, out=dg.Out(dg.Nothing))
def gathered(context: dg.OpExecutionContext, settings: BuildSettings) -> None:
    """Every branch done: the run's domains are constructed."""
    context.add_output_metadata({"domains": dg.MetadataValue.json(list(settings.wave_domains()))})


@dg.graph_asset(
    ins={"blueprints": dg.AssetIn(dagster_type=dg.Nothing)},
    kinds={"python"},
    group_name="construction",
    code_version=CODE_VERSION,
)
def constructed(blueprints: Any) -> Any:
    """The run's domains taken through the four construction stages, a branch per domain
    (see the module docstring); materialises their partitions of the stage assets."""
    return gathered(branches=wave(blueprints).map(branch).collect())
