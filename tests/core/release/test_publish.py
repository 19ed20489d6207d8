"""Publishing a release directory: contents, manifest integrity, versioning, all-or-nothing."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
import yaml

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.actions import parse_action
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release import publish as publish_module
from pipeline.core.release.atbench_format import PUBLIC_KEYS
from pipeline.core.release.publish import ReleaseSummary, publish_release
from pipeline.core.release.store import TABLES, load_trajectories
from tests.support.factories import make_ledger_rows, make_rejections, make_release


def _publish(out_dir: Path, trajectories: Any = None, **kwargs: Any) -> ReleaseSummary:
    return publish_release(
        make_release(6) if trajectories is None else trajectories,
        make_rejections(),
        make_ledger_rows(),
        out_dir,
        taxonomy=default_taxonomy(),
        config=kwargs.get("config", {"size": 12, "seed": 7}),
        backend=kwargs.get("backend", "procedural"),
        code_version="0.1.0+test",
    )


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _leftovers(parent: Path) -> list[str]:
    return sorted(p.name for p in parent.iterdir() if p.name.startswith("."))


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    return tmp_path / "releases" / "r1"


def test_publish_writes_the_release_layout(out_dir: Path) -> None:
    summary = _publish(out_dir)
    assert summary == ReleaseSummary(
        out_dir=out_dir,
        version=1,
        total=12,
        safe=6,
        unsafe=6,
        rejected=2,
        domains=("banking", "smart_home"),
    )
    for name in ("release.duckdb", "atbench.json", "trajectories.jsonl", "README.md"):
        assert (out_dir / name).is_file()
    assert {p.stem for p in (out_dir / "parquet").iterdir()} == set(TABLES)
    assert len(list((out_dir / "plots").glob("*.png"))) == 5
    assert _leftovers(out_dir.parent) == []


def test_manifest_digests_match_every_file(out_dir: Path) -> None:
    _publish(out_dir)
    manifest = json.loads((out_dir / "manifest.json").read_text())
    on_disk = {
        p.relative_to(out_dir).as_posix()
        for p in out_dir.rglob("*")
        if p.is_file() and p.name != "manifest.json"
    }
    assert set(manifest["files"]) == on_disk
    for name, entry in manifest["files"].items():
        data = (out_dir / name).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
    assert manifest["backend"] == "procedural"
    assert manifest["code_version"] == "0.1.0+test"
    assert manifest["config"] == {"size": 12, "seed": 7}
    assert manifest["counts"] == {"total": 12, "safe": 6, "unsafe": 6, "rejected": 2}


def test_atbench_json_rows_are_public_rows_ordered_by_id(out_dir: Path) -> None:
    _publish(out_dir)
    rows = json.loads((out_dir / "atbench.json").read_text(encoding="utf-8"))
    assert [row["id"] for row in rows] == list(range(12))
    for row in rows:
        assert tuple(row)[: len(PUBLIC_KEYS)] == PUBLIC_KEYS
        assert type(row["id"]) is int and row["label"] in (0, 1)
        for turn in (turn for episode in row["contents"] for turn in episode):
            if turn["role"] == "agent":
                parse_action(turn["action"])


def test_exports_agree_with_the_database(out_dir: Path) -> None:
    _publish(out_dir)
    from_db = load_trajectories(out_dir / "release.duckdb")
    lines = (out_dir / "trajectories.jsonl").read_text(encoding="utf-8").splitlines()
    assert [Trajectory.model_validate_json(line) for line in lines] == from_db
    rows = json.loads((out_dir / "atbench.json").read_text(encoding="utf-8"))
    assert [(row["pair_id"], row["label"]) for row in rows] == [
        (t.pair_id, int(t.verdict == "unsafe")) for t in from_db
    ]
    with duckdb.connect(str(out_dir / "release.duckdb"), read_only=True) as con:
        for table in TABLES:
            parquet = str(out_dir / "parquet" / f"{table}.parquet")
            from_parquet = con.execute("SELECT count(*) FROM read_parquet(?)", [parquet]).fetchall()
            assert from_parquet == con.execute(f"SELECT count(*) FROM {table}").fetchall()


def test_card_has_front_matter_statistics_and_plot_links(out_dir: Path) -> None:
    _publish(out_dir)
    card = (out_dir / "README.md").read_text(encoding="utf-8")
    _, front, body = card.split("---\n", 2)
    meta = yaml.safe_load(front)
    assert meta["license"] == "apache-2.0" and meta["size_categories"] == ["n<1K"]
    paths = [f["path"] for config in meta["configs"] for f in config["data_files"]]
    assert all((out_dir / path).is_file() for path in paths)
    assert "Built by the procedural backend" in body
    assert "| Trajectories | 12 |" in body
    plots = ("leaves_risk_source", "leaves_failure_mode", "domain_balance", "turn_lengths")
    for link in (f"plots/{name}.png" for name in plots):
        assert f"]({link})" in body and (out_dir / link).is_file()


def test_card_omits_the_procedural_warning_for_llm_releases(out_dir: Path) -> None:
    llm_built = [
        t.model_copy(update={"provenance": t.provenance.model_copy(update={"backend": "openai"})})
        for t in make_release(2)
    ]
    _publish(out_dir, llm_built, backend="openai")
    assert "procedural backend" not in (out_dir / "README.md").read_text(encoding="utf-8")


def test_publishing_over_a_release_bumps_the_version(out_dir: Path) -> None:
    assert _publish(out_dir).version == 1
    assert _publish(out_dir, make_release(3)).version == 2
    manifest = json.loads((out_dir / "manifest.json").read_text())
    assert manifest["version"] == 2 and manifest["counts"]["total"] == 6
    assert _leftovers(out_dir.parent) == []


def _failing_iteration() -> Iterator[Trajectory]:
    yield from make_release(2)
    raise RuntimeError("stage file vanished mid-read")


def test_failure_while_reading_inputs_leaves_previous_release_untouched(out_dir: Path) -> None:
    _publish(out_dir)
    before = _snapshot(out_dir)
    with pytest.raises(RuntimeError, match="vanished"):
        _publish(out_dir, _failing_iteration())
    assert _snapshot(out_dir) == before
    assert _leftovers(out_dir.parent) == []


def test_failure_after_heavy_writes_leaves_previous_release_untouched(
    out_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _publish(out_dir)
    before = _snapshot(out_dir)

    def broken_card(*args: Any, **kwargs: Any) -> Path:
        raise OSError("disk full while rendering the card")

    monkeypatch.setattr(publish_module, "write_dataset_card", broken_card)
    with pytest.raises(OSError, match="disk full"):
        _publish(out_dir, make_release(4))
    assert _snapshot(out_dir) == before
    assert _leftovers(out_dir.parent) == []


def test_failure_on_first_publish_leaves_nothing(out_dir: Path) -> None:
    with pytest.raises(RuntimeError):
        _publish(out_dir, _failing_iteration())
    assert not out_dir.exists() and _leftovers(out_dir.parent) == []


def test_non_json_config_fails_before_writing(out_dir: Path) -> None:
    with pytest.raises(TypeError):
        _publish(out_dir, config={"out": Path("/tmp")})
    assert not out_dir.exists() and _leftovers(out_dir.parent) == []


def test_refuses_to_replace_a_directory_that_is_not_a_release(out_dir: Path) -> None:
    out_dir.mkdir(parents=True)
    (out_dir / "notes.txt").write_text("mine")
    with pytest.raises(AtbenchError, match="not a release"):
        _publish(out_dir)
    assert (out_dir / "notes.txt").read_text() == "mine"


def test_empty_directory_becomes_version_one(out_dir: Path) -> None:
    out_dir.mkdir(parents=True)
    assert _publish(out_dir).version == 1
