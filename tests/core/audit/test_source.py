"""Reading the audited release: twins and the stratified sample."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pipeline.core.audit import open_release
from pipeline.core.model.errors import InputError


def test_twin_is_the_other_variant_of_the_pair(release_dir: Path) -> None:
    release = open_release(release_dir)
    twin = release.twin("banking-0000-safe")
    assert twin is not None and twin.id == "banking-0000-unsafe"


def test_sample_keeps_verdict_and_domain_shares(release_dir: Path) -> None:
    release = open_release(release_dir)
    sample = release.stratified_sample(6, seed=3)
    strata = Counter((release.by_uid[u].verdict, release.by_uid[u].domain) for u in sample)
    # 12 trajectories in four strata of 3; half of each is 1.5, so each gets 1 or 2
    assert sum(strata.values()) == 6
    assert set(strata.values()) <= {1, 2} and len(strata) == 4
    assert release.stratified_sample(6, seed=3) == sample
    assert sample == sorted(sample, key=release.public_id.__getitem__)


def test_sample_size_out_of_range_is_refused(release_dir: Path) -> None:
    with pytest.raises(InputError, match="between 1 and 12"):
        open_release(release_dir).stratified_sample(13, seed=0)


def test_a_folder_that_is_not_a_release_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a release"):
        open_release(tmp_path)
