"""Measurements over trajectories: diversity of the generated content, and the filters'
precision and recall on a labelled corpus."""

__all__ = ["diversity", "filter_precision"]
