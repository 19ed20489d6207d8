"""The one entry point every generator role and judge uses: `LLMClient.ask`.

ask = render -> cache lookup -> (claim the key, backend call with retries, validated, re-asked
when invalid) -> cache write -> ledger line. Identical requests in flight are sent once: the
others wait for the key and read its answer from the cache. A request that cannot be answered
comes back as an `LLMFailure`, never as an exception, until so many fail that the client raises
`EndpointFailing` to stop the stage; other exceptions that escape are bugs.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from pipeline.core.llm.answers import parse_answer, validate_answer
from pipeline.core.llm.backends import Backend, Handler, OpenAIBackend, ProceduralBackend
from pipeline.core.llm.cache import ResponseCache, cache_key
from pipeline.core.llm.errors import (
    BadRequest,
    ContentFiltered,
    EndpointFailing,
    LLMError,
    RateLimited,
    SchemaViolation,
    TransientError,
)
from pipeline.core.llm.ledger import Ledger, LedgerEntry
from pipeline.core.llm.redact import redact, settings_secrets
from pipeline.core.llm.templates import Message, TemplateRenderer
from pipeline.core.llm.types import Completion, LLMFailure, LLMRequest, LLMSettings, ReasonCode
from pipeline.core.model.progress import report as progress

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


@dataclass
class _Tally:
    """What one `ask` spent and suffered across retries and re-asks."""

    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False
    errors: list[str] = field(default_factory=list)

    def add(self, completion: Completion) -> None:
        self.prompt_tokens += completion.usage.prompt_tokens
        self.completion_tokens += completion.usage.completion_tokens
        self.estimated = self.estimated or completion.usage.estimated

    def note(self, err: LLMError) -> None:
        self.errors.append(f"{type(err).__name__}: {err}")

    def grouped_errors(self) -> list[str]:
        """Distinct errors in order of first occurrence; repeats become "msg (x3)"."""
        counts = Counter(self.errors)
        return [msg if counts[msg] == 1 else f"{msg} (x{counts[msg]})" for msg in counts]


class LLMClient:
    """Asks structured questions through one backend, behind a cache and a ledger.

    Use one client per event loop, and close it (`async with` or `aclose`) when done.
    """

    def __init__(
        self,
        settings: LLMSettings,
        *,
        backend: Backend,
        cache: ResponseCache,
        ledger: Ledger,
        renderer: TemplateRenderer,
        limiter: asyncio.Semaphore | None = None,
    ) -> None:
        self.settings = settings
        self.backend = backend
        self.cache = cache
        self.ledger = ledger
        self.renderer = renderer
        self._fingerprint = settings.fingerprint()
        self._secrets = settings_secrets(settings)
        # A limiter shared by several clients (one per domain) bounds their requests together.
        self._semaphore = limiter or asyncio.Semaphore(settings.max_concurrency)
        self._asking: dict[str, asyncio.Lock] = {}
        """One lock per key being asked in this process: the single flight."""
        self._not_before = 0.0
        """Monotonic time before which nobody sends: set by a 429 that said how long to wait."""
        self._asked = 0
        self._failed: Counter[str] = Counter()
        """Failed backend calls by their last error, for `EndpointFailing`."""

    def __repr__(self) -> str:
        return f"LLMClient(backend={self.backend!r}, cache={str(self.cache.folder)!r})"

    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.backend.aclose()
        self.cache.close()
        self.ledger.close()

    async def ask_all(self, items: Sequence[tuple[LLMRequest, type[M]]]) -> list[M | LLMFailure]:
        """`ask` for every item concurrently (bounded by max_concurrency), results in order."""
        return list(await asyncio.gather(*(self.ask(request, model) for request, model in items)))

    def _prepare(self, request: LLMRequest) -> tuple[list[Message], str]:
        messages = self.renderer.render(request.template, request.variables)
        key = cache_key(
            fingerprint=self._fingerprint,
            messages=messages,
            output_schema={"free_text": True} if request.free_text else request.output_schema,
            sample_index=request.sample_index,
            template_sha256=self.renderer.template_sha256(request.template),
            item_id=request.item_id,
            variables=request.variables if self.backend.reads_variables else None,
        )
        return messages, key

    async def ask_text(self, request: LLMRequest) -> str | LLMFailure:
        """The model's answer as plain text, cached like any other; only transport errors,
        refusals by the server and content filters are failures. Reading the text (a guard's
        verdict format) is the caller's job, so an answer outside the format is not re-asked.
        """
        request = request.model_copy(update={"free_text": True})
        started = time.perf_counter()
        messages, key = self._prepare(request)
        cached = self.cache.get(key)
        if isinstance(cached, dict) and isinstance(cached.get("text"), str):
            self._record(request, _Tally(), started, cached=True)
            return str(cached["text"])
        tally = _Tally()
        try:
            completion = await self._complete_with_retries(request, messages, tally)
        except TransientError:
            return self._fail(request, tally, started, "retries_exhausted")
        except BadRequest as err:
            tally.note(err)
            return self._fail(request, tally, started, "bad_request")
        except ContentFiltered as err:
            tally.note(err)
            return self._fail(request, tally, started, "content_filtered")
        tally.add(completion)
        if completion.finish_reason == "content_filter":
            tally.note(ContentFiltered("the content filter cut the answer"))
            return self._fail(request, tally, started, "content_filtered")
        self.cache.put(key, {"text": completion.text}, self._meta(request, completion))
        self._record(request, tally, started, cached=False)
        return completion.text

    async def ask(self, request: LLMRequest, answer_model: type[M]) -> M | LLMFailure:
        """A validated `answer_model`, or an `LLMFailure` saying why there is none."""
        started = time.perf_counter()
        messages, key = self._prepare(request)
        answer = self._cached(key, answer_model)
        if answer is None:
            async with self._single_flight(key):
                answer = self._cached(key, answer_model)
                if answer is None:
                    return await self._ask_backend(request, answer_model, messages, key, started)
        self._record(request, _Tally(), started, cached=True)
        return answer

    @asynccontextmanager
    async def _single_flight(self, key: str) -> AsyncIterator[None]:
        """Hold `key` in this process and, unless answers are deterministic, in every process
        sharing the cache; a waiter then finds the holder's answer in the cache."""
        async with self._asking.setdefault(key, asyncio.Lock()):
            if self.backend.deterministic:
                yield
                return
            async with self.cache.claim(key):
                yield

    def _cached(self, key: str, answer_model: type[M]) -> M | None:
        cached = self.cache.get(key)
        if cached is None:
            return None
        try:
            return answer_model.model_validate(cached)
        except ValidationError:
            logger.warning("cached answer for %s no longer fits %s", key, answer_model.__name__)
            return None

    async def _ask_backend(
        self,
        request: LLMRequest,
        answer_model: type[M],
        messages: list[Message],
        key: str,
        started: float,
    ) -> M | LLMFailure:
        tally = _Tally()
        conversation = list(messages)
        reason: ReasonCode = "invalid_answer"
        for _ in range(self.settings.max_reasks + 1):
            try:
                completion = await self._complete_with_retries(request, conversation, tally)
            except TransientError:
                return self._fail(request, tally, started, "retries_exhausted")
            except BadRequest as err:
                tally.note(err)
                return self._fail(request, tally, started, "bad_request")
            except ContentFiltered as err:
                # The prompt itself was refused: resampling may pass, so it spends a re-ask.
                tally.note(err)
                reason = "content_filtered"
                continue
            tally.add(completion)
            if completion.finish_reason == "content_filter":
                tally.note(ContentFiltered("the content filter cut the answer"))
                reason = "content_filtered"
                continue
            try:
                if completion.finish_reason == "length":
                    raise SchemaViolation("the answer was cut off at max_tokens")
                answer = validate_answer(
                    parse_answer(completion.text), request.output_schema, answer_model
                )
            except SchemaViolation as err:
                tally.note(err)
                reason = "invalid_answer"
                conversation += [
                    {"role": "assistant", "content": completion.text},
                    {"role": "user", "content": reask_message(err)},
                ]
                continue
            self.cache.put(key, answer.model_dump(mode="json"), self._meta(request, completion))
            self._record(request, tally, started, cached=False)
            return answer
        return self._fail(request, tally, started, reason)

    async def _complete_with_retries(
        self, request: LLMRequest, messages: list[Message], tally: _Tally
    ) -> Completion:
        """One backend answer, retrying only transient errors with backoff."""
        tries = self.settings.max_retries + 1
        for attempt in range(1, tries + 1):
            await self._cool_down()
            tally.attempts += 1
            try:
                async with self._semaphore:
                    return await self.backend.complete(request, messages)
            except TransientError as err:
                tally.note(err)
                if attempt == tries:
                    raise
                delay = self._backoff(attempt, err)
                logger.warning(
                    "Encountered '%s: %s' during attempt %d of %d for %s item %r; "
                    "retrying in %.2fs",
                    type(err).__name__,
                    err,
                    attempt,
                    tries,
                    request.role,
                    request.item_id,
                    delay,
                )
                await asyncio.sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")

    def _backoff(self, attempt: int, err: TransientError) -> float:
        """Full-jitter exponential backoff, never shorter than what the server asked for."""
        cap = self.settings.backoff_max_s
        delay = random.uniform(0, min(cap, self.settings.backoff_base_s * 2 ** (attempt - 1)))
        if isinstance(err, RateLimited) and err.retry_after is not None:
            wait = min(err.retry_after, cap)
            # Everyone waits, not only this request: the limit is per key, not per request.
            self._not_before = max(self._not_before, time.monotonic() + wait)
            delay = max(delay, wait)
        return delay

    async def _cool_down(self) -> None:
        while (wait := self._not_before - time.monotonic()) > 0:
            await asyncio.sleep(wait)

    def _meta(self, request: LLMRequest, completion: Completion) -> dict[str, Any]:
        return {
            "role": request.role,
            "item_id": request.item_id,
            "template": request.template,
            "model": self.settings.model,
            "backend": self.backend.name,
            "dialect": completion.dialect,
            "finish_reason": completion.finish_reason,
            "ts": time.time(),
        }

    def _fail(
        self, request: LLMRequest, tally: _Tally, started: float, reason: ReasonCode
    ) -> LLMFailure:
        failure = LLMFailure(
            item_id=request.item_id,
            role=request.role,
            reason_code=reason,
            # Everything a failure says is kept (rejections, ledger, logs): redact it once here.
            errors=[redact(error, self._secrets) for error in tally.grouped_errors()],
            attempts=tally.attempts,
        )
        logger.warning("%s", failure)
        status = "invalid" if reason == "invalid_answer" else "failed"
        self._record(request, tally, started, cached=False, status=status, error=str(failure))
        last = failure.errors[-1].rsplit(" (x", 1)[0] if failure.errors else reason
        self._failed[last] += 1
        self._check_failure_share(request)
        return failure

    def _check_failure_share(self, request: LLMRequest) -> None:
        settings = self.settings
        failed = sum(self._failed.values())
        if not settings.fail_fast_after or self._asked < settings.fail_fast_after:
            return
        if failed < settings.fail_fast_share * self._asked:
            return
        error, times = self._failed.most_common(1)[0]
        raise EndpointFailing(
            f"stage {request.stage} stopped: {failed} of the {self._asked} LLM calls so far "
            f"failed (model {settings.model!r}); most common error, in {times} of them: {error}"
        )

    def _record(
        self,
        request: LLMRequest,
        tally: _Tally,
        started: float,
        *,
        cached: bool,
        status: str = "ok",
        error: str | None = None,
    ) -> None:
        settings = self.settings
        progress().call_done(cached=cached)
        if not cached:
            self._asked += 1
        cost = 0.0  # the procedural backend is free whatever prices are configured
        if settings.backend == "openai":
            cost = (
                tally.prompt_tokens * settings.price_input_per_mtok
                + tally.completion_tokens * settings.price_output_per_mtok
            ) / 1_000_000
        entry = LedgerEntry.model_validate(
            {
                "ts": time.time(),
                "stage": request.stage,
                "domain": request.domain,
                "role": request.role,
                "item_id": request.item_id,
                "model": settings.model,
                "backend": self.backend.name,
                "cached": cached,
                "attempts": tally.attempts,
                "prompt_tokens": tally.prompt_tokens,
                "completion_tokens": tally.completion_tokens,
                "tokens_estimated": tally.estimated,
                "latency_s": time.perf_counter() - started,
                "cost_usd": cost,
                "status": status,
                "error": error,
            }
        )
        self.ledger.record(entry)


def reask_message(err: SchemaViolation) -> str:
    """What the model is told after an invalid answer: the error, then the instruction."""
    return (
        f"Your previous answer was rejected: {err}. Answer again with only a JSON object "
        "that is valid against the requested schema."
    )


def make_client(
    settings: LLMSettings,
    *,
    cache_dir: Path,
    namespace: str,
    ledger_path: Path,
    templates_dir: Path,
    handlers: Mapping[str, Handler] | None = None,
    limiter: asyncio.Semaphore | None = None,
) -> LLMClient:
    """A client for `settings`; `ledger_path` is a folder, one segment file per process."""
    backend: Backend
    if settings.backend == "procedural":
        if handlers is None:
            raise ValueError(
                "the procedural backend needs handlers: pass handlers={role: function}"
            )
        backend = ProceduralBackend(handlers)
    else:
        backend = OpenAIBackend(settings)
    return LLMClient(
        settings,
        backend=backend,
        cache=ResponseCache(cache_dir, namespace),
        ledger=Ledger(ledger_path),
        renderer=TemplateRenderer(templates_dir),
        limiter=limiter,
    )
