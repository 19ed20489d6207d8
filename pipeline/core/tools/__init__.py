"""Upkeep of the tool pool: importing external tool formats, merging them into the pool,
de-duplication and statistics."""

__all__ = ["dedupe", "importers", "merge", "stats"]
