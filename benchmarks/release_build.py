"""Release build: wall time and peak memory of `atbench build` for a 1,000-trajectory release.

A cold run starts from nothing: a fresh temporary folder for outputs (response cache, work
folder), the Dagster instance and the release. The warm run after it repeats the same build on
those outputs, so answers come from the cache and the release is replaced (version 2). Peak
memory is the build process's own peak resident set (`ru_maxrss` from `os.wait4`); steps run
in-process, so that is the whole build. LLM figures are read from the release's `llm_calls`.

    .venv/bin/python -m benchmarks.release_build [--runs 3] [--size 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

ATBENCH = Path(sys.executable).with_name("atbench")
LIMITS = {"wall_s": 120.0, "peak_rss_mib": 2048.0}


def build(root: Path, size: int) -> dict[str, Any]:
    """One `atbench build` into `root`; returns wall time, peak RSS and the release's counts."""
    env = os.environ | {
        "ATBENCH_OUTPUTS": str(root / "outputs"),
        "DAGSTER_HOME": str(root / "dagster"),
    }
    release = root / "release"
    command = [str(ATBENCH), "build", "--size", str(size), "--out", str(release)]
    log = root / "build.log"  # a file, not a pipe: Dagster logs more than a pipe buffer holds
    with log.open("ab") as sink:
        started = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=sink, stderr=sink)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"build failed:\n{log.read_text()[-2000:]}")
    manifest = json.loads((release / "manifest.json").read_text())
    with duckdb.connect(str(release / "release.duckdb"), read_only=True) as db:
        calls, hits = db.execute(
            "SELECT count(*), count(*) FILTER (WHERE cached) FROM llm_calls"
        ).fetchall()[0]
    return {
        "wall_s": round(wall, 2),
        "peak_rss_mib": round(usage.ru_maxrss / 1024, 1),  # Linux reports KiB
        "version": manifest["version"],
        "total": manifest["counts"]["total"],
        "ledger_calls": calls,
        "ledger_hits": hits,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="cold + warm pairs to run")
    parser.add_argument("--size", type=int, default=1000)
    args = parser.parse_args()
    rows = []
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="atbench-bench-") as tmp:
            cold = build(Path(tmp), args.size)
            warm = build(Path(tmp), args.size)
        # the ledger accumulates across both builds of a folder; the warm run's share is the rest
        warm_calls = warm["ledger_calls"] - cold["ledger_calls"]
        warm_hits = warm["ledger_hits"] - cold["ledger_hits"]
        rows.append(("cold", run, cold, cold["ledger_calls"], cold["ledger_hits"]))
        rows.append(("warm", run, warm, warm_calls, warm_hits))
        for kind, number, figures, calls, hits in rows[-2:]:
            print(
                f"{kind} run {number}: {figures['wall_s']:.2f} s wall, "
                f"{figures['peak_rss_mib']:.0f} MiB peak RSS, {figures['total']} trajectories "
                f"(v{figures['version']}), {calls} LLM calls, {hits} cache hits",
                flush=True,
            )
    for kind in ("cold", "warm"):
        walls = sorted(r[2]["wall_s"] for r in rows if r[0] == kind)
        peaks = sorted(r[2]["peak_rss_mib"] for r in rows if r[0] == kind)
        print(
            f"{kind}: wall median {walls[len(walls) // 2]:.2f} s (min {walls[0]:.2f}, max "
            f"{walls[-1]:.2f}); peak RSS median {peaks[len(peaks) // 2]:.0f} MiB (max "
            f"{peaks[-1]:.0f}); limits {LIMITS['wall_s']:.0f} s, {LIMITS['peak_rss_mib']:.0f} MiB"
        )


if __name__ == "__main__":
    main()
