"""Inputs that used to pass validation and fail mid-build: each is now refused up front,
naming the file (and the record and field where there is one)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pipeline.core.build.preflight import load_checked_inputs
from pipeline.core.model.errors import InputError
from tests.support.paths import REPO

DOMAIN = "personal_banking"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of the inputs a build reads (one domain), for a test to break."""
    for folder in ("taxonomy", "templates"):
        shutil.copytree(REPO / folder, tmp_path / folder)
    (tmp_path / "seeds").mkdir()
    shutil.copy(REPO / "seeds" / f"{DOMAIN}.yaml", tmp_path / "seeds")
    (tmp_path / "tool_pool").mkdir()
    shutil.copy(REPO / "tool_pool" / "curated" / f"{DOMAIN}.yaml", tmp_path / "tool_pool")
    return tmp_path


def load(root: Path) -> None:
    load_checked_inputs(
        taxonomy_path=root / "taxonomy" / "taxonomy.yaml",
        pool_dir=root / "tool_pool",
        seed_dir=root / "seeds",
        template_dir=root / "templates",
    )


def edit_yaml(path: Path, mutate) -> None:  # type: ignore[no-untyped-def]
    data = yaml.safe_load(path.read_text())
    mutate(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False))


def test_the_copy_is_valid(root: Path) -> None:
    load(root)


def first_axis(data: dict) -> dict:  # type: ignore[type-arg]
    return data["axes"][0]  # type: ignore[no-any-return]


def test_duplicate_leaf_ids(root: Path) -> None:
    def duplicate_leaf(data: dict) -> None:  # type: ignore[type-arg]
        families = first_axis(data)["families"]
        families[1]["leaves"].append(dict(families[0]["leaves"][0]))

    edit_yaml(root / "taxonomy" / "taxonomy.yaml", duplicate_leaf)
    with pytest.raises(InputError, match="duplicate leaf ids") as err:
        load(root)
    assert err.value.file == str(root / "taxonomy" / "taxonomy.yaml")


def test_duplicate_family_ids(root: Path) -> None:
    def duplicate_family(data: dict) -> None:  # type: ignore[type-arg]
        families = first_axis(data)["families"]
        families[1]["id"] = families[0]["id"]

    edit_yaml(root / "taxonomy" / "taxonomy.yaml", duplicate_family)
    with pytest.raises(InputError, match="duplicate family ids"):
        load(root)


@pytest.mark.parametrize(
    ("template", "text", "message"),
    [
        ("query_generator.j2", "{% if task %}unclosed", "syntax error at line 1"),
        ("reason_generator.j2", "{{ verdict }} {{ verdikt }}", "undefined variable 'verdikt'"),
        ("dataset_card.md.j2", "# {{ card.pretty_name }}\n{{ card.totl }}", "card.totl"),
    ],
)
def test_template_errors_name_the_template(
    root: Path, template: str, text: str, message: str
) -> None:
    (root / "templates" / template).write_text(text)
    with pytest.raises(InputError, match=message) as err:
        load(root)
    assert err.value.file == str(root / "templates" / template)


def test_an_empty_or_missing_seeds_folder(root: Path) -> None:
    (root / "seeds" / f"{DOMAIN}.yaml").unlink()
    with pytest.raises(InputError, match="has no seed files"):
        load(root)
    (root / "seeds").rmdir()
    with pytest.raises(InputError, match="does not exist"):
        load(root)


def test_invalid_utf8_names_the_file_and_byte(root: Path) -> None:
    seed = root / "seeds" / f"{DOMAIN}.yaml"
    text = seed.read_bytes()
    seed.write_bytes(text[:100] + b"\xff" + text[100:])
    with pytest.raises(InputError, match="not valid UTF-8 at byte 100") as err:
        load(root)
    assert err.value.file == str(seed)


def test_path_characters_in_a_tool_domain(root: Path) -> None:
    tools = root / "tool_pool" / f"{DOMAIN}.yaml"
    edit_yaml(tools, lambda data: data[0]["domains"].append("../../etc"))
    with pytest.raises(InputError, match="pattern") as err:
        load(root)
    assert (err.value.file, err.value.field) == (str(tools), "domains.1")
    assert err.value.record is not None


def test_path_characters_in_an_entity_id(root: Path) -> None:
    seed = root / "seeds" / f"{DOMAIN}.yaml"
    edit_yaml(seed, lambda data: data["entities"][0].update(id="acct/../x"))
    with pytest.raises(InputError, match="pattern") as err:
        load(root)
    assert (err.value.record, err.value.field) == (DOMAIN, "entities.0.id")


def test_atbench_validate_fails_naming_the_file(root: Path) -> None:
    (root / "templates" / "judge_typo.j2").write_text("unused, not checked")
    (root / "templates" / "plausibility_judge.j2").write_text("{{ trajectori }}")
    result = subprocess.run(
        [sys.executable, "-c", "from pipeline.cli import main; main()", "validate"],
        env={"ATBENCH_ROOT": str(root), "PATH": "/usr/bin:/bin"},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "plausibility_judge.j2" in result.stderr and "'trajectori'" in result.stderr
