"""End to end through Dagster: one partition on an ephemeral instance, and a small release."""

import json
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from pipeline.cli.build import run_build
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.trajectory import Provenance, Trajectory
from pipeline.core.release.atbench_format import from_atbench_row, public_view
from pipeline.core.release.store import load_trajectories
from pipeline.defs.assets import blueprints, filtered, injected, paired, skeletons
from pipeline.defs.resources import BuildSettings

DOMAINS = "email_calendar,personal_banking"


@pytest.fixture
def outputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ATBENCH_OUTPUTS", str(tmp_path / "outputs"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "dagster"))
    return tmp_path / "outputs"


def test_one_partition_materialises_on_an_ephemeral_instance(outputs: Path) -> None:
    settings = BuildSettings(size=8, domains=DOMAINS, outputs=str(outputs))
    result = dg.materialize(
        [blueprints, skeletons, injected, paired, filtered],
        instance=dg.DagsterInstance.ephemeral(),
        resources={"settings": settings},
        partition_key="personal_banking",
    )
    assert result.success
    kept = settings.workspace().read("filtered", "personal_banking", Trajectory)
    assert kept and {t.domain for t in kept} == {"personal_banking"}
    assert not settings.workspace().stage_file("filtered", "email_calendar").exists()


def test_small_release_round_trips(outputs: Path) -> None:
    out = outputs / "release"
    summary = run_build({"size": 16, "domains": DOMAINS, "outputs": str(outputs)}, out)
    assert summary["total"] > 0 and summary["unsafe"] > 0
    for name in ("release.duckdb", "atbench.json", "README.md", "manifest.json"):
        assert (out / name).exists(), name

    manifest = json.loads((out / "manifest.json").read_text())
    incompatible = manifest["config"]["plan_incompatibilities"]
    assert incompatible and all(i["domain"] in DOMAINS and i["reason"] for i in incompatible)

    stored = load_trajectories(out / "release.duckdb")
    assert {t.domain for t in stored} == set(DOMAINS.split(","))
    pairs: dict[str, set[str]] = {}
    for t in stored:
        pairs.setdefault(t.pair_id, set()).add(t.variant)
    assert any(variants == {"safe", "unsafe"} for variants in pairs.values())

    with duckdb.connect(str(out / "release.duckdb"), read_only=True) as db:
        rows = db.execute("select count(*), count(distinct domain) from trajectories").fetchone()
    assert rows == (len(stored), 2)

    by_uid = {t.id: t for t in stored}
    provenance = Provenance(release_seed=0, config_hash="import", backend="imported:atbench")
    for row in json.loads((out / "atbench.json").read_text()):
        back = from_atbench_row(row, taxonomy=default_taxonomy(), provenance=provenance)
        assert public_view(back) == public_view(by_uid[back.id])


def test_bad_domain_is_refused_before_anything_runs(outputs: Path) -> None:
    from pipeline.core.model.errors import AtbenchError

    with pytest.raises(AtbenchError, match="unknown domains"):
        run_build({"domains": "atlantis"}, outputs / "release")
    assert not (outputs / "release").exists()
