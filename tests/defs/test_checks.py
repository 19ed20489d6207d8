"""The release gates run as blocking checks: a failing gate keeps the release unpublished."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pytest

from pipeline.core.inputs.files import write_json_atomic, write_jsonl_atomic
from pipeline.core.model.labels import AXES
from pipeline.core.model.trajectory import Trajectory
from pipeline.definitions import defs
from pipeline.defs.resources import BuildSettings
from tests.support.factories import make_release

DOMAIN = "personal_banking"


def _publish(tmp_path: Path, filtered: list[Trajectory]) -> dg.ExecuteInProcessResult:
    """Run the publish job over a work folder whose only domain kept `filtered`."""
    settings = BuildSettings(size=8, domains=DOMAIN, outputs=str(tmp_path / "outputs"))
    ws = settings.config().workspace()
    write_jsonl_atomic(ws.stage_file("filtered", DOMAIN), filtered)
    planned = {
        axis: dict(Counter(getattr(t.labels, axis) for t in filtered if t.labels)) for axis in AXES
    }
    write_json_atomic(ws.plan_record_file, {"coverage": planned, "incompatible": []})
    return defs.resolve_job_def("build").execute_in_process(
        instance=dg.DagsterInstance.ephemeral(),
        asset_selection=[dg.AssetKey("release_candidate"), dg.AssetKey("release")],
        run_config={
            "resources": {"settings": {"config": settings.model_dump()}},
            "ops": {"release": {"config": {"out": str(tmp_path / "release")}}},
        },
        raise_on_error=False,
    )


def _released(result: dg.ExecuteInProcessResult) -> bool:
    return any(
        e.asset_key == dg.AssetKey("release") for e in result.get_asset_materialization_events()
    )


def test_a_release_that_passes_every_gate_is_published(tmp_path: Path) -> None:
    result = _publish(tmp_path, make_release(4, domains=(DOMAIN,)))
    assert result.success
    assert {c.check_name: c.passed for c in result.get_asset_check_evaluations()} == {
        "balance": True,
        "leaf_coverage": True,
        "pair_integrity": True,
        "schema": True,
    }
    assert _released(result) and (tmp_path / "release" / "release.duckdb").exists()


@pytest.mark.parametrize(
    ("gate", "keep"),
    [
        ("balance", lambda t: t.verdict == "safe" or t.pair_id.endswith("0000")),
        ("pair_integrity", lambda t: t.id != f"{DOMAIN}-0001-safe"),
    ],
)
def test_a_failing_gate_blocks_the_release(
    tmp_path: Path, gate: str, keep: Callable[[Trajectory], bool]
) -> None:
    kept = [t for t in make_release(4, domains=(DOMAIN,)) if keep(t)]
    result = _publish(tmp_path, kept)
    failed = {c.check_name for c in result.get_asset_check_evaluations() if not c.passed}
    assert gate in failed
    assert not _released(result)
    assert not (tmp_path / "release").exists()
