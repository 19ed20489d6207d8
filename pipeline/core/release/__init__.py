"""The release layer: the DuckDB store, public ATBench exports and imports, the dataset card,
the release gates and the atomic publish."""

__all__ = [
    "atbench_format",
    "card",
    "exports",
    "gates",
    "hub",
    "importers",
    "publish",
    "reader",
    "store",
]
