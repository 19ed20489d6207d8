"""Where tests find the repository, the public samples beside it and their own data files."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED_DATA = REPO.parent / "shared" / "data"
"""Public samples (ToolBench, ToolAlpaca) kept next to the checkout; tests skip without them."""
TEST_DATA = Path(__file__).resolve().parent / "data"
RJUDGE_SAMPLE = TEST_DATA / "rjudge_sample.json"
