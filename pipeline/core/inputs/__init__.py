"""The versioned inputs and their loading: taxonomy, domain seeds, the tool pool, where the
project's folders are, and the file readers and atomic writers every stage uses."""

__all__ = ["files", "loading", "paths", "schema_memo", "seeds", "taxonomy", "tool_pool"]
