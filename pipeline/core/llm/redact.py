"""The one redaction step for text that came from a server, a request or the environment.

Servers and proxies may echo request headers in their error text; that text reaches
rejections, the ledger, stage files and logs. Before it is kept anywhere it loses the
configured API key and anything shaped like a bearer token, an `sk-` key or credentials in a
URL, whether or not it is the configured key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from pipeline.core.llm.types import LLMSettings

REDACTED = "[redacted]"
_SHAPES = re.compile(
    r"(?P<keep>(?i:bearer|basic)\s+)[^\s\"',;]+"
    r"|\bsk-[A-Za-z0-9_\-]{6,}"
    r"|(?P<scheme>://)[^/@\s]+@"
)
_MIN_SECRET = 4
"""Shorter "keys" (e.g. the "EMPTY" local servers take would pass) are not worth a scan."""


def settings_secrets(settings: LLMSettings) -> tuple[str, ...]:
    """The keys a backend built from `settings` may send: configured, and in the environment."""
    configured = settings.api_key.get_secret_value() if settings.api_key else None
    return tuple(key for key in (configured, os.environ.get("OPENAI_API_KEY")) if key)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` without `secrets` and without anything shaped like a credential."""
    for secret in secrets:
        if len(secret) >= _MIN_SECRET:
            text = text.replace(secret, REDACTED)
    return _SHAPES.sub(_replacement, text)


def _replacement(match: re.Match[str]) -> str:
    if match.group("scheme"):
        return f"://{REDACTED}@"
    return (match.group("keep") or "") + REDACTED
