"""Timeouts and answer caps come from the environment too, and a bad value names its field."""

import pytest

from pipeline.core.llm import LLMSettings
from pipeline.core.model.errors import InputError


def test_timeout_and_max_tokens_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_TIMEOUT_S", "240")
    monkeypatch.setenv("ATBENCH_MAX_TOKENS", "384")
    settings = LLMSettings.from_env()
    assert (settings.timeout_s, settings.max_tokens) == (240.0, 384)
    assert LLMSettings.from_env(timeout_s=5.0).timeout_s == 5.0


def test_a_bad_environment_value_names_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATBENCH_TIMEOUT_S", "soon")
    with pytest.raises(InputError) as err:
        LLMSettings.from_env()
    assert err.value.field == "timeout_s"
