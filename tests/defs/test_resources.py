"""The Dagster resource is the build configuration, field for field."""

from pipeline.core.build.config import BuildConfig
from pipeline.defs.resources import BuildSettings


def test_the_resource_has_exactly_the_configuration_fields() -> None:
    assert list(BuildSettings.model_fields) == list(BuildConfig.model_fields)


def test_the_resource_builds_the_configuration_it_is_given() -> None:
    config = BuildConfig.load(size=12, seed=4, domains="smart_home", max_concurrency=3)
    assert BuildSettings(**config.resource_config()).config() == config
