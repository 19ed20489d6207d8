"""The release layer: the DuckDB store, public ATBench exports and imports, the dataset card,
the release gates, the atomic locked publish, verification against the manifest, and the
`sources` an evaluation reads."""

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
    "sources",
    "store",
    "verify",
]
