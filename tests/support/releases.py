"""Small published releases (factory twins) for the evaluation and SFT tests."""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.release.publish import publish_release
from pipeline.core.release.verify import MANIFEST_FILE, file_digests
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


def relist_files(release: Path) -> None:
    """After a test edits a release in place: list its files anew in the manifest, as if it
    had been published so (the release then verifies, and only the edit differs)."""
    path = release / MANIFEST_FILE
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["files"] = {k: v for k, v in file_digests(release).items() if k != MANIFEST_FILE}
    path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
