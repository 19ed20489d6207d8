"""The build itself: stage functions over per-domain files in a work folder, and the
regeneration of single domains of a published release. The top layer of `pipeline.core`."""

__all__ = ["options", "regen", "stages", "stamps", "workspace"]
