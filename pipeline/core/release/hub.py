"""What `datasets.load_dataset(release_dir, name)` needs: one data format for every config.

The `datasets` library picks one loader per repository, so a card listing a JSON config beside
a Parquet one fails on one of them. Every config here is a Parquet file; `atbench.json` stays
a plain file beside them. The public rows go into `data/atbench.parquet` with `tool_used` and
`contents` as JSON text (their shapes differ per tool and per turn, which no fixed columnar
type holds), and each config's features are spelled out so that `label` loads as a class
label in every `datasets` version.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.core.model.trajectory import Trajectory
from pipeline.core.release.atbench_format import to_atbench_row

ATBENCH_PARQUET = "data/atbench.parquet"
CONFIGS = {"default": ATBENCH_PARQUET, "trajectories": "parquet/trajectories.parquet"}
"""Config name -> its one Parquet file, relative to the release directory."""
LABEL_NAMES = {"default": ["safe", "unsafe"], "trajectories": ["safe", "unsafe"]}
"""`label` is 0/1 in the public rows and 'safe'/'unsafe' in the table: one class label."""
JSON_TEXT_COLUMNS = ("tool_used", "contents")

_ATBENCH_SCHEMA = pa.schema(
    [
        ("id", pa.int64()),
        ("tool_used", pa.string()),
        ("contents", pa.string()),
        ("label", pa.int8()),
        ("risk_source", pa.string()),
        ("failure_mode", pa.string()),
        ("real_world_harm", pa.string()),
        ("reason", pa.string()),
        ("domain", pa.string()),
        ("pair_id", pa.string()),
        ("subsets", pa.list_(pa.string())),
    ]
)


def write_atbench_parquet(path: Path, ordered: Sequence[Trajectory]) -> None:
    """The public rows of `atbench.json`, same order and ids, nested fields as JSON text."""
    rows = []
    for public_id, traj in enumerate(ordered):
        row = to_atbench_row(traj, public_id)
        for column in JSON_TEXT_COLUMNS:
            row[column] = json.dumps(row[column], ensure_ascii=False)
        rows.append(row)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=_ATBENCH_SCHEMA), path)


def hub_metadata(release_dir: Path) -> dict[str, Any]:
    """The card's `configs` and `dataset_info` (features per config, from the files' schemas)."""
    configs, infos = [], []
    for name, file in CONFIGS.items():
        configs.append({"config_name": name, "data_files": [{"split": "test", "path": file}]})
        schema = pq.read_schema(release_dir / file)
        features = [_feature(field, LABEL_NAMES[name]) for field in schema]
        infos.append({"config_name": name, "features": features})
    return {"configs": configs, "dataset_info": infos}


def _feature(field: pa.Field, label_names: list[str]) -> dict[str, Any]:
    if field.name == "label":
        names = {str(i): label for i, label in enumerate(label_names)}
        return {"name": field.name, "dtype": {"class_label": {"names": names}}}
    kind = field.type
    if pa.types.is_list(kind):
        return {"name": field.name, "sequence": _dtype(kind.value_type)}
    return {"name": field.name, "dtype": _dtype(kind)}


def _dtype(kind: pa.DataType) -> str:
    """The `datasets` Value dtype of an Arrow type; JSON columns are read as their text."""
    if isinstance(kind, pa.BaseExtensionType):
        kind = kind.storage_type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return "string"
    if pa.types.is_boolean(kind):
        return "bool"
    if pa.types.is_integer(kind):
        return str(kind)  # int8 ... int64, uint8 ... uint64: the same names in `datasets`
    if pa.types.is_floating(kind):
        return f"float{kind.bit_width}"
    raise ValueError(f"no `datasets` dtype for Arrow type {kind}")
