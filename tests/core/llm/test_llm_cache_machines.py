"""The response cache with writers whose locks do not see each other (two machines on a
filesystem without shared `flock`): both may answer one key, and every reader that opens the
cache afterwards, in any process, still uses the same answer for it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from pipeline.core.llm.segments import read_lines, segment_files
from tests.support.paths import REPO

KEYS = 200

_WRITER = """
import sys, time
from pathlib import Path
from pipeline.core.llm import ResponseCache
root, name = Path(sys.argv[1]), sys.argv[2]
cache = ResponseCache(root / "cache", "finance")  # opened before either writes
(root / f"ready-{name}").touch()
while not (root / "go").exists():
    time.sleep(0.01)
for i in range(int(sys.argv[3])):  # no claim: as if the other writer's lock were not visible here
    cache.put(f"key-{i}", {"writer": name, "i": i}, {})
cache.close()
"""

_READER = """
import json, sys
from pathlib import Path
from pipeline.core.llm import ResponseCache
cache = ResponseCache(Path(sys.argv[1]) / "cache", "finance")
keys = [f"key-{i}" for i in range(int(sys.argv[2]))]
print(json.dumps({key: cache.get(key) for key in keys}, sort_keys=True))
"""


def _python(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", script, *args, str(KEYS)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )


def test_writers_that_both_answered_a_key_leave_one_answer_for_every_reader(
    tmp_path: Path,
) -> None:
    writers = [_python(_WRITER, str(tmp_path), name) for name in ("a", "b")]
    deadline = time.monotonic() + 60
    while not all((tmp_path / f"ready-{name}").exists() for name in ("a", "b")):
        assert all(w.poll() is None for w in writers) and time.monotonic() < deadline
        time.sleep(0.01)
    (tmp_path / "go").touch()
    assert [w.wait(timeout=60) for w in writers] == [0, 0]

    segments = segment_files(tmp_path / "cache" / "finance", "answers")
    on_disk = [{r["key"]: r["answer"] for r in read_lines(path)} for path in segments]
    assert len(on_disk) == 2 and set(on_disk[0]) == set(on_disk[1])  # every key answered twice
    assert on_disk[0] != on_disk[1]

    readers = [_python(_READER, str(tmp_path)) for _ in range(2)]
    seen = [json.loads(r.communicate(timeout=60)[0]) for r in readers]
    assert seen[0] == seen[1]
    assert seen[0] == on_disk[0]  # the first segment in name order wins, for every key
