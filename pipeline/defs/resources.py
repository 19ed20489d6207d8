"""Build settings as one flat resource: the release spec plus LLM backend settings.

The API key is never part of Dagster config: the openai backend reads `OPENAI_API_KEY`
from the environment of the process that runs the step.
"""

from functools import cache
from pathlib import Path

import dagster as dg

from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.loading import Inputs, load_inputs
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.llm import LLMSettings
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.procedural import MODEL_NAME as PROCEDURAL_MODEL


class BuildSettings(dg.ConfigurableResource):  # type: ignore[type-arg]
    size: int = 1000
    seed: int = 0
    unsafe_share: float = 0.5
    long_context_share: float = 0.15
    long_html_share: float = 0.08
    domains: str = ""
    """Comma-separated domains of the release; empty means every seed."""
    backend: str = "procedural"
    model: str = ""
    """Empty: `ATBENCH_MODEL` for the openai backend, the procedural model otherwise."""
    base_url: str = ""
    """Empty: `OPENAI_BASE_URL`."""
    structured_output: str = ""
    max_concurrency: int = 32
    timeout_s: float = 0
    """Seconds per LLM request; 0: `ATBENCH_TIMEOUT_S`, else 60."""
    max_tokens: int = 0
    """Answer length cap; 0: `ATBENCH_MAX_TOKENS`, else the server's default."""
    outputs: str = ""
    """Where work files, caches and releases go; empty: `outputs/` (or `ATBENCH_OUTPUTS`)."""

    def llm(self) -> LLMSettings:
        overrides: dict[str, object] = {
            "backend": self.backend,
            "max_concurrency": self.max_concurrency,
        }
        for key in ("model", "base_url", "structured_output", "timeout_s", "max_tokens"):
            if getattr(self, key):
                overrides[key] = getattr(self, key)
        if self.backend == "procedural" and not self.model:
            overrides["model"] = PROCEDURAL_MODEL
        return LLMSettings.from_env(**overrides)

    def spec(self) -> ReleaseSpec:
        domains = [d for d in self.domains.split(",") if d] or domain_ids()
        return ReleaseSpec(
            size=self.size,
            seed=self.seed,
            unsafe_share=self.unsafe_share,
            long_context_share=self.long_context_share,
            long_html_share=self.long_html_share,
            domains=tuple(sorted(domains)),
            backend=self.backend,
            model=self.llm().model,
        )

    def outputs_path(self) -> Path:
        return Path(self.outputs) if self.outputs else outputs_dir()

    def workspace(self) -> Workspace:
        return Workspace.for_spec(self.spec(), self.outputs_path())


@cache
def inputs() -> Inputs:
    """Taxonomy, tools and seeds, loaded once per process (not at definition load)."""
    return load_inputs()
