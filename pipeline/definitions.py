"""The Definitions: assets, checks, jobs and resources, with the executor chosen here.

Steps run in-process by default: a build is CPU-light glue around concurrent LLM calls, and on
a 2-core machine a process per step costs more than it buys. Set `ATBENCH_EXECUTOR=multiprocess`
(or configure a celery/k8s executor in dagster.yaml) to spread domains across processes.
"""

import os

import dagster as dg

from pipeline.defs import assets, checks
from pipeline.defs.jobs import build
from pipeline.defs.resources import BuildSettings

_EXECUTORS = {"in_process": dg.in_process_executor, "multiprocess": dg.multiprocess_executor}

defs = dg.Definitions(
    assets=dg.load_assets_from_modules([assets]),
    asset_checks=dg.load_asset_checks_from_modules([checks]),
    jobs=[build],
    resources={"settings": BuildSettings()},
    executor=_EXECUTORS[os.environ.get("ATBENCH_EXECUTOR", "in_process")],
)
