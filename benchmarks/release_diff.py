"""Release diff: whether two releases hold the same content, for speed work that must not change it.

Compares the row files byte for byte (`trajectories.jsonl`, `atbench.json`), every DuckDB table
row for row, and the manifest. What legitimately differs between two builds of the same content
is left out: when it was built (`created_at`, the ledger's `ts` and `latency_s`), the digest of
the code it was built with (`build_digest`) and the files' checksums (DuckDB and Parquet files
embed their write time). The ledger's rows are compared as a multiset: their order follows the
names of per-process segment files, which are random.

    .venv/bin/python -m benchmarks.release_diff REFERENCE_DIR CANDIDATE_DIR
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb

BYTE_FILES = ("trajectories.jsonl", "atbench.json")
VOLATILE_COLUMNS = {"llm_calls": ("ts", "latency_s")}
UNORDERED_TABLES = {"llm_calls"}


def _tables(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    with duckdb.connect(str(path / "release.duckdb"), read_only=True) as db:
        query = "SELECT table_name FROM information_schema.tables"
        names = [row[0] for row in db.execute(query).fetchall()]
        tables = {}
        for name in sorted(names):
            columns = [c[0] for c in db.execute(f'DESCRIBE "{name}"').fetchall()]
            kept = [c for c in columns if c not in VOLATILE_COLUMNS.get(name, ())]
            select = ", ".join(f'"{c}"' for c in kept)
            tables[name] = db.execute(f'SELECT {select} FROM "{name}"').fetchall()
    tables["manifest"] = [_manifest_row(key, value) for key, value in tables.get("manifest", [])]
    return tables


def _manifest_row(key: str, value: str) -> tuple[Any, ...]:
    """A row of the manifest table without when and from which code it was built."""
    if key == "created_at":
        return (key, None)
    if key == "config":
        config = json.loads(value)
        config.pop("build_digest", None)
        return (key, json.dumps(config, sort_keys=True))
    return (key, value)


def _manifest(path: Path) -> dict[str, Any]:
    manifest: dict[str, Any] = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    manifest.pop("created_at", None)
    manifest["config"].pop("build_digest", None)
    manifest["files"] = sorted(manifest.get("files", {}))
    return manifest


def differences(reference: Path, candidate: Path) -> list[str]:
    """What differs between the two releases' content; empty when they are equal."""
    found = [
        f"{name} differs"
        for name in BYTE_FILES
        if (reference / name).read_bytes() != (candidate / name).read_bytes()
    ]
    ours, theirs = _tables(reference), _tables(candidate)
    if ours.keys() != theirs.keys():
        found.append(f"tables differ: {sorted(ours.keys() ^ theirs.keys())}")
    for name in sorted(ours.keys() & theirs.keys()):
        a, b = ours[name], theirs[name]
        same = Counter(a) == Counter(b) if name in UNORDERED_TABLES else a == b
        if not same:
            found.append(f"table {name} differs ({len(a)} rows against {len(b)})")
    if _manifest(reference) != _manifest(candidate):
        found.append("manifest.json differs")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", type=Path)
    parser.add_argument("candidate", type=Path)
    args = parser.parse_args()
    found = differences(args.reference, args.candidate)
    for line in found:
        print(line)
    if found:
        raise SystemExit(1)
    print("same content")


if __name__ == "__main__":
    main()
