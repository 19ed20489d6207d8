"""One hostile row does not stop an import: oversized or deeply nested actions are kept
verbatim, flagged, and every other row is imported."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.trajectory import UnparsedAction
from pipeline.core.release.import_actions import read_action
from pipeline.core.release.importers import import_benchmark
from tests.support.paths import RJUDGE_SAMPLE

SAMPLE = RJUDGE_SAMPLE


@pytest.mark.parametrize(
    "raw",
    [
        "a." * 50_000 + "a",  # 100,000 characters of attribute chain
        "f(" + "[" * 60 + "]" * 60 + ")",  # short, but nested past the limit
        'Tool: {"q": ' + "[" * 45 + "]" * 45 + "}",  # within the limit: read as before
    ],
)
def test_hostile_actions_are_read_without_crashing(raw: str) -> None:
    reading = read_action(raw)
    if len(raw) > 20_000 or raw.startswith("f("):
        assert reading.action == UnparsedAction(raw=raw)
        assert reading.notes == ("action_beyond_limits",)
    else:
        assert reading.notes == ("loose_action_syntax",)


def test_an_import_with_a_hostile_row_imports_the_others(tmp_path: Path) -> None:
    rows = json.loads(SAMPLE.read_text())
    hostile = copy.deepcopy(rows[0])
    hostile["id"] = 99_999
    hostile["contents"][0][1]["action"] = "a." * 50_000 + "a"
    source = tmp_path / "hostile.json"
    source.write_text(json.dumps([*rows, hostile]))

    clean_report = import_benchmark(
        SAMPLE, "rjudge", tmp_path / "clean", taxonomy=default_taxonomy()
    )[1]
    _, report = import_benchmark(source, "rjudge", tmp_path / "out", taxonomy=default_taxonomy())
    assert report.rows == clean_report.rows + 1
    assert report.imported == clean_report.imported + 1
    assert len(report.flagged["action_beyond_limits"]) == 1
