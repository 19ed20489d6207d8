"""Check a model endpoint with two requests before a build sends it thousands.

One models request (is anything listening, and is the model listed?) and one tiny structured
request through the same backend a build uses (does the model answer JSON valid against a
schema, and in which structured-output dialect?). Either failure raises an `AtbenchError` with
the real cause and what to try, instead of a stage of retries ending in a balance gate.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from pipeline.core.llm.answers import parse_answer, validate_answer
from pipeline.core.llm.backends import OpenAIBackend
from pipeline.core.llm.errors import BadRequest, LLMError, SchemaViolation, TransientError
from pipeline.core.llm.types import Dialect, LLMRequest, LLMSettings
from pipeline.core.model.errors import AtbenchError

PROBE_TIMEOUT_S = 30.0
"""A probe waits at most this long (or the request timeout, when shorter)."""


class ProbeAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ok: bool


PROBE = LLMRequest(
    role="preflight",
    template="",
    variables={},
    output_schema={
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"],
        "additionalProperties": False,
    },
    stage="preflight",
    domain="*",
    item_id="preflight",
)


class Preflight(BaseModel):
    """What the endpoint showed: where, which model, the dialect that worked."""

    base_url: str
    model: str
    dialect: Dialect
    listed: bool
    """Whether the models request listed the model (some servers serve unlisted names)."""

    def describe(self) -> str:
        listed = "" if self.listed else " (not in the server's model list, but it answered)"
        how = (
            "in plain text"
            if self.dialect == "text"
            else f"with structured output {self.dialect!r}"
        )
        return f"endpoint {self.base_url} answers model {self.model!r}{listed} {how}"


async def preflight(settings: LLMSettings, *, structured: bool = True) -> Preflight:
    """Probe the endpoint of `settings` once, without retries; raise on the first failure.

    `structured=False` is for callers that ask for plain text (a guard's verdict): the probe
    then asks for text too, so a guard model that writes no JSON still passes."""
    probe = settings.model_copy(
        update={"timeout_s": min(settings.timeout_s, PROBE_TIMEOUT_S), "max_tokens": 32}
    )
    backend = OpenAIBackend(probe)
    url = backend.base_url
    request = PROBE if structured else PROBE.model_copy(update={"free_text": True})
    try:
        models = await _listed_models(backend, url)
        try:
            ask = 'Reply with the JSON object {"ok": true}.' if structured else "Reply with: ok"
            completion = await backend.complete(request, [{"role": "user", "content": ask}])
            if structured:
                validate_answer(parse_answer(completion.text), PROBE.output_schema, ProbeAnswer)
        except BadRequest as err:
            served = f"; the server lists: {', '.join(models)}" if models else ""
            raise AtbenchError(
                f"the endpoint {url} refused a structured request for model "
                f"{settings.model!r}: {err}{served}. Check --model / ATBENCH_MODEL, the API key "
                "(OPENAI_API_KEY), or try another --structured-output"
            ) from None
        except SchemaViolation as err:
            raise AtbenchError(
                f"model {settings.model!r} at {url} did not answer a one-field JSON schema in "
                f"dialect {backend.dialect!r}: {err}. Try --structured-output json_object or "
                "prompt, or a model that follows JSON schemas"
            ) from None
        except LLMError as err:
            raise _unreachable(url, err) from None
    finally:
        await backend.aclose()
    return Preflight(
        base_url=url,
        model=settings.model,
        dialect=backend.dialect if structured else "text",
        listed=settings.model in models,
    )


async def _listed_models(backend: OpenAIBackend, url: str) -> list[str]:
    """The server's model ids; an endpoint without a models route lists none."""
    try:
        return await backend.model_ids()
    except BadRequest:
        return []
    except LLMError as err:
        raise _unreachable(url, err) from None


def _unreachable(url: str, err: LLMError) -> AtbenchError:
    hint = (
        "is the server running and is --base-url / OPENAI_BASE_URL right?"
        if isinstance(err, TransientError)
        else "check the server's log"
    )
    return AtbenchError(
        f"the model endpoint {url} failed its preflight with {type(err).__name__}: {err}; {hint} "
        "Nothing was run."
    )
