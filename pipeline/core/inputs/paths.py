"""Where the project's versioned inputs and its outputs live.

`ATBENCH_ROOT` points the pipeline at another checkout (tests use it for broken inputs);
`ATBENCH_OUTPUTS` moves outputs, e.g. onto storage shared by distributed workers.
"""

from __future__ import annotations

import os
from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parents[3]
"""Resolved once: loading the tool pool asks for the outputs folder thousands of times."""


def project_root() -> Path:
    given = os.environ.get("ATBENCH_ROOT")
    return Path(given) if given else _CHECKOUT


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
