"""The build itself: stage functions over per-domain files in a work folder, the
regeneration of single domains of a published release, and guard-training (SFT) sets built
by the same stages. The top layer of `pipeline.core`."""

__all__ = ["config", "options", "regen", "sft", "stages", "stamps", "workspace"]
