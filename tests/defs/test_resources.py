"""The Dagster resource is the build configuration, field for field."""

import pytest

from pipeline.core.build.config import BuildConfig
from pipeline.core.model.errors import InputError
from pipeline.defs.resources import BuildSettings


def test_the_resource_has_the_configuration_fields_and_the_wave() -> None:
    assert list(BuildSettings.model_fields) == [*BuildConfig.model_fields, "wave"]


def test_the_wave_is_any_subset_of_the_release_in_its_order() -> None:
    settings = BuildSettings(domains="ecommerce,pharmacy,smart_home", wave="smart_home,ecommerce")
    assert settings.wave_domains() == ("ecommerce", "smart_home")
    assert BuildSettings(domains="ecommerce,pharmacy").wave_domains() == ("ecommerce", "pharmacy")


def test_a_wave_outside_the_release_is_named() -> None:
    with pytest.raises(InputError, match=r"\['travel'\] are not part of this release"):
        BuildSettings(domains="ecommerce,pharmacy", wave="travel,pharmacy").wave_domains()


def test_the_resource_builds_the_configuration_it_is_given() -> None:
    config = BuildConfig.load(size=12, seed=4, domains="smart_home", max_concurrency=3)
    assert BuildSettings(**config.resource_config()).config() == config
