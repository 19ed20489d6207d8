"""The records every part of the LLM layer exchanges: request, settings, completion, failure."""

from __future__ import annotations

import os
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, model_validator

from pipeline.core.model.errors import InputError

Dialect = Literal["json_schema", "json_object", "ollama", "prompt", "text"]
StructuredOutput = Literal["json_schema", "json_object", "ollama", "prompt", "auto"]
ReasonCode = Literal["invalid_answer", "retries_exhausted", "bad_request", "content_filtered"]


class LLMRequest(BaseModel):
    """One question for a generator role or judge; the unit of caching and of the ledger."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: str
    """Generator role or judge, e.g. "query_generator"; procedural handlers dispatch on it."""
    template: str
    """Template file name in the templates dir, e.g. "query_generator.j2"."""
    variables: dict[str, Any]
    """JSON-able context: rendered by jinja2 for real models, read directly by handlers."""
    output_schema: dict[str, Any]
    """JSON Schema of the answer, with enums constrained by the caller; answers must pass it."""
    stage: str
    """Pipeline stage, for the ledger."""
    domain: str
    """Domain (partition), for the ledger."""
    item_id: str
    """The item this call is about, so a failure can be traced back to its row."""
    sample_index: int = Field(default=0, ge=0)
    """Distinguishes repeated samples of the same prompt; part of the cache key."""
    free_text: bool = False
    """Ask for plain text (guards answer in their own format): no JSON mode, no schema, no
    re-ask; `LLMClient.ask_text` sets it."""


class LLMSettings(BaseModel):
    """Which backend and model to use and how hard to push it; flat so Dagster can carry it."""

    model_config = ConfigDict(extra="forbid")

    backend: Literal["procedural", "openai"] = "procedural"
    """"procedural" needs no network and is deterministic; "openai" speaks Chat Completions."""
    base_url: str | None = None
    """OpenAI-compatible endpoint, e.g. http://localhost:8000/v1; None means the SDK default."""
    api_key: SecretStr | None = None
    """Kept as a SecretStr so it never shows in a repr, a log, or a dump."""
    model: str = "procedural-v1"
    """Model name sent to the server; part of the cache key."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature; None leaves the server's default."""
    top_p: float | None = Field(default=None, gt=0, le=1)
    """Nucleus sampling mass; None leaves the server's default."""
    max_tokens: int | None = Field(default=None, gt=0)
    """Cap on answer tokens; an answer cut at the cap counts as a failed attempt."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Seconds to wait for one complete answer."""
    max_concurrency: int = Field(default=32, gt=0)
    """Backend calls in flight at once, per client."""
    max_retries: int = Field(default=6, ge=0)
    """Extra tries after a transient error (429, 5xx, timeout, connection)."""
    max_reasks: int = Field(default=2, ge=0)
    """Extra tries after an invalid answer, each showing the model its error."""
    backoff_base_s: float = Field(default=0.5, gt=0)
    """First backoff window; it doubles per retry (full jitter) up to `backoff_max_s`."""
    backoff_max_s: float = Field(default=30.0, gt=0)
    """Longest pause before a retry, including one the server asked for."""
    price_input_per_mtok: float = Field(default=0.0, ge=0)
    """USD per million prompt tokens, for the ledger's cost."""
    price_output_per_mtok: float = Field(default=0.0, ge=0)
    """USD per million completion tokens, for the ledger's cost."""
    structured_output: StructuredOutput = "auto"
    """How to ask for JSON; "auto" tries json_schema, then json_object, then prompt."""
    fail_fast_after: int = Field(default=20, ge=0)
    """Stop once this many calls have reached the backend and at least `fail_fast_share` of
    them failed (0: never): a broken endpoint ends the stage, not every item of it."""
    fail_fast_share: float = Field(default=1.0, gt=0, le=1)

    @model_validator(mode="after")
    def _openai_needs_a_model(self) -> LLMSettings:
        if self.backend == "openai" and self.model == "procedural-v1":
            raise ValueError(
                "the openai backend needs a model name: set ATBENCH_MODEL or pass --model "
                "(model=... in Python)"
            )
        return self

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMSettings:
        """Read OPENAI_BASE_URL, OPENAI_API_KEY, ATBENCH_MODEL, ATBENCH_STRUCTURED_OUTPUT,
        ATBENCH_TIMEOUT_S and ATBENCH_MAX_TOKENS (slow CPU servers need both), and
        ATBENCH_FAIL_FAST_AFTER.

        Explicit overrides that are not None win over the environment.
        """
        env = {
            "base_url": os.environ.get("OPENAI_BASE_URL"),
            "api_key": os.environ.get("OPENAI_API_KEY"),
            "model": os.environ.get("ATBENCH_MODEL"),
            "structured_output": os.environ.get("ATBENCH_STRUCTURED_OUTPUT"),
            "timeout_s": os.environ.get("ATBENCH_TIMEOUT_S"),
            "max_tokens": os.environ.get("ATBENCH_MAX_TOKENS"),
            "fail_fast_after": os.environ.get("ATBENCH_FAIL_FAST_AFTER"),
        }
        values = {k: v for k, v in env.items() if v}
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls.model_validate(values)
        except ValidationError as err:
            raise InputError.from_validation(
                err, file="LLM settings (options or ATBENCH_*/OPENAI_* environment variables)"
            ) from None

    def fingerprint(self) -> dict[str, Any]:
        """What changes the answers: backend, model and sampling; never the key or the URL."""
        return {
            "backend": self.backend,
            "model": self.model,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
        }


class Usage(BaseModel):
    """Token counts of one backend call; `estimated` when the backend could not count."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False


class Completion(BaseModel):
    """What one backend call returned, provider-neutral: nothing above a backend sees SDK types."""

    model_config = ConfigDict(frozen=True)

    text: str
    """The raw answer text, JSON to be parsed and validated by the client."""
    usage: Usage
    finish_reason: str | None = None
    dialect: Dialect | None = None
    """The structured-output dialect that produced it (openai backend only)."""


class LLMFailure(BaseModel):
    """A request that got no valid answer: returned, not raised, so the row is never lost."""

    model_config = ConfigDict(frozen=True)

    item_id: str
    role: str
    reason_code: ReasonCode
    """invalid_answer | retries_exhausted | bad_request | content_filtered."""
    errors: list[str]
    """Distinct errors in order of first occurrence, repeats grouped as "msg (x3)"."""
    attempts: int
    """Backend calls made for this request, including retries and re-asks."""

    def __str__(self) -> str:
        return (
            f"{self.role} call for item {self.item_id!r} failed ({self.reason_code}) after "
            f"{self.attempts} attempt(s): {'; '.join(self.errors)}"
        )
