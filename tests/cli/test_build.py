"""How `atbench build` splits its domains into Dagster runs."""

from pipeline.cli.build import contiguous_ranges

ORDER = ["a", "b", "c", "d", "e"]


def test_neighbours_share_one_run_and_a_gap_starts_another() -> None:
    assert contiguous_ranges(["b", "c", "d"], ORDER) == [("b", "d")]
    assert contiguous_ranges(["e", "a", "c", "d"], ORDER) == [("a", "a"), ("c", "e")]
    assert contiguous_ranges(ORDER, ORDER) == [("a", "e")]
