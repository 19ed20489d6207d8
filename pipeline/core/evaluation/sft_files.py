"""The layout of an SFT folder (`atbench sft --out DIR`) and reading it back.

README.md                       dataset card; its `configs:` header lets
                                `datasets.load_dataset(DIR, "binary")` find the files
sft-report.json                 what was generated, excluded (and why) and kept
binary/{train,validation}.jsonl        {"messages": [user prompt, assistant target], ...}
fine_grained/{train,validation}.jsonl
parquet/<task>/<split>.parquet         the same rows as Parquet
trajectories/{train,validation}.jsonl  the full trajectory records behind the rows
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pipeline.core.inputs.files import read_jsonl
from pipeline.core.model.errors import InputError
from pipeline.core.model.trajectory import Trajectory

Split = Literal["train", "validation"]
SPLITS: tuple[Split, ...] = ("train", "validation")
REPORT_FILE = "sft-report.json"
TRAJECTORIES_DIR = "trajectories"


def chat_file(root: Path, task: str, split: Split) -> Path:
    return root / task / f"{split}.jsonl"


def parquet_file(root: Path, task: str, split: Split) -> Path:
    return root / "parquet" / task / f"{split}.parquet"


def trajectories_file(root: Path, split: Split) -> Path:
    return root / TRAJECTORIES_DIR / f"{split}.jsonl"


def read_sft_trajectories(root: Path, split: Split) -> list[Trajectory]:
    """The records of one split; a folder that is not an SFT set is named as such."""
    path = trajectories_file(root, split)
    if not (root / REPORT_FILE).is_file() or not path.is_file():
        raise InputError(
            f"not an SFT set (made by `atbench sft`): expected {REPORT_FILE} and "
            f"{TRAJECTORIES_DIR}/{split}.jsonl",
            file=root,
        )
    return read_jsonl(path, Trajectory)
