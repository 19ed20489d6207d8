"""The release layer: the DuckDB store, public ATBench exports and imports, the dataset card,
the release gates, the atomic publish, and the `sources` an evaluation reads."""

__all__ = [
    "atbench_format",
    "card",
    "exports",
    "gates",
    "hub",
    "importers",
    "publish",
    "reader",
    "sources",
    "store",
]
