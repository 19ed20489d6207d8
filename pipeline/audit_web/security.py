"""Who may use the audit app, signed session cookies, CSRF tokens and response headers.

Trace content is hostile by design (prompt injections, HTML pages, scripts), so every response
carries a Content-Security-Policy that allows only this server's own script and style files
and no images, frames or form targets elsewhere. Sessions are an HMAC-signed cookie (key made
at start-up, so a restart signs everyone out); every POST must echo the session's CSRF token
and, when the browser sends one, an Origin equal to this server's.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import ipaddress
import json
import secrets
from dataclasses import dataclass, field
from typing import Any

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.core.model.errors import AtbenchError

COOKIE = "atbench_audit"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # no-referrer would make browsers send `Origin: null`
    "cross-origin-opener-policy": "same-origin",
    "cache-control": "no-store",
}


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Access:
    """The server's access rule: open browsing on loopback, a shared token anywhere else."""

    token: str | None = None
    """When set, signing in needs it and nothing is shown before sign-in."""
    key: bytes = field(default_factory=lambda: secrets.token_bytes(32), repr=False)

    @classmethod
    def for_host(cls, host: str, token: str | None) -> Access:
        if not is_loopback(host) and not token:
            raise AtbenchError(
                f"refusing to serve the audit on {host!r} without a token: anyone who can reach "
                "it could read and change the audit. Bind to 127.0.0.1, or pass --token (or "
                "set ATBENCH_AUDIT_TOKEN) and share it with the reviewers"
            )
        return cls(token=token or None)

    def token_ok(self, given: str) -> bool:
        return self.token is None or hmac.compare_digest(given.encode(), self.token.encode())

    def sign(self, session: dict[str, Any]) -> str:
        body = base64.urlsafe_b64encode(json.dumps(session, sort_keys=True).encode()).decode()
        return f"{body}.{self._mac(body)}"

    def unsign(self, cookie: str | None) -> dict[str, Any] | None:
        if not cookie or "." not in cookie:
            return None
        body, mac = cookie.rsplit(".", 1)
        if not hmac.compare_digest(mac, self._mac(body)):
            return None
        try:
            session = json.loads(base64.urlsafe_b64decode(body.encode()))
        except ValueError:
            return None
        return session if isinstance(session, dict) else None

    def _mac(self, body: str) -> str:
        return hmac.new(self.key, body.encode(), hashlib.sha256).hexdigest()


def session_of(request: Request) -> dict[str, Any]:
    """The request's session; a fresh anonymous one (with its CSRF token) when absent."""
    session: dict[str, Any] = request.scope["audit_session"]
    return session


def csrf_ok(request: Request, form: dict[str, str]) -> bool:
    """The form echoes the session's token; the Origin and Sec-Fetch-Site headers, where
    the browser sends them, say the form came from this server."""
    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        return False
    if request.headers.get("sec-fetch-site", "same-origin") != "same-origin":
        return False
    token = session_of(request).get("csrf", "")
    return bool(token) and hmac.compare_digest(form.get("csrf", ""), token)


class SessionMiddleware:
    """Loads the signed session cookie into the scope and writes it back when it changed;
    adds the security headers to every response."""

    def __init__(self, app: ASGIApp, access: Access) -> None:
        self.app = app
        self.access = access

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        loaded = self.access.unsign(request.cookies.get(COOKIE))
        session = loaded or {"csrf": secrets.token_urlsafe(24)}
        scope["audit_session"] = session
        before = json.dumps(loaded, sort_keys=True)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
                if json.dumps(session, sort_keys=True) != before:
                    headers.append(
                        "set-cookie",
                        f"{COOKIE}={self.access.sign(session)}; Path=/; HttpOnly; SameSite=Strict",
                    )
            await send(message)

        await self.app(scope, receive, send_with_headers)
