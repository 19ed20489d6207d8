"""The one build configuration: what to build, with which model, and where to write it.

The CLI, the Dagster resource and regeneration all construct a `BuildConfig`; the release's
manifest records its `spec()`, and `BuildConfig.for_spec` turns a recorded spec back into a
configuration. A field that is not given is read from the environment (`ATBENCH_<FIELD>`, and
`OPENAI_BASE_URL` for the endpoint) by pydantic-settings, then falls back to its default; the
API key never enters it (the openai backend reads `OPENAI_API_KEY` itself).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from pipeline.core.build.options import check_build_options
from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.llm import LLMSettings
from pipeline.core.llm.types import StructuredOutput
from pipeline.core.model.errors import InputError
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.procedural import MODEL_NAME as PROCEDURAL_MODEL


class BuildConfig(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="ATBENCH_", extra="forbid", frozen=True, populate_by_name=True
    )

    size: int = Field(default=1000, ge=2)
    seed: int = 0
    unsafe_share: float = Field(default=0.5, gt=0, le=0.5)
    long_context_share: float = Field(default=0.15, ge=0, le=1)
    long_html_share: float = Field(default=0.08, ge=0, le=1)
    overplan: float = Field(default=0.2, ge=0, le=2)
    """Pairs planned beyond each domain's share, for selection after filtering (ReleaseSpec)."""
    domains: tuple[str, ...] = ()
    """The release's domains (a comma-separated string is split); empty means every seed."""
    backend: Literal["procedural", "openai"] = "procedural"
    model: str | None = None
    """The openai backend's model; the procedural backend's is named after its code."""
    base_url: str | None = Field(
        default=None, validation_alias=AliasChoices("base_url", "OPENAI_BASE_URL")
    )
    structured_output: StructuredOutput | None = None
    max_concurrency: int = Field(default=32, gt=0)
    """LLM requests in flight at once, shared by every domain of a step."""
    timeout_s: float | None = Field(default=None, gt=0)
    """Seconds per LLM request; None: the LLM layer's default."""
    max_tokens: int | None = Field(default=None, gt=0)
    """Answer length cap; None: the server's default."""
    outputs: Path | None = None
    """Where work folders, caches and releases go; None: the project's outputs/."""

    @field_validator("domains", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        return tuple(d for d in value.split(",") if d) if isinstance(value, str) else value

    @classmethod
    def load(cls, **values: Any) -> BuildConfig:
        """Validate `values` over the environment; bad values are an `InputError` naming them."""
        try:
            config = cls(**values)
        except ValidationError as err:
            raise InputError.from_validation(
                err, file="build configuration (options or ATBENCH_* environment variables)"
            ) from None
        config.spec()  # the domains are checked against the seeds before anything runs
        return config

    @classmethod
    def from_options(cls, out: Path, **options: Any) -> BuildConfig:
        """The configuration of `atbench build`'s options, checked first in the command line's
        words (`check_build_options`, which also checks `out`); an option left at its empty
        default ("" or 0) defers to `ATBENCH_*` or the default."""
        checked = check_build_options(known_domains=domain_ids(), out=out, **options)
        return cls.load(**{key: value for key, value in checked.items() if value})

    @classmethod
    def for_spec(cls, spec: ReleaseSpec, **values: Any) -> BuildConfig:
        """The configuration that builds exactly `spec` (e.g. a published release's), with
        `values` for what the spec leaves open (endpoint, dialect, concurrency, outputs)."""
        config = cls.load(**spec.model_dump(), **values)
        if config.spec() != spec:
            raise InputError(
                f"these settings build spec {config.spec().key()}, not the release's "
                f"{spec.key()}; check ATBENCH_MODEL and the backend options",
                field="model",
            )
        return config

    def spec(self) -> ReleaseSpec:
        """What the build produces; its hash names the work folder."""
        known = domain_ids()
        unknown = sorted(set(self.domains) - set(known))
        if unknown:
            raise InputError(
                f"unknown domains {unknown}; seeds define: {', '.join(known)}", field="domains"
            )
        return ReleaseSpec(
            size=self.size,
            seed=self.seed,
            unsafe_share=self.unsafe_share,
            long_context_share=self.long_context_share,
            long_html_share=self.long_html_share,
            overplan=self.overplan,
            domains=tuple(sorted(self.domains or known)),
            backend=self.backend,
            model=self.llm().model,
        )

    def llm(self) -> LLMSettings:
        model = self.model or (PROCEDURAL_MODEL if self.backend == "procedural" else None)
        return LLMSettings.from_env(
            backend=self.backend,
            model=model,
            base_url=self.base_url,
            structured_output=self.structured_output,
            max_concurrency=self.max_concurrency,
            timeout_s=self.timeout_s,
            max_tokens=self.max_tokens,
        )

    def outputs_path(self) -> Path:
        return self.outputs or outputs_dir()

    def workspace(self) -> Workspace:
        return Workspace.for_spec(self.spec(), self.outputs_path())

    def resource_config(self) -> dict[str, Any]:
        """The Dagster resource's config for exactly this build (domains pinned)."""
        values = self.model_dump(mode="json", exclude_none=True)
        return values | {"domains": ",".join(self.spec().domains)}
