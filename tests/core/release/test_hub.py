"""Every config a release card lists loads with `datasets.load_dataset(release_dir, name)`,
for a built release and an imported one, with `label` as a class label; and the card of an
imported release says what was imported instead of what a build would have done."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.release.importers import import_benchmark
from pipeline.core.release.publish import publish_release
from tests.support.builds import DefaultBuild
from tests.support.factories import make_ledger_rows, make_rejections, make_release
from tests.support.paths import RJUDGE_SAMPLE as SAMPLE

datasets = pytest.importorskip("datasets")


@pytest.fixture(scope="module", autouse=True)
def offline() -> Iterator[None]:
    """`datasets` never looks for a hub (each load gets its own cache folder under tmp)."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("HF_HUB_OFFLINE", "1")
        env.setenv("HF_DATASETS_OFFLINE", "1")
        yield


def load(release: Path, cache: Path, name: str = "default") -> Any:
    return datasets.load_dataset(str(release), name, split="test", cache_dir=str(cache / name))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("built") / "release"
    publish_release(
        make_release(6),
        make_rejections(),
        make_ledger_rows(),
        out,
        taxonomy=default_taxonomy(),
        config={"spec": {"size": 12}},
        backend="procedural",
        code_version="0.1.0+test",
    )
    return out


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("imported") / "release"
    import_benchmark(SAMPLE, "rjudge", out, taxonomy=default_taxonomy())
    return out


def front_matter(release: Path) -> dict[str, Any]:
    card = (release / "README.md").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(card.split("---\n")[1])
    return data


@pytest.fixture
def default_release(default_build: DefaultBuild) -> Path:
    """A release built by the pipeline itself, through Dagster."""
    return default_build.release


@pytest.mark.parametrize("which", ["built", "default_release", "imported"])
def test_every_config_loads_with_label_as_a_class_label(
    which: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    release: Path = request.getfixturevalue(which)
    public = json.loads((release / "atbench.json").read_text(encoding="utf-8"))
    names = [config["config_name"] for config in front_matter(release)["configs"]]
    assert names == ["default", "trajectories"]
    for name in names:
        rows = load(release, tmp_path, name)
        assert rows.num_rows == len(public), name
        assert rows.features["label"].names == ["safe", "unsafe"], name
        verdicts = sorted(rows.features["label"].int2str(label) for label in rows["label"])
        assert verdicts == sorted("unsafe" if r["label"] else "safe" for r in public), name


def test_the_default_config_holds_the_public_rows(built: Path, tmp_path: Path) -> None:
    public = json.loads((built / "atbench.json").read_text(encoding="utf-8"))
    rows = load(built, tmp_path)
    for row, expected in zip(rows, public, strict=True):
        assert json.loads(row["contents"]) == expected["contents"]
        assert json.loads(row["tool_used"]) == expected["tool_used"]
        assert (row["id"], row["label"], row["subsets"]) == (
            expected["id"],
            expected["label"],
            expected["subsets"],
        )


def test_a_built_card_has_a_citation_and_its_limitations(built: Path) -> None:
    card = (built / "README.md").read_text(encoding="utf-8")
    assert "## Citation" in card and "@misc{atbench_release_v1," in card
    assert "## Known limitations" in card and "shortcut_probe" in card
    assert front_matter(built)["license"] == "apache-2.0"


def test_an_imported_card_describes_the_import_and_not_a_build(imported: Path) -> None:
    card = (imported / "README.md").read_text(encoding="utf-8")
    report = json.loads(imported.with_name("release.import-report.json").read_text())
    meta = front_matter(imported)
    assert meta["license"] == "other" and "synthetic" not in meta["tags"]
    assert "Imported, not built" in card and "rjudge_sample.json" in card
    assert "## Citation" in card and "for imported rows, cite their source" in card
    assert f"| Rows rejected at import | {len(report['rejected'])} |" in card
    unlabelled = len(report["flagged"]["unlabelled_unsafe"])
    assert unlabelled and f"{unlabelled} of the" in card
    assert "Unsafe rows carry exactly one" not in card and "No candidate was rejected" not in card
    assert "## Generation diversity" not in card and "Safe/unsafe pairs" not in card
    for code, uids in report["flagged"].items():
        assert f"| Flagged: `{code}` | {len(uids)} |" in card


def test_plots_exist_only_for_axes_with_labels(imported: Path) -> None:
    card = (imported / "README.md").read_text(encoding="utf-8")
    for plot in (imported / "plots").glob("leaves_*.png"):
        assert f"plots/{plot.name}" in card
    with_labels = card.count("leaves used)")
    assert len(list((imported / "plots").glob("leaves_*.png"))) == with_labels


def test_the_helpers_that_open_a_release_take_its_directory(built: Path) -> None:
    from pipeline.core.release.reader import load_ledger_rows, load_rejections
    from pipeline.core.release.store import load_trajectories

    db = built / "release.duckdb"
    assert load_trajectories(built) == load_trajectories(db)
    assert len(load_trajectories(built)) == 12
    assert load_rejections(built) == load_rejections(db) == make_rejections()
    assert load_ledger_rows(built) == load_ledger_rows(db) and load_ledger_rows(built)
