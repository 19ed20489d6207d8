"""What a publish refuses and cleans up: a second writer, a folder that is not exactly a
release, and the copies that killed publishes left beside `--out`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.core.inputs.paths import project_root
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.model.errors import AtbenchError
from pipeline.core.release.publish import ReleaseSummary, publish_release
from pipeline.core.release.verify import verify_release
from tests.support.factories import make_ledger_rows, make_rejections, make_release

_HOLD_LOCK = """
import sys
from pathlib import Path
from pipeline.core.release.lock import release_lock
with release_lock(Path(sys.argv[1])):
    print("holding", flush=True)
    sys.stdin.readline()
"""


def publish(out_dir: Path, size: int = 6) -> ReleaseSummary:
    return publish_release(
        make_release(size),
        make_rejections(),
        make_ledger_rows(),
        out_dir,
        taxonomy=default_taxonomy(),
        config={"size": size},
        backend="procedural",
        code_version="0.1.0+test",
    )


@pytest.fixture
def out_dir(tmp_path: Path) -> Path:
    return tmp_path / "releases" / "r1"


def test_a_second_writer_fails_at_once_naming_the_holder(out_dir: Path) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_LOCK, str(out_dir)],
        cwd=project_root(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline() == "holding\n"
        with pytest.raises(AtbenchError, match=f"another build \\(pid {holder.pid},"):
            publish(out_dir)
        assert not out_dir.exists()
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    assert publish(out_dir).version == 1
    assert not list(out_dir.parent.glob(".r1.lock"))


def test_a_folder_with_a_bare_manifest_and_other_files_is_refused(out_dir: Path) -> None:
    out_dir.mkdir(parents=True)
    (out_dir / "manifest.json").write_text(json.dumps({"version": 3}))
    (out_dir / "thesis.txt").write_text("two years of work")
    with pytest.raises(AtbenchError, match="not a release manifest"):
        publish(out_dir)
    assert (out_dir / "thesis.txt").read_text() == "two years of work"


def test_a_release_with_a_file_added_or_changed_is_refused_naming_it(out_dir: Path) -> None:
    publish(out_dir)
    (out_dir / "thesis.txt").write_text("saved here by mistake")
    with pytest.raises(AtbenchError, match=r"thesis\.txt: not part of the release"):
        publish(out_dir)
    (out_dir / "thesis.txt").unlink()
    (out_dir / "atbench.json").write_text("[]")
    with pytest.raises(AtbenchError, match=r"atbench\.json: .* the manifest says"):
        verify_release(out_dir)
    assert (out_dir / "atbench.json").read_text() == "[]"


def test_copies_left_by_killed_publishes_are_removed(out_dir: Path) -> None:
    publish(out_dir)
    for leftover in (".r1.tmp-0badc0de", ".r1.old-0badc0de"):
        (out_dir.parent / leftover).mkdir()
        (out_dir.parent / leftover / "release.duckdb").write_bytes(b"\0" * 1024)
    (out_dir.parent / ".other.tmp-0badc0de").mkdir()  # another release's: not ours to remove
    assert publish(out_dir).version == 2
    assert sorted(p.name for p in out_dir.parent.iterdir()) == [".other.tmp-0badc0de", "r1"]


def test_a_release_left_only_as_a_backup_is_put_back_then_replaced(out_dir: Path) -> None:
    publish(out_dir)
    # What a kill between the two renames of a swap leaves: no out_dir, the release backed up.
    shutil.move(out_dir, out_dir.parent / ".r1.old-0badc0de")
    assert publish(out_dir, size=4).version == 2
    assert verify_release(out_dir)["counts"]["total"] == len(make_release(4))
    assert sorted(p.name for p in out_dir.parent.iterdir()) == ["r1"]
