"""Errors of the LLM layer, sorted by what the caller should do about them.

    LLMError                    anything a backend call can fail with
    ├── TransientError          worth retrying the same request after a pause
    │   ├── RateLimited         429; carries the server's `retry_after` when it gave one
    │   ├── Timeout             no answer within `timeout_s`
    │   ├── ServerError         5xx
    │   └── ConnectionFailed    could not reach the server, or it hung up
    └── PermanentError          the same request will fail the same way
        ├── BadRequest          4xx other than 429 (bad model, bad auth, unsupported option)
        ├── ContentFiltered     the provider refused the prompt or cut the answer
        └── SchemaViolation     the answer is not JSON, or not valid against the schema

Only `TransientError` is retried with backoff. `SchemaViolation` (and an answer cut by the
content filter) is re-asked with the error shown to the model, which is a different request.
openai SDK exceptions are mapped onto this tree at the boundary (`backends.py`), so nothing
above the backend ever sees an SDK type. Anything else that escapes is a bug and keeps its
traceback.

`EndpointFailing` is not a call's error but the client's verdict on many: it stops the stage.
"""

from __future__ import annotations

from pipeline.core.model.errors import AtbenchError


class LLMError(Exception):
    """A backend call failed; the subclass says whether trying again can help."""


class TransientError(LLMError):
    """A failure that a later identical request may not hit."""


class RateLimited(TransientError):
    """The server asked us to slow down (HTTP 429)."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        """Seconds the server asked us to wait (Retry-After / retry-after-ms), if it said."""


class Timeout(TransientError):
    """No complete answer arrived within the configured timeout."""


class ServerError(TransientError):
    """The server failed (HTTP 5xx)."""


class ConnectionFailed(TransientError):
    """The server could not be reached or dropped the connection."""


class PermanentError(LLMError):
    """Repeating the identical request would fail the same way."""


class BadRequest(PermanentError):
    """The server rejected the request (HTTP 4xx other than 429)."""


class ContentFiltered(PermanentError):
    """The provider's content filter refused the prompt or cut the answer."""


class SchemaViolation(PermanentError):
    """The answer is not a JSON object valid against the requested schema."""


class EndpointFailing(AtbenchError):
    """So many calls failed that going on would only fail the rest (see `fail_fast_after`)."""
