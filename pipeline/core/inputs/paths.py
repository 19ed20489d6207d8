"""Where the project's versioned inputs and its outputs live.

`ATBENCH_ROOT` points the pipeline at another checkout (tests use it for broken inputs);
`ATBENCH_OUTPUTS` moves outputs, e.g. onto storage shared by distributed workers.
"""

from __future__ import annotations

import os
from pathlib import Path


def project_root() -> Path:
    return Path(os.environ.get("ATBENCH_ROOT", Path(__file__).resolve().parents[3]))


def seeds_dir() -> Path:
    return project_root() / "seeds"


def tool_pool_dir() -> Path:
    return project_root() / "tool_pool"


def taxonomy_dir() -> Path:
    return project_root() / "taxonomy"


def templates_dir() -> Path:
    return project_root() / "templates"


def outputs_dir() -> Path:
    return Path(os.environ.get("ATBENCH_OUTPUTS", project_root() / "outputs"))
