"""Portable copies of a release for readers without DuckDB.

`atbench.json` is the public format (what guards are evaluated on), `trajectories.jsonl` the
full records (what `regen`, audit and SFT reload), and one Parquet file per table for
dataframe users. Writers here write plainly: the release step builds them inside a temporary
directory that is swapped into place whole.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import duckdb

from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.atbench_format import to_atbench_row
from pipeline.core.release.store import TABLES

ATBENCH_JSON = "atbench.json"
TRAJECTORIES_JSONL = "trajectories.jsonl"
PARQUET_DIR = "parquet"


def write_atbench_json(path: Path, ordered: Sequence[Trajectory]) -> None:
    """A JSON array with one row per line; the public id is the position in `ordered`.

    One row per line keeps the fast C encoder (an `indent` would switch json to pure Python)
    while leaving the file greppable and diffable.
    """
    with path.open("w", encoding="utf-8") as handle:
        handle.write("[\n")
        for public_id, traj in enumerate(ordered):
            if public_id:
                handle.write(",\n")
            handle.write(json.dumps(to_atbench_row(traj, public_id), ensure_ascii=False))
        handle.write("\n]\n")


def write_trajectories_jsonl(path: Path, ordered: Sequence[Trajectory]) -> None:
    """Full records in public-id order, one `model_dump_json` per line."""
    with path.open("w", encoding="utf-8") as handle:
        for traj in ordered:
            handle.write(traj.model_dump_json())
            handle.write("\n")


def write_parquet_tables(db_path: Path, out_dir: Path) -> list[Path]:
    """One `<table>.parquet` per table of the release database (views are derivable)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with duckdb.connect(str(db_path), read_only=True) as con:
        for table in TABLES:
            target = out_dir / f"{table}.parquet"
            # COPY takes no bound parameters; the table name is ours and the path is quoted.
            quoted = str(target).replace("'", "''")
            con.execute(f"COPY {table} TO '{quoted}' (FORMAT parquet)")
            written.append(target)
    return written
