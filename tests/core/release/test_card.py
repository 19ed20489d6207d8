"""The card's filter section: per-domain shares from the release, corpus figures from the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.core.inputs.paths import project_root
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.release import card as card_module
from pipeline.core.release.publish import publish_release
from tests.support.factories import make_ledger_rows, make_rejections, make_release


def _card(out_dir: Path) -> str:
    publish_release(
        make_release(6),
        make_rejections(),
        make_ledger_rows(),
        out_dir,
        taxonomy=default_taxonomy(),
        config={"size": 12, "seed": 7},
        backend="procedural",
        code_version="0.1.0+test",
    )
    return (out_dir / "README.md").read_text(encoding="utf-8")


def test_card_shows_filter_shares_per_domain_and_the_corpus_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    figures = json.loads((project_root() / card_module.FILTER_PRECISION).read_text())
    leftover = next(r for r in figures["procedural"]["checks"] if r["check"] == "leftover_markup")
    leftover.update(false_positives=3, clean=17)
    figures["procedural"]["missed"] = ["some_pair/some_defect"]
    (tmp_path / "figures.json").write_text(json.dumps(figures))
    monkeypatch.setattr(card_module, "FILTER_PRECISION", tmp_path / "figures.json")
    card = _card(tmp_path / "release")
    # banking: 6 released + 2 rejected planned; the rule took one, its twin went with it
    assert "| `banking` | rules | `argument_schema` | 1 | 8 | 12.5 % |" in card
    assert "| `banking` | pairing | `twin_rejected` | 1 | 8 | 12.5 % |" in card
    assert "`smart_home`" not in card.split("## Filter precision")[1].split("## Generation")[0]
    assert f"| `leftover_markup` | 3 of 17 | {leftover['defects']} |" in card
    assert "Defects no check caught: `some_pair/some_defect`." in card
    assert f"Command: `{figures['command']}`." in card
