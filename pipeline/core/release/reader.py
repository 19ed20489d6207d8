"""Reading a published release's stored rows back, exactly as the release step wrote them.

Releases derived from another one (`atbench regen`, `atbench audit apply`) copy the rows they
do not change from the source's DuckDB file, never from a work folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb

from pipeline.core.model.rejection import Rejection
from pipeline.core.release.store import LEDGER_COLUMNS, release_db


def load_rejections(release: Path, *, except_domain: str | None = None) -> list[Rejection]:
    """The release's rejections as stored (given its directory or DuckDB file), optionally
    without one domain's."""
    with duckdb.connect(str(release_db(release)), read_only=True) as con:
        result = con.execute(
            "SELECT trajectory_id, pair_id, domain, stage, check_name AS check, reason_code, "
            "message FROM rejections WHERE domain IS DISTINCT FROM ? ORDER BY rowid",
            [except_domain],
        )
        columns = [d[0] for d in result.description]
        rows = result.fetchall()
    return [Rejection.model_validate(dict(zip(columns, row, strict=True))) for row in rows]


def load_ledger_rows(release: Path, *, except_domain: str | None = None) -> list[dict[str, Any]]:
    """The release's LLM ledger rows as stored (given its directory or DuckDB file), optionally
    without one domain's."""
    with duckdb.connect(str(release_db(release)), read_only=True) as con:
        rows = con.execute(
            f"SELECT {', '.join(LEDGER_COLUMNS)} FROM llm_calls "
            "WHERE domain IS DISTINCT FROM ? ORDER BY rowid",
            [except_domain],
        ).fetchall()
    return [dict(zip(LEDGER_COLUMNS, row, strict=True)) for row in rows]
