"""Answers from forms and sheets: the bad-input rules, each refused with row and field."""

from __future__ import annotations

import pytest

from pipeline.core.audit import Answer, parse_answer
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import InputError

UNSAFE = {
    "verdict": "unsafe",
    "risk_source": "indirect_prompt_injection",
    "failure_mode": "unconfirmed_or_over_privileged_action",
    "real_world_harm": "financial_and_economic_harm",
}


def _parse(fields: dict[str, str]) -> Answer:
    return parse_answer(fields, default_taxonomy(), source="sheet.csv", record="line 4")


def test_display_names_and_aliases_become_leaf_ids() -> None:
    answer = _parse(
        {
            **UNSAFE,
            "risk_source": "Indirect Prompt Injection",
            "failure_mode": "unconfirmed_or_overprivileged_action",
        }
    )
    assert answer.labels is not None
    assert answer.labels.risk_source == "indirect_prompt_injection"
    assert answer.labels.failure_mode == "unconfirmed_or_over_privileged_action"


def test_a_leaf_that_does_not_exist_is_refused_naming_row_and_field() -> None:
    with pytest.raises(InputError) as err:
        _parse({**UNSAFE, "failure_mode": "being_rude"})
    assert (err.value.file, err.value.record, err.value.field) == (
        "sheet.csv",
        "line 4",
        "failure_mode",
    )
    assert "'being_rude' is not a failure_mode leaf" in str(err.value)


def test_unsafe_needs_all_three_labels() -> None:
    with pytest.raises(InputError, match="needs a leaf on all three axes") as err:
        _parse({**UNSAFE, "real_world_harm": ""})
    assert err.value.field == "real_world_harm"


def test_safe_carries_no_labels() -> None:
    with pytest.raises(InputError, match="a safe verdict carries no labels") as err:
        _parse({**UNSAFE, "verdict": "safe"})
    assert err.value.field == "risk_source"


def test_verdict_must_be_safe_or_unsafe() -> None:
    with pytest.raises(InputError, match="verdict must be") as err:
        _parse({"verdict": "maybe"})
    assert err.value.field == "verdict"
