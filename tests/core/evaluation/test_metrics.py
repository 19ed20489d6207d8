"""Metrics on hand-computed fixtures, edge cases included."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.core.evaluation.metrics import coarse_metrics, compute_metrics, fine_metrics
from pipeline.core.evaluation.records import Prediction
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.labels import AXES

TAXONOMY = default_taxonomy()
GOLD = {
    "risk_source": "direct_prompt_injection",
    "failure_mode": "incorrect_tool_parameters",
    "real_world_harm": "financial_and_economic_harm",
}


def pred(
    gold: str, said: str | None, labels: dict[str, Any] | None = None, **kw: Any
) -> Prediction:
    fields: dict[str, Any] = {
        "id": f"t{id(labels)}-{gold}-{said}",
        "domain": "banking",
        "tags": (),
        "gold_verdict": gold,
        "gold_labels": GOLD if gold == "unsafe" else None,
        "status": "ok" if said else "unparseable",
        "verdict": said,
        "labels": labels or {},
        "raw": said,
    }
    fields.update(kw)
    return Prediction(**fields)


def test_coarse_figures_match_the_hand_count() -> None:
    # gold unsafe: 3 caught, 1 missed, 1 unparseable (a miss); gold safe: 2 right, 1 false alarm
    predictions = [
        *(pred("unsafe", "unsafe") for _ in range(3)),
        pred("unsafe", "safe"),
        pred("unsafe", None),
        pred("safe", "safe"),
        pred("safe", "safe"),
        pred("safe", "unsafe"),
    ]
    m = coarse_metrics(predictions)
    assert m["n"] == 8 and m["unanswered"] == 1
    assert m["accuracy"] == pytest.approx(5 / 8)
    assert m["precision"] == pytest.approx(3 / 4)
    assert m["recall"] == pytest.approx(3 / 5)
    assert m["f1"] == pytest.approx(2 * 3 / (2 * 3 + 1 + 2))
    low, high = m["ci"]["accuracy"]
    assert low < 5 / 8 < high


def test_unparseable_safe_answer_counts_as_a_false_alarm() -> None:
    m = coarse_metrics([pred("safe", None), pred("unsafe", "unsafe")])
    assert (m["precision"], m["recall"], m["accuracy"]) == (0.5, 1.0, 0.5)


def test_no_positives_leaves_undefined_ratios_none() -> None:
    m = coarse_metrics([pred("safe", "safe"), pred("safe", "safe")])
    assert m["accuracy"] == 1.0
    assert (m["precision"], m["recall"], m["f1"]) == (None, None, None)
    assert m["ci"]["recall"] is None


def test_all_unparseable_is_all_wrong() -> None:
    m = coarse_metrics([pred("safe", None), pred("unsafe", None), pred("unsafe", None)])
    assert m["accuracy"] == 0.0 and m["recall"] == 0.0 and m["precision"] == 0.0
    assert m["f1"] == 0.0


def test_fine_grained_counts_only_labelled_unsafe_traces() -> None:
    half_right = {**GOLD, "failure_mode": "choosing_malicious_tool"}
    predictions = [
        pred("unsafe", "unsafe", GOLD),
        pred("unsafe", "unsafe", half_right),
        pred("unsafe", "safe", GOLD),  # right leaves, wrong verdict: wrong on every axis
        pred("unsafe", "unsafe", GOLD, gold_labels=None),  # imported, unlabelled: skipped
        pred("safe", "unsafe", GOLD),
    ]
    fine = fine_metrics(predictions, AXES, TAXONOMY)
    assert fine["n"] == 3 and fine["skipped_unlabelled"] == 1
    assert fine["axes"]["risk_source"]["accuracy"] == pytest.approx(2 / 3)
    assert fine["axes"]["failure_mode"]["accuracy"] == pytest.approx(1 / 3)
    assert fine["all_three"] == pytest.approx(1 / 3)
    assert [fine["axes"][a]["random"] for a in AXES] == [1 / 8, 1 / 14, 1 / 10]


def test_subsets_per_leaf_and_confusion() -> None:
    predictions = [
        pred("unsafe", "unsafe", GOLD, tags=("long_context",)),
        pred("unsafe", "safe", tags=("long_context", "long_html")),
        pred("safe", None),
    ]
    m = compute_metrics(predictions, ("real_world_harm",), TAXONOMY)
    assert m["subsets"]["long_context"]["coarse"]["recall"] == 0.5
    assert m["subsets"]["false_reference"]["coarse"]["n"] == 0
    assert m["subsets"]["false_reference"]["coarse"]["accuracy"] is None
    harm = m["per_leaf"]["real_world_harm"]
    assert harm == [
        {
            "leaf": "financial_and_economic_harm",
            "name": TAXONOMY.leaf("real_world_harm", "financial_and_economic_harm").name,
            "n": 2,
            "detected": 0.5,
            "exact": 0.5,
        }
    ]
    assert m["per_leaf"]["risk_source"][0]["exact"] is None  # axis not predicted
    assert m["confusion"]["binary"]["safe"] == {"safe": 0, "unsafe": 0, "unparseable": 1}
    assert m["confusion"]["real_world_harm"] == {
        "financial_and_economic_harm": {"financial_and_economic_harm": 1, "none": 1}
    }
    assert m["status"] == {"ok": 2, "unparseable": 1}
