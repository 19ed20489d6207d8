"""Response times of the audit app and the cost of `audit apply` on a 1,000-trajectory release.

Serves the release with the real command (`atbench audit serve`, a separate process) and times,
over HTTP on 127.0.0.1: the overview, a trace view, and a review submitted through the form
(POST plus the redirect to the next trajectory). Then stores two reviews per trajectory
through the core API and times `apply_audit`, which publishes the corrected version.

Without a release folder it publishes one of 1,000 trajectories from the test factories.

Run from the repository root:
    .venv/bin/python -m benchmarks.audit_app [RELEASE_DIR]
"""

from __future__ import annotations

import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from http.cookiejar import CookieJar
from pathlib import Path

from pipeline.core.audit import apply_audit, open_audit, release_answer
from pipeline.core.inputs.taxonomy import default_taxonomy
from pipeline.core.release.publish import publish_release

ROUNDS = 20
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def _factory_release(out: Path) -> Path:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.factories import make_release

    publish_release(
        make_release(500),
        [],
        [],
        out,
        taxonomy=default_taxonomy(),
        config={},
        backend="procedural",
        code_version="bench",
    )
    return out


def _timed(action: Callable[[], object], rounds: int = ROUNDS) -> tuple[float, float]:
    """Median and max wall time in milliseconds."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), max(times)


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="audit-bench-") as folder:
        run(Path(folder))


def run(work: Path) -> None:
    release = Path(sys.argv[1]) if len(sys.argv) > 1 else _factory_release(work / "r1")
    db = work / "audit.duckdb"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    atbench = Path(sys.executable).with_name("atbench")
    args = ["audit", "serve", "--release", str(release), "--port", str(port), "--audit-db", str(db)]
    server = subprocess.Popen([str(atbench), *args], stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    try:
        for _ in range(300):
            try:
                opener.open(base + "/signin", timeout=2).read()
                break
            except OSError:
                time.sleep(0.1)
        csrf = ""

        def get(path: str) -> tuple[str, str]:
            nonlocal csrf
            with opener.open(base + path, timeout=30) as response:
                url, text = response.geturl(), response.read().decode()
            found = _CSRF.search(text)
            csrf = found.group(1) if found else csrf
            return url, text

        def post(path: str, fields: dict[str, str]) -> str:
            body = urllib.parse.urlencode({"csrf": csrf, **fields}).encode()
            with opener.open(base + path, data=body, timeout=30) as response:
                return str(response.geturl())

        def review_next() -> None:
            """Submit the release's answer for the current assignment; lands on the next."""
            uid = next_url[0].rsplit("/", 1)[1]
            answer = release_answer(store.release.by_uid[uid])
            labels = answer.labels.model_dump() if answer.labels else {}
            next_url[0] = post(f"/trace/{uid}/review", {"verdict": answer.verdict, **labels})

        get("/signin")
        post("/signin", {"name": "bench", "next": "/"})
        store = open_audit(release, db=db, create=False)
        uid = store.scope()[0]
        next_url = [get("/next")[0]]
        rows = {
            "overview (100 rows)": _timed(lambda: get("/")),
            "trace view": _timed(lambda: get(f"/trace/{uid}")),
            "progress": _timed(lambda: get("/progress")),
            "review POST + next": _timed(review_next),
        }
    finally:
        server.terminate()
        server.wait(10)
    print(f"release: {len(store.release.trajectories)} trajectories, {release}")
    for name, (median, worst) in rows.items():
        print(f"{name:24s} median {median:7.1f} ms   max {worst:7.1f} ms   ({ROUNDS} requests)")
    for person in ("ann", "bob"):
        given = store.assign(person, len(store.scope()))
        answers = [(u, person, release_answer(store.release.by_uid[u])) for u in given]
        store.add_reviews(answers, source="bench", where=given)
    start = time.perf_counter()
    # the last redirect assigned the bench reviewer one more trajectory, left open
    summary, report = apply_audit(store, work / "r2", taxonomy=default_taxonomy(), allow_open=True)
    seconds = time.perf_counter() - start
    print(
        f"audit apply              {seconds:7.2f} s  -> v{summary.version}, "
        f"{report['settled']} settled, {report['open']} open"
    )


if __name__ == "__main__":
    main()
