"""The build's one resource: the fields of `BuildConfig`, flat so Dagster can carry them.

A field left unset (None) takes the `ATBENCH_*` environment or the configuration's default,
exactly as on the command line. The API key is never part of Dagster config: the openai
backend reads `OPENAI_API_KEY` from the environment of the process that runs the step.
"""

from functools import cache

import dagster as dg

from pipeline.core.build.config import BuildConfig
from pipeline.core.build.inputs_cache import cached_inputs
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.errors import InputError


class BuildSettings(dg.ConfigurableResource):  # type: ignore[type-arg]
    size: int | None = None
    seed: int | None = None
    unsafe_share: float | None = None
    long_context_share: float | None = None
    long_html_share: float | None = None
    overplan: float | None = None
    domains: str | None = None
    """Comma-separated domains of the release; unset means every seed."""
    backend: str | None = None
    model: str | None = None
    base_url: str | None = None
    structured_output: str | None = None
    max_concurrency: int | None = None
    timeout_s: float | None = None
    max_tokens: int | None = None
    outputs: str | None = None
    wave: str | None = None
    """Comma-separated domains this run constructs (any of the release's, adjacent or not);
    unset means every domain of the release. Not part of the build's configuration."""

    def config(self) -> BuildConfig:
        given = {key: value for key, value in self.model_dump().items() if value is not None}
        given.pop("wave", None)
        return BuildConfig.load(**given)

    def wave_domains(self) -> tuple[str, ...]:
        """The domains this run constructs, in the release's order."""
        release = self.config().spec().domains
        wave = {d for d in (self.wave or "").split(",") if d} or set(release)
        outside = sorted(wave - set(release))
        if outside:
            raise InputError(
                f"domains {outside} are not part of this release; it has: {', '.join(release)}",
                field="wave",
            )
        return tuple(d for d in release if d in wave)


@cache
def inputs() -> Inputs:
    """Taxonomy, tools and seeds, loaded once per process (not at definition load), from the
    cache of validated inputs when nothing changed (`inputs_cache`)."""
    return cached_inputs()
