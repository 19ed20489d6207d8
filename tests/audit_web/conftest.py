"""The audit app served by a real uvicorn on 127.0.0.1, and a small cookie-keeping client."""

from __future__ import annotations

import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette

from pipeline.audit_web.app import create_app
from pipeline.audit_web.security import Access
from pipeline.core.audit import AuditStore, open_audit
from pipeline.core.inputs.taxonomy import default_taxonomy
from tests.core.audit.helpers import publish_small

_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@contextmanager
def serving(app: Starlette) -> Iterator[str]:
    """Run `app` on a free loopback port in a thread; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the audit server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@dataclass
class Page:
    status: int
    url: str
    text: str
    headers: dict[str, str]


class Client:
    """One browser: keeps its cookie, follows redirects, echoes the last page's CSRF token."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
        self.csrf = ""

    def get(self, path: str) -> Page:
        return self._open(urllib.request.Request(self.base + path))

    def post(
        self, path: str, fields: dict[str, str], *, headers: dict[str, str] | None = None
    ) -> Page:
        body = urllib.parse.urlencode({"csrf": self.csrf, **fields}).encode()
        request = urllib.request.Request(
            self.base + path, data=body, method="POST", headers=headers or {}
        )
        return self._open(request)

    def sign_in(self, name: str, token: str = "") -> Page:
        self.get("/signin")
        return self.post("/signin", {"name": name, "token": token, "next": "/"})

    def _open(self, request: urllib.request.Request) -> Page:
        try:
            with self.opener.open(request, timeout=20) as response:
                page = Page(
                    response.status,
                    response.url,
                    response.read().decode(),
                    {k.lower(): v for k, v in response.headers.items()},
                )
        except urllib.error.HTTPError as err:
            page = Page(
                err.code,
                err.url,
                err.read().decode(),
                {k.lower(): v for k, v in err.headers.items()},
            )
        found = _CSRF.search(page.text)
        if found:
            self.csrf = found.group(1)
        return page


@pytest.fixture(scope="session")
def release_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return publish_small(tmp_path_factory.mktemp("releases") / "r1", n_pairs=2, hostile=True)


@pytest.fixture
def store(release_dir: Path, tmp_path: Path) -> AuditStore:
    return open_audit(release_dir, db=tmp_path / "audit.duckdb")


@pytest.fixture
def base_url(store: AuditStore) -> Iterator[str]:
    with serving(create_app(store, default_taxonomy(), Access())) as url:
        yield url
