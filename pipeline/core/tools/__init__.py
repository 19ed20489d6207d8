"""Upkeep of the tool pool: importing external tool formats, de-duplication and statistics."""

__all__ = ["dedupe", "importers", "stats"]
