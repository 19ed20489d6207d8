"""A full disk during a build ends in one line that says "no space left on device" and names
the path, and the last good release is left as it was.

The disk is real: a small tmpfs mounted for the test and filled with a file, so the writes
fail in the kernel as they would on a full volume. Mounting needs root (CI runs as root);
elsewhere these tests skip, saying why.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from pipeline.core.release.verify import verify_release
from tests.support.builds import DefaultBuild
from tests.support.cli import atbench
from tests.support.releases import publish

Mount = Callable[[Path, int], Path]
FailedBuild = Callable[[Path, Path], str]


@pytest.fixture
def tmpfs(request: pytest.FixtureRequest) -> Mount:
    """Mounts a tmpfs of `size` bytes at a folder, unmounted when the test ends."""

    def mount(folder: Path, size: int) -> Path:
        folder.mkdir(parents=True)
        if shutil.which("mount") is None:
            pytest.skip("no mount command here")
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.strip()}")
        request.addfinalizer(lambda: subprocess.run(["umount", str(folder)], check=True))
        return folder

    return mount


def fill(folder: Path, leave: int = 0) -> None:
    """Take all but `leave` bytes of the file system holding `folder`."""
    with (folder / "filler").open("wb", buffering=0) as handle:
        while (free := shutil.disk_usage(folder).free) > leave:
            try:
                handle.write(bytes(min(free - leave, 1 << 20)))
            except OSError as err:
                if err.errno != errno.ENOSPC:
                    raise
                return


@pytest.fixture
def failed_build(
    default_build: DefaultBuild,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> FailedBuild:
    """Runs the default build's `atbench build` into the release `last` with `outputs` as the
    outputs folder (Dagster's home included), expecting failure: its one line of stderr.
    `last` must be intact afterwards."""

    def run(last: Path, outputs: Path) -> str:
        manifest = (last / "manifest.json").read_bytes()
        monkeypatch.setenv("ATBENCH_OUTPUTS", str(outputs))
        monkeypatch.setenv("DAGSTER_HOME", str(outputs / "dagster"))
        spec = default_build.config.spec()
        args = ["build", "--size", str(spec.size), "--domains", ",".join(spec.domains)]
        code, err = atbench([*args, "--out", str(last)], capsys, monkeypatch)
        assert code == 1 and "Traceback" not in err, err
        (line,) = err.strip().splitlines()
        assert verify_release(last) and (last / "manifest.json").read_bytes() == manifest
        return line

    return run


def test_a_full_release_disk_names_the_release_and_keeps_the_last_one(
    default_build: DefaultBuild, failed_build: FailedBuild, tmp_path: Path, tmpfs: Mount
) -> None:
    # Every stage file is current (a copy of the default build's work folder), so the build is
    # one run that consolidates and publishes onto a disk with 256 KiB left.
    work = default_build.copy_to(tmp_path / "copy")
    disk = tmpfs(tmp_path / "disk", 8 << 20)
    last = publish(disk / "release", n_pairs=2)
    fill(disk, leave=256 << 10)
    line = failed_build(last, work.outputs)
    assert f"no space left on device: {last}" in line, line
    assert sorted(p.name for p in disk.iterdir()) == ["filler", "release"]  # no temporary copy


def test_a_full_outputs_disk_names_the_folder_before_any_stage(
    failed_build: FailedBuild, tmp_path: Path, tmpfs: Mount
) -> None:
    disk = tmpfs(tmp_path / "disk", 1 << 20)
    fill(disk)
    line = failed_build(publish(tmp_path / "release", n_pairs=2), disk / "outputs")
    assert f"no space left on device: {disk}" in line, line
