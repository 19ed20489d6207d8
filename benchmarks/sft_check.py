"""Check an SFT set against the release it excludes, and that it loads with `datasets`.

Counts shared trajectory ids, skeletons and exact-duplicate traces (all must be 0), the highest
near-duplicate similarity found, and loads both tasks with `datasets.load_dataset` (a dev
dependency).

Run from the repository root:
    .venv/bin/python -m benchmarks.sft_check outputs/sft outputs/release
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import datasets

from pipeline.core.evaluation.overlap import NearDuplicateIndex, skeleton_digest, trace_digest
from pipeline.core.evaluation.sft_files import SPLITS, read_sft_trajectories
from pipeline.core.release.sources import load_release


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sft", type=Path)
    parser.add_argument("release", type=Path)
    args = parser.parse_args()
    sft = [t for split in SPLITS for t in read_sft_trajectories(args.sft, split)]
    release = load_release(args.release).trajectories
    index = NearDuplicateIndex(release)
    with tempfile.TemporaryDirectory() as cache:  # never a cached copy of another folder
        loaded = {
            task: {
                split: rows.num_rows
                for split, rows in datasets.load_dataset(
                    str(args.sft), task, cache_dir=cache
                ).items()
            }
            for task in ("binary", "fine_grained")
        }
    figures = {
        "sft_trajectories": len(sft),
        "release_trajectories": len(release),
        "shared_ids": len({t.id for t in sft} & {t.id for t in release}),
        "shared_skeletons": len(
            {skeleton_digest(t) for t in sft} & {skeleton_digest(t) for t in release}
        ),
        "shared_exact_traces": len(
            {trace_digest(t) for t in sft} & {trace_digest(t) for t in release}
        ),
        "max_near_duplicate_similarity": round(max(index.most_similar(t) for t in sft), 3),
        "datasets_rows": loaded,
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
