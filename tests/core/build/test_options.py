"""The build options' checks, as plain functions."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.core.build.options import check_build_options, parse_domains
from pipeline.core.model.errors import AtbenchError

KNOWN = ["pharmacy", "smart_home", "telehealth"]


def test_domains_tolerate_spaces_empty_items_and_repeats() -> None:
    assert parse_domains(" smart_home, pharmacy ,,smart_home", KNOWN) == ["smart_home", "pharmacy"]
    assert parse_domains(" ", KNOWN) == KNOWN


def test_an_unknown_domain_is_named_with_the_closest_known_one() -> None:
    with pytest.raises(AtbenchError, match=r"'smarthome' \(did you mean 'smart_home'\?\)"):
        parse_domains("smarthome", KNOWN)


def test_settings_carry_the_cleaned_domain_list(tmp_path: Path) -> None:
    settings = check_build_options(
        size=4,
        seed=3,
        backend="procedural",
        domains="telehealth , pharmacy",
        known_domains=KNOWN,
        out=tmp_path / "release",
    )
    assert settings["domains"] == "telehealth,pharmacy"
    assert (settings["size"], settings["seed"], settings["max_concurrency"]) == (4, 3, 32)


def test_the_model_may_come_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    options = {
        "size": 4,
        "seed": 0,
        "backend": "openai",
        "domains": "",
        "known_domains": KNOWN,
        "out": tmp_path / "r",
    }
    monkeypatch.delenv("ATBENCH_MODEL", raising=False)
    with pytest.raises(AtbenchError, match="--model"):
        check_build_options(**options)  # type: ignore[arg-type]
    monkeypatch.setenv("ATBENCH_MODEL", "qwen")
    assert check_build_options(**options)["model"] == ""  # type: ignore[arg-type]
