"""The release layer: DuckDB store, public ATBench exports, dataset card, atomic locked
publish, and verification against the manifest."""

from pipeline.core.release.atbench_format import (
    format_action,
    from_atbench_row,
    parse_action,
    public_view,
    release_order,
    to_atbench_row,
)
from pipeline.core.release.card import write_dataset_card
from pipeline.core.release.exports import (
    write_atbench_json,
    write_parquet_tables,
    write_trajectories_jsonl,
)
from pipeline.core.release.importers import ImportReport, import_benchmark
from pipeline.core.release.publish import ReleaseSummary, publish_release
from pipeline.core.release.store import load_trajectories, write_release_db
from pipeline.core.release.verify import verify_release

__all__ = [
    "ImportReport",
    "ReleaseSummary",
    "format_action",
    "from_atbench_row",
    "import_benchmark",
    "load_trajectories",
    "parse_action",
    "public_view",
    "publish_release",
    "release_order",
    "to_atbench_row",
    "verify_release",
    "write_atbench_json",
    "write_dataset_card",
    "write_parquet_tables",
    "write_release_db",
    "write_trajectories_jsonl",
]
