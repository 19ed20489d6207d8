"""The Kubernetes configuration is valid as far as it can be checked without a cluster: the
definitions load with the k8s executor, and deploy/k8s/executor.yaml is valid run config of the
`build` job under dagster-k8s's executor schema (`dg.validate_run_config`)."""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import dagster as dg
import pytest
import yaml

from pipeline.core.build.engine import Engine
from pipeline.definitions import definitions_for
from tests.support.services import PROJECT

pytestmark = pytest.mark.distributed
EXECUTOR_CONFIG = PROJECT / "deploy" / "k8s" / "executor.yaml"


@pytest.fixture(scope="module")
def k8s_build() -> dg.JobDefinition:
    if importlib.util.find_spec("dagster_k8s") is None:
        message = "needs the k8s extra (pip install -e '.[k8s]'); .ci/run installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return definitions_for(Engine(executor="k8s")).resolve_job_def("build")


def run_config() -> dict[str, Any]:
    config: dict[str, Any] = yaml.safe_load(EXECUTOR_CONFIG.read_text())
    return config | {"ops": {"release": {"config": {"out": "/shared/outputs/release"}}}}


def test_the_build_job_runs_each_step_as_a_kubernetes_job(k8s_build: dg.JobDefinition) -> None:
    assert k8s_build.executor_def.name == "k8s"


def test_the_documented_executor_config_is_valid(k8s_build: dg.JobDefinition) -> None:
    dg.validate_run_config(k8s_build, run_config())


def test_a_misspelt_executor_field_is_refused(k8s_build: dg.JobDefinition) -> None:
    broken = run_config()
    broken["execution"]["config"]["max_concurent"] = 4
    with pytest.raises(dg.DagsterInvalidConfigError, match="max_concurent"):
        dg.validate_run_config(k8s_build, broken)
