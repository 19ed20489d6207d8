"""atbench-pipeline: construct trajectory-level agent-safety benchmarks with Dagster."""

__version__ = "0.1.0"
