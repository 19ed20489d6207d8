"""Plain-Python core of the pipeline: models and stage functions, free of Dagster."""
