"""The build configuration: options over environment over defaults, checked before a run."""

from __future__ import annotations

import pytest

from pipeline.core.build.config import BuildConfig
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.model.errors import InputError


def test_unset_fields_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("ATBENCH_MAX_TOKENS", "256")
    config = BuildConfig.load(backend="openai", max_tokens=512)
    llm = config.llm()
    assert (llm.model, llm.base_url, llm.max_tokens) == ("env-model", "http://127.0.0.1:9/v1", 512)
    assert config.spec().model == "env-model"


def test_domains_default_to_every_seed_and_read_a_comma_list() -> None:
    assert BuildConfig.load().spec().domains == tuple(sorted(domain_ids()))
    picked = BuildConfig.load(domains="smart_home,ecommerce")
    assert picked.spec().domains == ("ecommerce", "smart_home")


def test_an_unknown_domain_is_refused_naming_the_field() -> None:
    with pytest.raises(InputError, match=r"unknown domains \['atlantis'\]") as err:
        BuildConfig.load(domains="atlantis,smart_home")
    assert err.value.field == "domains"


def test_a_bad_value_is_refused_naming_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_SEED", "seven")
    with pytest.raises(InputError, match="seed"):
        BuildConfig.load()
    with pytest.raises(InputError, match="size"):
        BuildConfig.load(size=1, seed=0)


def test_a_recorded_spec_becomes_the_same_build() -> None:
    spec = BuildConfig.load(size=40, seed=3, domains="smart_home").spec()
    again = BuildConfig.for_spec(spec, max_concurrency=4)
    assert again.spec() == spec and again.max_concurrency == 4


def test_a_recorded_spec_that_the_settings_cannot_rebuild_is_refused() -> None:
    """A release whose model the settings cannot name (here: none) is not rebuilt as another."""
    spec = BuildConfig.load(domains="smart_home").spec()
    with pytest.raises(InputError, match="not the release's"):
        BuildConfig.for_spec(spec.model_copy(update={"model": ""}))


def test_the_resource_config_pins_the_domain_list(monkeypatch: pytest.MonkeyPatch) -> None:
    # another test file's build may have pointed the outputs elsewhere in this worker
    monkeypatch.delenv("ATBENCH_OUTPUTS", raising=False)
    config = BuildConfig.load(size=12, domains="smart_home")
    assert config.resource_config() == {
        "size": 12,
        "seed": 0,
        "unsafe_share": 0.5,
        "long_context_share": 0.15,
        "long_html_share": 0.08,
        "overplan": 0.2,
        "domains": "smart_home",
        "backend": "procedural",
        "max_concurrency": 32,
    }
