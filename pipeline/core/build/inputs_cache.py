"""The validated inputs of a build, kept between processes.

Parsing and validating the taxonomy, the tool pool and the seeds costs a few seconds of CPU
(YAML, then pydantic over some 2,500 tools); every build and every forked stage process
needs the same result. It depends only on the project's code and versioned inputs, so it is
pickled under `outputs/cache/` named by their digest (`stamps.project_digest`): an edit to any
input file or any module gives a new name and a fresh load. Inputs that fail to validate are
never written, so their error is raised on every run.

The pickle is read only from the outputs folder this project writes; like the response cache,
that folder is trusted.
"""

from __future__ import annotations

import pickle
from pathlib import Path

from pipeline.core.build.stamps import project_digest
from pipeline.core.inputs.files import atomic_path
from pipeline.core.inputs.loading import Inputs, load_inputs
from pipeline.core.inputs.paths import outputs_dir

_PREFIX = "inputs-"


def cache_file() -> Path:
    return outputs_dir() / "cache" / f"{_PREFIX}{project_digest()[:24]}.pickle"


def cached_inputs() -> Inputs:
    """`load_inputs()` of the project's inputs, from the cache when the code and inputs are
    those it was written from."""
    path = cache_file()
    try:
        loaded = pickle.loads(path.read_bytes())
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        loaded = None
    if isinstance(loaded, Inputs):
        return loaded
    inputs = load_inputs()
    try:
        for stale in path.parent.glob(f"{_PREFIX}*.pickle"):
            stale.unlink(missing_ok=True)
        with atomic_path(path) as tmp:
            tmp.write_bytes(pickle.dumps(inputs, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass  # an unwritable outputs folder only costs time
    return inputs
