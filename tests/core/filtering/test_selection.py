"""Selection after filtering: even domain shares, leaves nearer their quotas, whole pairs,
every dropped pair recorded, and the same answer whatever the input order."""

from collections import Counter

from pipeline.core.filtering.selection import domain_shares, select_release
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.trajectory import Trajectory
from tests.support.factories import DEFAULT_LABELS, LABEL_CYCLE, make_pair


def _pairs(domain: str, start: int, count: int, labels_of: int) -> list[Trajectory]:
    return [
        t
        for i in range(start, start + count)
        for t in make_pair(domain, i, labels=LABEL_CYCLE[labels_of])
    ]


def _survivors() -> list[Trajectory]:
    """A domain with a surplus that over-represents one slice, and a short domain."""
    return [
        *_pairs("personal_banking", 0, 9, 0),
        *_pairs("personal_banking", 9, 3, 1),
        *_pairs("personal_banking", 12, 3, 2),
        *_pairs("smart_home", 0, 3, 0),
    ]


def test_shares_are_even_and_a_short_domain_keeps_all_it_has() -> None:
    assert domain_shares({"a": 3, "b": 10, "c": 10}, 15) == {"a": 3, "b": 6, "c": 6}
    assert domain_shares({"a": 3, "b": 10, "c": 10}, 40) == {"a": 3, "b": 10, "c": 10}
    # the odd pair goes to the domain with more survivors to choose from
    assert domain_shares({"a": 4, "b": 9}, 7) == {"a": 3, "b": 4}


def test_selection_balances_leaves_within_each_domains_share(inputs: Inputs) -> None:
    planned = {"personal_banking": 20, "smart_home": 6}
    selection = select_release(_survivors(), 8, inputs.taxonomy, planned)
    unsafe = [t for t in selection.kept if t.verdict == "unsafe"]
    assert Counter(t.domain for t in unsafe) == {"personal_banking": 5, "smart_home": 3}
    banking = Counter(t.labels for t in unsafe if t.domain == "personal_banking")
    # smart_home brings three of the over-represented slice; banking takes the others first
    assert banking[DEFAULT_LABELS] == 0, banking
    assert sum(banking.values()) == 5
    record = selection.record
    assert record["per_domain"]["personal_banking"] == {
        "planned": 20,
        "survived": 15,
        "selected": 5,
    }
    assert (record["surviving_pairs"], record["selected_pairs"]) == (18, 8)


def test_pairs_are_kept_or_dropped_whole_and_every_drop_is_recorded(inputs: Inputs) -> None:
    safe_only = make_pair("smart_home", 50)[0]
    benign = safe_only.model_copy(
        update={"pair_id": "smart_home-b000", "id": "smart_home-b000-safe"}
    )
    selection = select_release([*_survivors(), benign], 8, inputs.taxonomy, {})
    by_pair = Counter(t.pair_id for t in selection.kept)
    assert by_pair.pop("smart_home-b000") == 1  # a benign-only trace is not selected among
    assert set(by_pair.values()) == {2}
    dropped = selection.record["dropped"]
    assert len(dropped) == 18 - 8
    assert not {d["pair_id"] for d in dropped} & set(by_pair)
    assert all(d["why"].startswith("personal_banking has its share of 5 pairs") for d in dropped)


def test_selection_is_deterministic_whatever_the_input_order(inputs: Inputs) -> None:
    survivors = _survivors()
    first = select_release(survivors, 8, inputs.taxonomy, {})
    again = select_release(list(reversed(survivors)), 8, inputs.taxonomy, {})
    assert {t.id for t in first.kept} == {t.id for t in again.kept}
    assert first.record == again.record


def test_nothing_is_dropped_when_the_survivors_fit(inputs: Inputs) -> None:
    survivors = _survivors()
    selection = select_release(survivors, 100, inputs.taxonomy, {})
    assert selection.kept == survivors
    assert selection.record["dropped"] == []


def test_a_rare_subset_keeps_its_survivors_instead_of_being_thinned(inputs: Inputs) -> None:
    survivors = _pairs("personal_banking", 0, 12, 0)
    html = {f"personal_banking-{i:04d}" for i in (2, 5, 9)}
    survivors = [
        t.model_copy(update={"tags": t.tags | {"long_html"}}) if t.pair_id in html else t
        for t in survivors
    ]
    selection = select_release(survivors, 4, inputs.taxonomy, {})
    kept = {t.pair_id for t in selection.kept}
    assert len(kept) == 4
    assert html <= kept  # a share among survivors would have kept one
