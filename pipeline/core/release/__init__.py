"""The release layer: the DuckDB store, public ATBench exports and imports, the dataset card,
the release gates, the atomic locked publish and verification against the manifest."""

__all__ = [
    "atbench_format",
    "card",
    "exports",
    "gates",
    "hub",
    "importers",
    "lock",
    "publish",
    "reader",
    "store",
    "verify",
]
