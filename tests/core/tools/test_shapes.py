"""Telling the import formats apart by the shape of a file's records."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import permutations
from pathlib import Path
from typing import Any, get_args

import pytest

from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.shapes import Format, check_shape, file_formats, read_as
from pipeline.core.tools.importers.toolalpaca import import_toolalpaca
from pipeline.core.tools.importers.toolbench import import_toolbench
from tests.support.paths import SHARED_DATA
from tests.support.tool_formats import SAMPLES, write_sample

FORMATS: tuple[Format, ...] = get_args(Format)


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_sample_has_its_own_shape_only(fmt: Format) -> None:
    assert set(file_formats(SAMPLES[fmt])) == {fmt}
    check_shape(SAMPLES[fmt], fmt, Path("x.json"))


@pytest.mark.parametrize(("given", "actual"), list(permutations(FORMATS, 2)))
def test_a_file_of_another_format_names_the_format_it_looks_like(
    given: Format, actual: Format
) -> None:
    with pytest.raises(InputError) as caught:
        check_shape(SAMPLES[actual], given, Path("tools.json"))
    message = str(caught.value)
    assert message.startswith("tools.json: looks like a")
    assert f" {actual} file " in message and f"not {given}; use --format {actual}" in message


def test_the_majority_of_records_decides_and_a_tie_keeps_the_given_format() -> None:
    toolbench, openai = SAMPLES["toolbench"][0], SAMPLES["openai"][0]
    with pytest.raises(InputError, match="use --format toolbench"):
        check_shape([toolbench, toolbench, openai], "openai", Path("x.json"))
    check_shape([toolbench, openai], "openai", Path("x.json"))


@pytest.mark.parametrize("data", [[{"x": 1}, "text"], {"title": "no shape"}])
def test_records_of_no_known_shape_are_refused_with_the_expected_one(data: Any) -> None:
    with pytest.raises(InputError, match="does not look like a toolalpaca file: expected a list"):
        check_shape(data, "toolalpaca", Path("x.json"))


@pytest.mark.parametrize("data", [[], {}, "just text", None])
def test_nothing_to_judge_is_left_to_the_importer(data: Any) -> None:
    check_shape(data, "openai", Path("x.json"))


def test_a_directory_is_read_by_openapi_only(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is a directory; --format toolbench reads one file"):
        read_as(tmp_path, "toolbench")


@pytest.mark.parametrize(
    ("importer", "sample", "looks"),
    [
        (import_toolalpaca, "toolbench/G1_query.json", "toolbench"),
        (import_toolbench, "toolalpaca/eval_simulated.json", "toolalpaca"),
    ],
)
def test_a_real_public_sample_under_the_wrong_format_fails_before_any_row(
    importer: Callable[[Path], object], sample: str, looks: str
) -> None:
    path = SHARED_DATA / sample
    if not path.exists():
        pytest.skip(f"public sample {path} is absent")
    with pytest.raises(InputError, match=rf"looks like a {looks} file .*use --format {looks}$"):
        importer(path)


def test_a_sample_of_each_format_imports_under_its_own(tmp_path: Path) -> None:
    for fmt in ("toolbench", "toolalpaca"):
        data = json.loads(write_sample(tmp_path, fmt).read_text("utf-8"))
        assert read_as(tmp_path / f"{fmt}.json", fmt) == data
    assert len(import_toolbench(tmp_path / "toolbench.json").tools) == 1
    assert len(import_toolalpaca(tmp_path / "toolalpaca.json").tools) == 1
