"""End to end through Dagster: one domain on an ephemeral instance, and a small release."""

import json
from pathlib import Path

import dagster as dg
import duckdb
import pytest
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.trajectory import Provenance, Trajectory
from pipeline.core.release.atbench_format import from_atbench_row, public_view
from pipeline.core.release.store import load_trajectories
from pipeline.defs.construction import STAGE_ASSETS, blueprints, constructed
from pipeline.defs.resources import BuildSettings
from tests.support.builds import DefaultBuild

DOMAINS = "email_calendar,personal_banking"


@pytest.fixture
def outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ATBENCH_OUTPUTS", str(tmp_path / "outputs"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    return tmp_path / "outputs"


def test_one_partition_materialises_on_an_ephemeral_instance(outputs: Path) -> None:
    settings = BuildSettings(size=8, domains=DOMAINS, outputs=str(outputs), wave="personal_banking")
    instance = dg.DagsterInstance.ephemeral()
    result = dg.materialize(
        [blueprints, constructed, *STAGE_ASSETS],
        instance=instance,
        resources={"settings": settings},
    )
    assert result.success
    for stage in STAGE_ASSETS:
        assert instance.get_materialized_partitions(stage.key) == {"personal_banking"}
    kept = settings.config().workspace().read("filtered", "personal_banking", Trajectory)
    assert kept and {t.domain for t in kept} == {"personal_banking"}
    assert not settings.config().workspace().stage_file("filtered", "email_calendar").exists()


def test_the_default_release_round_trips(default_build: DefaultBuild) -> None:
    assert default_build.runs == 1  # plan, construct, gate and publish in one Dagster run
    out = default_build.release
    for name in ("release.duckdb", "atbench.json", "README.md", "manifest.json"):
        assert (out / name).exists(), name

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["total"] > 0 and manifest["counts"]["unsafe"] > 0
    incompatible = manifest["config"]["plan_incompatibilities"]
    assert incompatible and all(
        i["domain"] in default_build.domains and i["reason"] for i in incompatible
    )

    stored = load_trajectories(out / "release.duckdb")
    assert {t.domain for t in stored} == set(default_build.domains)
    pairs: dict[str, set[str]] = {}
    for t in stored:
        pairs.setdefault(t.pair_id, set()).add(t.variant)
    assert any(variants == {"safe", "unsafe"} for variants in pairs.values())

    with duckdb.connect(str(out / "release.duckdb"), read_only=True) as db:
        rows = db.execute("select count(*), count(distinct domain) from trajectories").fetchone()
    assert rows == (len(stored), len(default_build.domains))

    by_uid = {t.id: t for t in stored}
    provenance = Provenance(release_seed=0, config_hash="import", backend="imported:atbench")
    for row in json.loads((out / "atbench.json").read_text()):
        back = from_atbench_row(row, taxonomy=default_taxonomy(), provenance=provenance)
        assert public_view(back) == public_view(by_uid[back.id])


def test_bad_domain_is_refused_before_anything_runs(outputs: Path) -> None:
    result = CliRunner().invoke(app, ["build", "--domains", "atlantis", "--out", str(outputs)])
    assert isinstance(result.exception, AtbenchError)
    assert "--domains: unknown domains 'atlantis'" in str(result.exception)
    assert not outputs.exists()
