"""`atbench cost`: what a release's generation cost, read from its LLM call ledger.

The figures come from the `llm_calls` table of `release.duckdb` (one row per `ask`, cache hits
included), per role, stage and domain, so they describe the build that produced the release,
wherever it ran: the calls of the stage runs whose files the release is made of (`in_build`).
The table also keeps the rest of the work folder's ledger (runs that were killed, or whose
files a later run replaced); `history` totals them all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import duckdb
import typer
from rich import box
from rich.table import Table

from pipeline.cli.console import plain_console
from pipeline.core.model.errors import AtbenchError
from pipeline.core.release.store import DB_FILE
from pipeline.core.release.verify import verify_release

GROUPS = ("role", "stage", "domain")
"""The ledger columns the figures are broken down by, in the order they are shown."""

_BUILD = "FROM llm_calls WHERE in_build IS NOT FALSE"
"""The calls of the release's own build; a row that does not say counts as one."""

_FIGURES = """
    count(*) AS calls,
    count(*) FILTER (WHERE cached) AS cache_hits,
    count(*) FILTER (WHERE status = 'failed') AS failed,
    count(*) FILTER (WHERE status = 'invalid') AS invalid,
    coalesce(sum(attempts), 0) AS attempts,
    coalesce(sum(prompt_tokens), 0) AS prompt_tokens,
    coalesce(sum(completion_tokens), 0) AS completion_tokens,
    coalesce(bool_or(tokens_estimated), false) AS tokens_estimated,
    coalesce(sum(latency_s) FILTER (WHERE NOT cached), 0) AS latency_s_total,
    coalesce(
        list_sort(list(latency_s) FILTER (WHERE NOT cached))
        [count(*) FILTER (WHERE NOT cached) // 2 + 1], 0
    ) AS latency_s_p50,
    coalesce(sum(cost_usd), 0) AS cost_usd
"""
"""Per group: calls (cache hits included), failures, backend attempts, tokens, latency of the
calls that reached a backend (p50 as the upper median), and cost: the figures
`summarise_ledger` computes from ledger files, so both agree."""


def _rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    relation = con.sql(sql)
    return [dict(zip(relation.columns, row, strict=True)) for row in relation.fetchall()]


def ledger_summary(release: Path) -> dict[str, Any]:
    """Totals, models, and the figures per role, stage and domain of the calls that built a
    release; `history` totals every call of its work folder's ledger."""
    db_path = release / DB_FILE
    if not db_path.is_file():
        raise AtbenchError(f"{db_path} not found: --release must name a release directory")
    verify_release(release)  # a damaged database must not pass for a cheap build
    try:
        with duckdb.connect(str(db_path), read_only=True) as con:
            summary: dict[str, Any] = {
                "release": str(release),
                "totals": _rows(con, f"SELECT {_FIGURES} {_BUILD}")[0],
                "history": _rows(con, f"SELECT {_FIGURES} FROM llm_calls")[0],
                "models": _rows(
                    con,
                    f"SELECT backend, model, count(*) AS calls {_BUILD} "
                    "GROUP BY backend, model ORDER BY backend, model",
                ),
            }
            for group in GROUPS:
                rows = _rows(
                    con,
                    f"SELECT {group} AS name, {_FIGURES} {_BUILD} "
                    f"GROUP BY {group} ORDER BY {group}",
                )
                summary[f"by_{group}"] = {row.pop("name"): row for row in rows}
    except duckdb.Error as err:
        raise AtbenchError(f"{db_path}: cannot read table llm_calls ({err})") from None
    return summary


def cost(
    release: Annotated[
        Path,
        typer.Option(
            "--release",
            metavar="DIR",
            help="Release directory (it holds release.duckdb).",
            show_default=False,
        ),
    ],
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object (totals, history, models, by_role, by_stage, by_domain) "
            "instead of tables.",
        ),
    ] = False,
) -> None:
    """Show the LLM calls behind a release: calls, cache hits, tokens, latency and cost."""
    summary = ledger_summary(release)
    if as_json:
        typer.echo(json.dumps(summary, indent=2))
        return
    console = plain_console()
    totals = summary["totals"]
    if not totals["calls"]:
        console.print(f"{release}: no LLM calls recorded", highlight=False, soft_wrap=True)
        return
    models = ", ".join(f"{m['model']} ({m['backend']})" for m in summary["models"])
    for group in GROUPS:
        console.print(_table(group, summary[f"by_{group}"], totals))
    console.print(
        f"{totals['calls']:,} calls, {totals['cache_hits']:,} cache hits, "
        f"{totals['failed'] + totals['invalid']:,} failed; {_tokens(totals)} tokens; "
        f"${totals['cost_usd']:.4f}; model: {models}",
        highlight=False,
        soft_wrap=True,
    )
    history = summary["history"]
    if history["calls"] != totals["calls"]:
        console.print(
            f"the work folder's ledger holds {history['calls']:,} calls in all: "
            f"{history['calls'] - totals['calls']:,} of runs that were killed or replaced "
            f"(${history['cost_usd'] - totals['cost_usd']:.4f})",
            highlight=False,
            soft_wrap=True,
        )


def _table(group: str, rows: dict[str, dict[str, Any]], totals: dict[str, Any]) -> Table:
    table = Table(
        group,
        "calls",
        "cached",
        "failed",
        "ktok in",
        "ktok out",
        "p50 s",
        "USD",
        title=f"LLM calls by {group}",
        caption="ktok: thousands of tokens"
        + ("; ~ estimated as characters / 4" if totals["tokens_estimated"] else ""),
        box=box.SIMPLE_HEAD,
        padding=0,
        pad_edge=False,
    )
    table.columns[0].no_wrap = True
    for column in table.columns[1:]:
        column.justify = "right"
    for name, figures in rows.items():
        table.add_row(name, *_cells(figures))
    table.add_section()
    table.add_row("all", *_cells(totals))
    return table


def _cells(figures: dict[str, Any]) -> list[str]:
    mark = "~" if figures["tokens_estimated"] else ""
    return [
        f"{figures['calls']:,}",
        f"{figures['cache_hits']:,}",
        f"{figures['failed'] + figures['invalid']:,}",
        f"{mark}{figures['prompt_tokens'] / 1000:,.1f}",
        f"{mark}{figures['completion_tokens'] / 1000:,.1f}",
        f"{figures['latency_s_p50']:.3f}",
        f"{figures['cost_usd']:.4f}",
    ]


def _tokens(figures: dict[str, Any]) -> str:
    total = figures["prompt_tokens"] + figures["completion_tokens"]
    return f"{'~' if figures['tokens_estimated'] else ''}{total:,}"
