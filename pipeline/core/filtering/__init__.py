"""Deciding what a release keeps: rule filters and pair checks, the template-residue check,
the plausibility judge and its agreement with the construction labels."""

__all__ = ["judge", "residue", "rules"]
