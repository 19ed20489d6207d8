"""The repository's inputs, loaded once per process.

Loading validates the taxonomy, some 2,500 tools and 30 seeds (about 3 s of CPU); a test that
reads them, at import or in a fixture, shares this one load instead of paying again. Tests
read it and never change it.
"""

from __future__ import annotations

import functools

from pipeline.core.inputs.loading import Inputs, load_inputs


@functools.cache
def repository_inputs() -> Inputs:
    return load_inputs()
