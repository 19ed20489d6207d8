"""Thin Dagster wrappers over `pipeline.core.build.stages`."""
