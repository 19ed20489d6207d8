"""The Definitions: assets, checks, jobs and resources, with the executor chosen here.

Steps run in-process by default: a build is CPU-light glue around concurrent LLM calls, and on
a 2-core machine a process per step costs more than it buys. `ATBENCH_EXECUTOR` switches to
`multiprocess`, `celery` (the `distributed` extra; broker from `ATBENCH_CELERY_BROKER`) or
`k8s` (the `k8s` extra; a Job per step, configured by the run config or the instance). Every
process that loads these definitions reads the same variable; see docs/scaling.md.
"""

import warnings

import dagster as dg

from pipeline.core.build.engine import Engine
from pipeline.defs import assets, checks, construction
from pipeline.defs.jobs import build
from pipeline.defs.resources import BuildSettings


def _executor(engine: Engine) -> dg.ExecutorDefinition:
    if engine.executor == "celery":
        from dagster_celery import celery_executor

        # dagster-celery registers its step task again for every step it submits.
        warnings.filterwarnings("ignore", message="Task name 'execute_plan' is already registered")

        # Typed here: without the extra installed, mypy sees the integrations as Any.
        celery: dg.ExecutorDefinition = celery_executor.configured(
            {"broker": engine.celery_broker, "backend": engine.result_backend},
            name="celery",
        )
        return celery
    if engine.executor == "k8s":
        from dagster_k8s import k8s_job_executor

        k8s: dg.ExecutorDefinition = k8s_job_executor
        return k8s
    return dg.multiprocess_executor if engine.executor == "multiprocess" else dg.in_process_executor


def definitions_for(engine: Engine) -> dg.Definitions:
    """The project's definitions, running steps on `engine`'s executor."""
    return dg.Definitions(
        assets=[*dg.load_assets_from_modules([construction, assets]), *construction.STAGE_ASSETS],
        asset_checks=dg.load_asset_checks_from_modules([checks]),
        jobs=[build],
        resources={"settings": BuildSettings()},
        executor=_executor(engine),
    )


defs = definitions_for(Engine.load())


def build_job() -> dg.JobDefinition:
    """The `build` job, as a reconstructable target: out-of-process executors rebuild it in
    every process that runs a step (`dg.reconstructable(build_job)`)."""
    return defs.resolve_job_def("build")
