"""Small published releases (factory twins) for the evaluation and SFT tests."""

from __future__ import annotations

from pathlib import Path

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.release.publish import publish_release
from tests.support.factories import make_release


def publish(out_dir: Path, n_pairs: int = 6, seed: int = 7) -> Path:
    publish_release(
        make_release(n_pairs),
        [],
        [],
        out_dir,
        taxonomy=default_taxonomy(),
        config={"spec": {"seed": seed, "domains": ["banking", "smart_home"]}},
        backend="procedural",
        code_version="0.1.0+test",
    )
    return out_dir
