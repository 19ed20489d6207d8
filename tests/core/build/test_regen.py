"""Regenerating one domain: every other domain's rows stay exactly as they were, the domain is
rebuilt from the current seeds, the version follows the source, and the Dagster route (the
domain's partition of each stage, then the release) publishes the same rows."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
import pytest
from rich.console import Console

from pipeline.cli.build import run_build, run_regen
from pipeline.core.build.config import BuildConfig
from pipeline.core.build.regen import check_domain, read_source_release, regen_candidate
from pipeline.core.build.stages import publish_stage
from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.files import read_jsonl, write_jsonl_atomic
from pipeline.core.inputs.paths import project_root
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import AtbenchError, InputError
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.publish import publish_release
from pipeline.core.release.store import load_trajectories
from pipeline.defs.resources import inputs
from tests.support.builds import DOMAINS, DefaultBuild
from tests.support.factories import make_ledger_rows, make_rejections, make_release
from tests.support.inputs import repository_inputs
from tests.support.releases import relist_files

REGEN = "email_calendar"
OTHERS = tuple(d for d in DOMAINS if d != REGEN)
EDIT = ("email and calendar assistant for", "inbox and diary concierge for")
"""The seed edit that makes the regenerated domain differ: the agent's profile."""

# Table -> how to select one domain's rows; tables keyed by uid join trajectories for it.
_BY_DOMAIN = {
    "trajectories": "SELECT * FROM trajectories WHERE domain IN ? ORDER BY ALL",
    "turns": "SELECT x.* FROM turns x JOIN trajectories USING (uid) WHERE domain IN ? ORDER BY ALL",
    "risk_points": "SELECT x.* FROM risk_points x JOIN trajectories USING (uid) "
    "WHERE domain IN ? ORDER BY ALL",
    "trajectory_tools": "SELECT x.* FROM trajectory_tools x JOIN trajectories USING (uid) "
    "WHERE domain IN ? ORDER BY ALL",
    "pairs": "SELECT * FROM pairs WHERE domain IN ? ORDER BY ALL",
    "rejections": "SELECT * FROM rejections WHERE domain IN ? ORDER BY ALL",
    "llm_calls": "SELECT * FROM llm_calls WHERE domain IN ? ORDER BY ALL",
}


def _quiet() -> Console:
    return Console(file=io.StringIO())


def _rows(release: Path, table: str, domains: tuple[str, ...]) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(release / "release.duckdb"), read_only=True) as db:
        return db.execute(_BY_DOMAIN[table], [list(domains)]).fetchall()


def _public_rows(release: Path, domains: tuple[str, ...]) -> dict[tuple[str, int], Any]:
    rows = json.loads((release / "atbench.json").read_text(encoding="utf-8"))
    return {(r["pair_id"], r["label"]): r for r in rows if r["domain"] in domains}


@pytest.fixture(scope="module")
def source(build_root: Path, default_build: DefaultBuild) -> Path:
    """Version 1: the default release, with its work folder copied into this module's outputs
    so that rebuilding one domain here finds the other domains' stage files."""
    return default_build.copy_to(build_root).release


@pytest.fixture(scope="module")
def edited_seed(build_root: Path, source: Path) -> Iterator[None]:
    """After v1 is built: a project root whose regenerated domain's seed has a new profile."""
    root = build_root / "project"
    for name in ("tool_pool", "taxonomy", "templates"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).symlink_to(project_root() / name)
    shutil.copytree(project_root() / "seeds", root / "seeds")
    seed = root / "seeds" / f"{REGEN}.yaml"
    seed.write_text(seed.read_text(encoding="utf-8").replace(*EDIT), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ATBENCH_ROOT", str(root))
        inputs.cache_clear()
        yield
    inputs.cache_clear()


@pytest.fixture(scope="module")
def regenerated(build_root: Path, source: Path, edited_seed: None) -> Path:
    out = build_root / "v2"
    config = BuildConfig.for_spec(read_source_release(source).spec)
    instance = dg.DagsterInstance.ephemeral()
    run_regen(config, source, REGEN, out, console=_quiet(), instance=instance)
    assert len(instance.get_runs()) == 1  # rebuild, gate and publish in one run
    rebuilt = instance.get_materialized_partitions(dg.AssetKey("filtered"))
    assert rebuilt == {REGEN}  # the domain's partition, and no other
    return out


def test_version_continues_from_the_source(source: Path, regenerated: Path) -> None:
    manifest = json.loads((regenerated / "manifest.json").read_text())
    assert manifest["version"] == 2
    assert (
        manifest["config"]["spec"]
        == json.loads((source / "manifest.json").read_text())["config"]["spec"]
    )
    assert [r["domain"] for r in manifest["config"]["regenerations"]] == [REGEN]


@pytest.mark.parametrize("table", sorted(_BY_DOMAIN))
def test_other_domains_rows_are_identical_in_the_database(
    source: Path, regenerated: Path, table: str
) -> None:
    before = _rows(source, table, OTHERS)
    assert _rows(regenerated, table, OTHERS) == before
    if table not in ("rejections", "risk_points"):
        assert before, f"no {table} rows to compare"


def test_other_domains_rows_are_identical_in_atbench_json(source: Path, regenerated: Path) -> None:
    before = _public_rows(source, OTHERS)
    assert before and _public_rows(regenerated, OTHERS) == before


def test_regenerated_domain_is_rebuilt_from_the_current_seed(
    source: Path, regenerated: Path
) -> None:
    old = {t.id: t for t in load_trajectories(source / "release.duckdb") if t.domain == REGEN}
    new = {t.id: t for t in load_trajectories(regenerated / "release.duckdb") if t.domain == REGEN}
    # The same share of pairs; which survivors fill it may differ, since the content (and so
    # a tag such as long_html, which selection balances) is written anew.
    assert len(new) == len(old) and new
    assert sorted(t.id for t in new.values()) == sorted(
        f"{t.pair_id}-{variant}"
        for t in new.values()
        if t.variant == "unsafe"
        for variant in ("safe", "unsafe")
    )
    assert all(EDIT[0] in t.profile for t in old.values())
    assert all(EDIT[1] in t.profile and EDIT[0] not in t.profile for t in new.values())


def test_dagster_partition_route_publishes_the_same_other_rows_and_share(
    build_root: Path, source: Path, regenerated: Path
) -> None:
    """Materialising the domain's partition of each stage, then `release`, from the build's
    own work folder gives the other domains' rows and the domain's share `regen` gave (this
    time from the response cache)."""
    spec = read_source_release(source).spec
    out = build_root / "v2-dagster"
    run_build(
        BuildConfig.for_spec(spec),
        out,
        partitions=[REGEN],
        instance=dg.DagsterInstance.ephemeral(),
        console=_quiet(),
    )
    for table in ("trajectories", "turns"):
        assert _rows(out, table, OTHERS) == _rows(regenerated, table, OTHERS)
    # `regen` selects the domain's share among its own pairs; the `release` asset selects
    # across every domain, so it may fill the same share with other survivors.
    assert len(_rows(out, "trajectories", (REGEN,))) == len(
        _rows(regenerated, "trajectories", (REGEN,))
    )
    assert _rows(out, "rejections", DOMAINS) == _rows(regenerated, "rejections", DOMAINS)


def test_regen_in_place_replaces_the_release(
    build_root: Path, source: Path, regenerated: Path
) -> None:
    target = build_root / "in-place" / "release"
    shutil.copytree(source, target)
    config = BuildConfig.for_spec(read_source_release(source).spec)
    summary = run_regen(
        config, target, REGEN, target, console=_quiet(), instance=dg.DagsterInstance.ephemeral()
    )
    assert summary["version"] == 2
    assert json.loads((target / "manifest.json").read_text())["version"] == 2
    assert _rows(target, "trajectories", OTHERS) == _rows(source, "trajectories", OTHERS)
    assert sorted(p.name for p in target.parent.iterdir()) == ["release"]


def test_a_failing_gate_publishes_nothing(build_root: Path, source: Path) -> None:
    """The regenerated release passes the same blocking gates as a build: here it fails them
    once every other domain's unsafe rows are gone from the source."""
    broken = build_root / "unbalanced"
    shutil.copytree(source, broken)
    with duckdb.connect(str(broken / "release.duckdb")) as db:
        db.execute("DELETE FROM trajectories WHERE variant = 'unsafe' AND domain <> ?", [REGEN])
    relist_files(broken)
    before = sorted(p.name for p in broken.iterdir())
    config = BuildConfig.for_spec(read_source_release(broken).spec)
    with pytest.raises(AtbenchError, match=r"release gate '\w+' failed"):
        run_regen(
            config, broken, REGEN, broken, console=_quiet(), instance=dg.DagsterInstance.ephemeral()
        )
    assert sorted(p.name for p in broken.iterdir()) == before


def test_a_domain_outside_the_release_is_refused_before_rebuilding(source: Path) -> None:
    with pytest.raises(InputError, match="not in this release"):
        check_domain(read_source_release(source), "healthcare_records")


def test_a_release_without_a_build_spec_is_refused(tmp_path: Path) -> None:
    release = tmp_path / "imported"
    release.mkdir()
    (release / "release.duckdb").touch()
    (release / "manifest.json").write_text(
        json.dumps({"version": 1, "backend": "imported:rjudge", "config": {"import": {}}})
    )
    with pytest.raises(InputError, match="not built by `atbench build`"):
        read_source_release(release)


def _regenerated_smart_home(tmp_path: Path, **config: Any) -> tuple[Path, Workspace]:
    """Without Dagster: a source release (rejections and ledger rows all in `banking`), and a
    hand-made work folder standing in for the rebuilt `smart_home`, made into a candidate."""
    spec = ReleaseSpec(size=12, domains=("banking", "smart_home"))
    built = make_release(6, domains=spec.domains)  # three pairs per domain
    source = tmp_path / "v1"
    publish_release(
        built,
        make_rejections(),
        make_ledger_rows(),
        source,
        taxonomy=default_taxonomy(),
        config={"spec": spec.model_dump(mode="json"), **config},
        backend="procedural",
        code_version="test",
    )
    ws = Workspace(tmp_path / "work")
    write_jsonl_atomic(
        ws.stage_file("filtered", "smart_home"), [t for t in built if t.domain == "smart_home"]
    )
    regen_candidate(source, "smart_home", ws)
    return source, ws


def test_rejections_and_ledger_rows_of_other_domains_are_copied(tmp_path: Path) -> None:
    source, ws = _regenerated_smart_home(tmp_path)
    out = tmp_path / "v2"
    summary = publish_stage(repository_inputs(), ws, out)
    assert summary.version == 2
    for table in ("rejections", "llm_calls", "trajectories"):
        before = _rows(source, table, ("banking",))
        assert before and _rows(out, table, ("banking",)) == before
    assert _rows(out, "trajectories", ("smart_home",)) == _rows(
        source, "trajectories", ("smart_home",)
    )


def test_the_rebuilt_domain_is_cut_to_the_share_the_source_selected(tmp_path: Path) -> None:
    """Its build over-plans like any; the regenerated release keeps the domain's share."""
    selection = {"per_domain": {"smart_home": {"planned": 4, "survived": 3, "selected": 2}}}
    _, ws = _regenerated_smart_home(tmp_path, selection=selection)
    candidate = read_jsonl(ws.candidate_trajectories_file, Trajectory)
    pairs = {t.pair_id for t in candidate if t.domain == "smart_home"}
    assert len(pairs) == 2
    assert sum(t.domain == "smart_home" for t in candidate) == 4
    regenerated = json.loads(ws.candidate_release_file.read_text())["config"]["regenerations"]
    assert [d["domain"] for d in regenerated[-1]["selection"]["dropped"]] == ["smart_home"]
