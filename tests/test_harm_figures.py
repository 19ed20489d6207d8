"""The harm-shown figures of `benchmarks.trace_quality`: a built release counts nothing, and a
pair whose safe twin makes the unsafe twin's harmful call is counted once, by id."""

from __future__ import annotations

from benchmarks.harm_shown import harm_figures
from tests.support.pairs import Built


def test_built_pairs_show_their_harm_and_a_twin_copy_is_counted(built_pairs: Built) -> None:
    pool = built_pairs.inputs.pool
    traces = [t for pair in built_pairs.pairs.values() for t in pair]
    figures = harm_figures(traces, pool)
    assert figures["harmful_call_as_safe_twin"]["found"] == 0
    assert figures["misstates_no_deciding_fact"]["found"] == 0
    assert figures["misstates_no_deciding_fact"]["of"] > 0
    unsafe = next(u for u, _ in built_pairs.pairs.values() if u.world and u.world.harmful_steps())
    copied = unsafe.model_copy(update={"id": unsafe.pair_id + "-safe", "verdict": "safe"})
    swapped = [copied if t.pair_id == unsafe.pair_id and t.verdict == "safe" else t for t in traces]
    found = harm_figures(swapped, pool)["harmful_call_as_safe_twin"]
    assert found["found"] == 1 and found["ids"] == [unsafe.id]
