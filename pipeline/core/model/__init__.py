"""The nouns every layer shares: the trajectory record, its labels and channels, how an
action reads as text, rejections, the release spec, errors and seeded randomness.

The bottom layer: it imports nothing else from `pipeline.core`."""

__all__ = [
    "actions",
    "channels",
    "errors",
    "labels",
    "progress",
    "rejection",
    "seeding",
    "spec",
    "trajectory",
]
