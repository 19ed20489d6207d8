"""The builds several test modules share, each made once a session.

The default build is one small whole release through Dagster, for modules that need a
published release; the paired build is one domain's stage files up to pairing, for the
filter and judge tests. Both are read-only to their users: a test that changes a release or
a work folder copies it first (`DefaultBuild.copy_to`).
"""

from __future__ import annotations

import asyncio
import io
import shutil
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
from rich.console import Console

from pipeline.cli.build import run_build
from pipeline.core.build import stages
from pipeline.core.build.config import BuildConfig
from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.loading import Inputs
from pipeline.core.llm import LLMSettings
from pipeline.core.model.spec import ReleaseSpec

DOMAINS = ("ecommerce", "education_lms", "email_calendar")
"""The whole build is one Dagster run (as for any set of domains)."""
SIZE = 12


@dataclass(frozen=True)
class DefaultBuild:
    config: BuildConfig
    """What `run_build` was given, outputs folder included."""
    release: Path
    """The published release folder."""
    outputs: Path
    """The outputs folder: the work folder under builds/ and the response cache."""
    runs: int
    """Dagster runs the build took."""

    @property
    def domains(self) -> tuple[str, ...]:
        return DOMAINS

    def workspace(self) -> Workspace:
        return self.config.workspace()

    def copy_to(self, root: Path) -> DefaultBuild:
        """A private copy under `root` (release and outputs) that a test may change."""
        shutil.copytree(self.release, root / "release")
        shutil.copytree(self.outputs, root / "outputs", symlinks=True)
        copy = self.config.model_copy(update={"outputs": root / "outputs"})
        return DefaultBuild(copy, root / "release", root / "outputs", self.runs)


RUNS_FILE = "dagster-runs.txt"
"""Beside the release: how many Dagster runs the build took, for the workers that read it."""


def build_default(root: Path) -> None:
    """Build the default release under `root` on an ephemeral Dagster instance."""
    config = BuildConfig.load(size=SIZE, domains=DOMAINS, outputs=root / "outputs")
    instance = dg.DagsterInstance.ephemeral()
    run_build(config, root / "release", instance=instance, console=Console(file=io.StringIO()))
    (root / RUNS_FILE).write_text(str(len(instance.get_runs())), encoding="utf-8")


def read_default(root: Path) -> DefaultBuild:
    """The default build that `build_default` made under `root` (in this process or another)."""
    config = BuildConfig.load(size=SIZE, domains=DOMAINS, outputs=root / "outputs")
    runs = int((root / RUNS_FILE).read_text(encoding="utf-8"))
    return DefaultBuild(config, root / "release", root / "outputs", runs)


PAIRED_DOMAIN = "personal_banking"
PAIRED_SPEC = ReleaseSpec(
    size=32, domains=(PAIRED_DOMAIN,), long_context_share=0.4, long_html_share=0.3
)
"""12 pairs of one domain, with enough delayed triggers and long HTML to exercise every rule."""


def build_paired(outputs: Path, inputs: Inputs) -> None:
    """Plan, expand, inject and pair `PAIRED_SPEC` procedurally under `outputs`, without
    Dagster."""
    ws = paired_workspace(outputs)
    settings = LLMSettings()
    stages.plan_stage(PAIRED_SPEC, inputs, ws)
    for stage in (stages.expand_stage, stages.inject_stage, stages.pair_stage):
        asyncio.run(stage(PAIRED_SPEC, inputs, PAIRED_DOMAIN, ws, settings))


def paired_workspace(outputs: Path) -> Workspace:
    """The work folder of the paired build under `outputs`."""
    return Workspace.for_spec(PAIRED_SPEC, outputs)


def stand_in_config(size: int, domains: str, base_url: str) -> BuildConfig:
    """An openai build against a local stand-in server (`tests/support/chat_server.py`)."""
    return BuildConfig.load(
        size=size,
        domains=domains,
        backend="openai",
        model="fake-model",
        base_url=base_url,
        structured_output="json_schema",
    )


def in_process_release(root: Path, size: int, domains: tuple[str, ...]) -> bytes:
    """The atbench.json of the in-process build of `size` over `domains` under `root`: what a
    build on another engine (celery, a submitted run) must equal byte for byte."""
    config = BuildConfig.load(size=size, domains=",".join(domains), outputs=root / "outputs")
    out = root / "release"
    run_build(
        config, out, instance=dg.DagsterInstance.ephemeral(), console=Console(file=io.StringIO())
    )
    return (out / "atbench.json").read_bytes()
