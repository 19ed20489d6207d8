"""Measurements over trajectories: diversity of the generated content."""

__all__ = ["diversity"]
