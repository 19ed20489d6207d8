"""Thin Dagster wrappers over `pipeline.core.stages`."""
