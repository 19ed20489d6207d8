"""Deciding what a release keeps: rule filters and pair checks, the plausibility judge and its
agreement with the construction labels."""

__all__ = ["judge", "rules"]
