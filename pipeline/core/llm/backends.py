"""Backends: the only code that knows how an answer is produced.

Each turns (request, messages) into a provider-neutral `Completion` or raises an error from
`errors.py`. Retries, re-asks, caching and the ledger live in the client, once, for both.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Mapping
from email.utils import parsedate_to_datetime
from time import time
from typing import Any, Protocol, cast

import openai
from openai.types.chat import ChatCompletionMessageParam

from pipeline.core.llm.cache import canonical_json
from pipeline.core.llm.errors import (
    BadRequest,
    ConnectionFailed,
    ContentFiltered,
    LLMError,
    RateLimited,
    ServerError,
    Timeout,
)
from pipeline.core.llm.redact import redact, settings_secrets
from pipeline.core.llm.schema_subset import subset_problems
from pipeline.core.llm.templates import Message
from pipeline.core.llm.types import Completion, Dialect, LLMRequest, LLMSettings, Usage

logger = logging.getLogger(__name__)

Handler = Callable[[LLMRequest], dict[str, Any]]

ROLE_HEADER = "X-Atbench-Role"
"""Sent with every request so a test server (or a proxy's logs) can tell the roles apart."""

_AUTO_ORDER: list[Dialect] = ["json_schema", "json_object", "prompt"]
_UNSUPPORTED = re.compile(
    r"not supported|unsupported|does not support|not support|unknown|unrecognized"
    r"|extra inputs are not permitted",
    re.IGNORECASE,
)


class Backend(Protocol):
    name: str
    reads_variables: bool
    """True when answers depend on request.variables directly, not only on the messages."""
    deterministic: bool
    """True when a request always gets the same answer, so two processes may both ask it."""

    async def complete(self, request: LLMRequest, messages: list[Message]) -> Completion: ...

    async def aclose(self) -> None: ...


def estimate_tokens(text: str) -> int:
    """About four characters per token: the usual rule of thumb for English text."""
    return (len(text) + 3) // 4


class ProceduralBackend:
    """Deterministic answers from per-role handlers: no network, same input, same answer."""

    name = "procedural"
    reads_variables = True
    deterministic = True

    def __init__(self, handlers: Mapping[str, Handler]) -> None:
        self._handlers = dict(handlers)

    def __repr__(self) -> str:
        return f"ProceduralBackend(roles={sorted(self._handlers)})"

    async def complete(self, request: LLMRequest, messages: list[Message]) -> Completion:
        handler = self._handlers.get(request.role)
        if handler is None:
            known = ", ".join(sorted(self._handlers)) or "none"
            raise LookupError(
                f"the procedural backend has no handler for role {request.role!r}; "
                f"known roles: {known}"
            )
        text = json.dumps(handler(request), ensure_ascii=False)
        prompt_chars = sum(len(m["content"]) for m in messages)
        usage = Usage(
            prompt_tokens=(prompt_chars + 3) // 4,
            completion_tokens=estimate_tokens(text),
            estimated=True,
        )
        return Completion(text=text, usage=usage, finish_reason="stop")

    async def aclose(self) -> None:
        return None


class OpenAIBackend:
    """Chat Completions against any OpenAI-compatible server, in the dialect it understands.

    The SDK's own retries are off (max_retries=0): the retry policy lives in the client only.
    With structured_output="auto" the first dialect the server accepts is remembered for the
    lifetime of this backend.
    """

    name = "openai"
    reads_variables = False
    deterministic = False

    def __init__(self, settings: LLMSettings) -> None:
        self._settings = settings
        key = settings.api_key.get_secret_value() if settings.api_key else "EMPTY"
        # "EMPTY" is what local servers (vLLM, llama.cpp) accept when they need no key.
        self._client = openai.AsyncOpenAI(
            base_url=settings.base_url,
            api_key=key,
            timeout=settings.timeout_s,
            max_retries=0,
        )
        self._secrets = settings_secrets(settings)
        mode = settings.structured_output
        self._dialects: list[Dialect] = _AUTO_ORDER if mode == "auto" else [mode]
        self._dialect_index = 0
        self._checked: set[str] = set()
        """Answer schemas already checked against the portable subset."""

    def __repr__(self) -> str:
        return (
            f"OpenAIBackend(base_url={self._settings.base_url!r}, "
            f"model={self._settings.model!r}, dialect={self.dialect!r})"
        )

    @property
    def base_url(self) -> str:
        return str(self._client.base_url)

    async def model_ids(self) -> list[str]:
        """The ids the server's models route lists."""
        try:
            page = await self._client.models.list()
        except openai.APIError as err:
            raise map_openai_error(err) from err
        return [model.id for model in page.data]

    @property
    def dialect(self) -> Dialect:
        """The structured-output dialect requests are sent in now."""
        return self._dialects[self._dialect_index]

    async def complete(self, request: LLMRequest, messages: list[Message]) -> Completion:
        if request.free_text:
            return await self._call("text", request, messages)
        while True:
            index = self._dialect_index
            try:
                return await self._call(self._dialects[index], request, messages)
            except (BadRequest, ServerError) as err:
                if index + 1 >= len(self._dialects) or not refuses_dialect(err):
                    raise
                # Several requests may fail in the old dialect at once: step past the one
                # this request used, never further.
                self._dialect_index = max(self._dialect_index, index + 1)
                logger.warning(
                    "server rejected structured-output dialect %r (%s); using %r from now on",
                    self._dialects[index],
                    err,
                    self.dialect,
                )

    async def _call(
        self, dialect: Dialect, request: LLMRequest, messages: list[Message]
    ) -> Completion:
        if dialect not in ("prompt", "text"):
            self._warn_outside_subset(request)
        body = request_body(dialect, request, messages, self._settings)
        sent: list[Message] = body.pop("messages")
        try:
            response = await self._client.chat.completions.create(
                model=self._settings.model,
                messages=cast("list[ChatCompletionMessageParam]", sent),
                extra_body=body,
                extra_headers={ROLE_HEADER: request.role},
            )
        except openai.APIError as err:
            raise map_openai_error(err, self._secrets) from None
        if not response.choices:
            raise ServerError("the server answered with no choices")
        choice = response.choices[0]
        text = choice.message.content or ""
        if dialect != "text":
            text = strict_json(text)
        if response.usage is not None:
            usage = Usage(
                prompt_tokens=response.usage.prompt_tokens,
                completion_tokens=response.usage.completion_tokens,
            )
        else:
            prompt_text = "".join(m["content"] for m in sent)
            usage = Usage(
                prompt_tokens=estimate_tokens(prompt_text),
                completion_tokens=estimate_tokens(text),
                estimated=True,
            )
        return Completion(
            text=text, usage=usage, finish_reason=choice.finish_reason, dialect=dialect
        )

    def _warn_outside_subset(self, request: LLMRequest) -> None:
        """Once per schema: a decoder may silently leave a schema outside the subset unenforced."""
        key = canonical_json(request.output_schema)
        if key in self._checked:
            return
        self._checked.add(key)
        problems = subset_problems(request.output_schema)
        if problems:
            logger.warning(
                "the %s answer schema leaves the JSON Schema subset every dialect decodes, so "
                "the server may not enforce it (answers are still validated): %s",
                request.role,
                "; ".join(problems[:3]),
            )

    async def aclose(self) -> None:
        await self._client.close()


def request_body(
    dialect: Dialect, request: LLMRequest, messages: list[Message], settings: LLMSettings
) -> dict[str, Any]:
    """The Chat Completions body (without model) that asks for JSON in `dialect`.

    Everything goes through `extra_body` because two dialects are not in the SDK's types
    (llama-cpp-python's json_object + schema, Ollama's `format`).
    """
    schema = request.output_schema
    body: dict[str, Any] = {"messages": messages}
    for name in ("temperature", "top_p", "max_tokens"):
        value = getattr(settings, name)
        if value is not None:
            body[name] = value
    if dialect == "json_schema":
        spec: dict[str, Any] = {"name": schema_name(request.role), "schema": schema}
        if strict_compatible(schema):
            spec["strict"] = True
        body["response_format"] = {"type": "json_schema", "json_schema": spec}
    elif dialect == "json_object":
        body["response_format"] = {"type": "json_object", "schema": schema}
    elif dialect == "ollama":
        body["format"] = schema
    elif dialect == "prompt":
        body["messages"] = with_schema_instruction(messages, schema)
    return body


def strict_json(text: str) -> str:
    """`text` re-encoded as strict JSON when its only fault is raw control characters in strings.

    llama-cpp-python's JSON-schema grammars let any character but `"` and `\\` into a string,
    so a grammar-constrained answer can hold a raw newline or tab there: unambiguous, but refused
    by a strict parser. Such an answer is re-encoded; any other text is returned as it came.
    """
    try:
        json.loads(text)
    except ValueError:
        try:
            return json.dumps(json.loads(text, strict=False), ensure_ascii=False)
        except ValueError:
            return text
    return text


def refuses_dialect(err: LLMError) -> bool:
    """Whether the server said it does not know how we asked for JSON, not that the call failed.

    Most servers answer 400 with words like "not supported"; llama-cpp-python answers an unknown
    `response_format.type` with a 500 carrying pydantic's literal_error for that field.
    """
    text = str(err)
    if isinstance(err, BadRequest):
        return bool(_UNSUPPORTED.search(text))
    return isinstance(err, ServerError) and "response_format" in text and "literal_error" in text


def schema_name(role: str) -> str:
    """The role as a response_format name (OpenAI allows [A-Za-z0-9_-], 64 chars)."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", role)[:64] or "answer"


def strict_compatible(schema: Any) -> bool:
    """Whether OpenAI's strict mode accepts `schema`: every object closed, every key required."""
    if isinstance(schema, list):
        return all(strict_compatible(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if "default" in schema:
        return False
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required", [])) != set(properties):
            return False
    return all(strict_compatible(value) for value in schema.values())


def with_schema_instruction(messages: list[Message], schema: dict[str, Any]) -> list[Message]:
    """Messages with the schema spelled out in the system message, for servers without JSON mode."""
    instruction = (
        "Reply with one JSON object and nothing else. It must be valid against this "
        f"JSON Schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )
    if messages and messages[0]["role"] == "system":
        system = {"role": "system", "content": f"{messages[0]['content']}\n\n{instruction}"}
        return [system, *messages[1:]]
    return [{"role": "system", "content": instruction}, *messages]


def map_openai_error(err: openai.APIError, secrets: tuple[str, ...] = ()) -> LLMError:
    """The error-tree class for an SDK exception; the message keeps the server's words, less
    any credential they echo (see `redact.py`)."""
    message = redact(err.message, secrets)
    if isinstance(err, openai.APITimeoutError):
        return Timeout(redact(f"no answer within the timeout ({err.request.url})", secrets))
    if isinstance(err, openai.APIConnectionError):
        return ConnectionFailed(redact(f"{message} ({err.request.url})", secrets))
    if isinstance(err, openai.APIStatusError):
        status = err.status_code
        if status == 429:
            return RateLimited(message, retry_after=retry_after(err.response.headers))
        if status == 408:
            return Timeout(message)
        if status == 409 or status >= 500:
            return ServerError(message)
        if err.code in ("content_filter", "content_policy_violation"):
            return ContentFiltered(message)
        return BadRequest(message)
    return ServerError(f"unusable response: {message}")


def retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds from retry-after-ms or Retry-After (seconds or an HTTP date), if present."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        return max(parsedate_to_datetime(value).timestamp() - time(), 0.0)
    except (TypeError, ValueError):
        return None
