"""`atbench regen`, `atbench import` and `atbench releases`: work with published releases."""

from __future__ import annotations

import json
import os
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from pipeline.cli.build import SUBMIT_HELP, release_ops, run_regen
from pipeline.cli.console import plain_console, styled
from pipeline.core.build.config import BuildConfig
from pipeline.core.build.regen import check_domain, read_source_release
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.model.errors import AtbenchError
from pipeline.core.release.importers import FLAGS, import_benchmark, report_path
from pipeline.core.release.verify import (
    MANIFEST_FILE,
    read_release_manifest,
    release_problems,
    summarise,
)

_SEARCH_DEPTH = 4
"""How deep `atbench releases` looks for release folders under its root."""
_SHOWN_REJECTIONS = 10
_COUNTS = ("total", "safe", "unsafe", "rejected")


def regen(
    release: Annotated[
        Path,
        typer.Option(
            help="Release to start from (a folder with manifest.json).", show_default=False
        ),
    ],
    domain: Annotated[
        str,
        typer.Option(help="Domain to rebuild; every other domain is copied.", show_default=False),
    ],
    out: Annotated[
        Path,
        typer.Option(
            help="Where the new version goes; the --release folder itself replaces it in place.",
            show_default=False,
        ),
    ],
    base_url: Annotated[
        str,
        typer.Option(help="OpenAI-compatible endpoint (openai releases); else OPENAI_BASE_URL."),
    ] = "",
    structured_output: Annotated[
        str,
        typer.Option(help="json_schema | json_object | ollama | prompt | auto (openai releases)."),
    ] = "",
    concurrency: Annotated[int, typer.Option(help="LLM requests in flight per process.")] = 32,
    submit: Annotated[bool, typer.Option("--submit", help=SUBMIT_HELP)] = False,
    print_run_config: Annotated[
        bool,
        typer.Option(
            "--print-run-config",
            help="Print the Dagster run config that rebuilds this release's domains (for "
            "`dagster asset materialize --config-json`) and exit.",
        ),
    ] = False,
) -> None:
    """Rebuild one domain of a release and publish it as a new version.

    The domain is rebuilt through Dagster under the release's own spec, with current inputs.
    Every other domain's rows are copied unchanged from the release's DuckDB file.
    """
    extra = {"base_url": base_url, "structured_output": structured_output}
    settings_extra: dict[str, Any] = {k: v for k, v in extra.items() if v}
    settings_extra["max_concurrency"] = concurrency
    source = read_source_release(release.resolve())
    check_domain(source, domain)  # before anything runs
    config = BuildConfig.for_spec(source.spec, **settings_extra)
    if print_run_config:
        run_config = {
            "resources": {"settings": {"config": config.resource_config()}},
            "ops": release_ops(out.resolve(), regenerate_from=source.path, domain=domain),
        }
        typer.echo(json.dumps(run_config))
        return
    load_inputs()  # fail fast, naming file, record and field, before anything runs
    console = plain_console()
    summary = run_regen(config, source.path, domain, out.resolve(), console=console, submit=submit)
    console.print(
        styled(f"release v{summary['version']}", "bold green", f" at {summary['path']}: ")
        + f"{domain} rebuilt; "
        f"{summary['total']} trajectories ({summary['unsafe']} unsafe, {summary['safe']} safe), "
        f"{summary['rejected']} rejected",
        soft_wrap=True,
    )


class Format(StrEnum):
    atbench = "atbench"
    rjudge = "rjudge"


def import_release(
    path: Annotated[
        Path,
        typer.Argument(
            help="A JSON array (or .jsonl) of rows, or a folder of such files.",
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
            help="atbench (public ATBench rows, strict) or rjudge (R-Judge / ASSEBench rows, "
            "with their looser action strings).",
            case_sensitive=False,
            show_default=False,
        ),
    ],
    out: Annotated[
        Path, typer.Option(help="Release folder to create or replace.", show_default=False)
    ],
) -> None:
    """Turn an external benchmark into the release layout, so guards can be evaluated on it.

    Rows read from looser spellings (repaired), kept with something missing (flagged) or
    refused (rejected, with the reason) are listed in <out>.import-report.json.
    """
    taxonomy = load_inputs().taxonomy
    summary, report = import_benchmark(path, fmt.value, out.resolve(), taxonomy=taxonomy)
    console = plain_console()
    console.print(
        styled(f"release v{summary.version}", "bold green", f" at {summary.out_dir}: ")
        + "imported "
        f"{report.imported} of {report.rows} rows ({report.unsafe} unsafe, {report.safe} safe), "
        f"{len(report.rejected)} rejected",
        soft_wrap=True,
    )
    issues = Table(title="import issues (trajectories affected)")
    for column in ("kind", "code", "rows", "meaning"):
        issues.add_column(column, justify="right" if column == "rows" else "left")
    for kind, found in (("flag", report.flagged), ("repair", report.repaired)):
        for code, uids in sorted(found.items()):
            issues.add_row(kind, code, str(len(uids)), report.codes[code])
    if issues.row_count:
        console.print(issues)
    for rejected in report.rejected[:_SHOWN_REJECTIONS]:
        where = f"{rejected.file}#{rejected.index}" + (
            f" ({rejected.field})" if rejected.field else ""
        )
        console.print(styled("rejected", "yellow", f" {where}: {rejected.reason}"))
    if len(report.rejected) > _SHOWN_REJECTIONS:
        console.print(f"... and {len(report.rejected) - _SHOWN_REJECTIONS} more rejected rows")
    console.print(f"report: {report_path(summary.out_dir)}", soft_wrap=True)
    if any(code in FLAGS for code in report.flagged):
        console.print("flagged rows are kept; see the report's `codes` for what each flag means")


def releases(
    root: Annotated[
        Path | None,
        typer.Option(
            help="Folder to search; default: outputs/ (or ATBENCH_OUTPUTS).", show_default=False
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """List the releases under a folder with their version, date, backend and counts."""
    base = root or outputs_dir()
    found = find_releases(base)
    if as_json:
        typer.echo(json.dumps(found, indent=2))
        return
    # Readable at 80 columns: light rules, and only the path may wrap (at a `/`, by folding).
    table = Table(title=f"releases under {base}", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("path", overflow="fold")
    table.add_column("v", justify="right", no_wrap=True)
    table.add_column("created", no_wrap=True)
    table.add_column("backend", no_wrap=True)
    for column in _COUNTS:
        table.add_column(column, justify="right", no_wrap=True)
    for entry in found:
        where = os.path.relpath(entry["path"], base)
        if "error" in entry:
            table.add_row(where, "-", "-", Text(entry["error"], style="red"))
            continue
        created = str(entry["created_at"] or "")[:10]  # the date; --json has the time
        counts = entry["counts"]
        table.add_row(
            where,
            str(entry["version"]),
            created,
            str(entry["backend"]),
            *(str(counts.get(key, "")) for key in _COUNTS),
        )
    plain_console().print(table)


def find_releases(root: Path) -> list[dict[str, Any]]:
    """Folders holding a manifest.json, a few levels down; hidden folders (a publish's
    temporary or backup copies) are skipped, and a release's own subfolders are not searched."""
    found: list[dict[str, Any]] = []
    if not root.is_dir():
        raise AtbenchError(f"{root} is not a folder")
    base_depth = len(root.parts)
    for folder, subfolders, files in os.walk(root):
        here = Path(folder)
        subfolders[:] = sorted(
            d
            for d in subfolders
            if not d.startswith(".") and len(here.parts) - base_depth < _SEARCH_DEPTH
        )
        if MANIFEST_FILE in files:
            subfolders[:] = []
            found.append(_describe(here))
    return sorted(found, key=lambda entry: entry["path"])


def _describe(folder: Path) -> dict[str, Any]:
    """The manifest's figures, or an error naming what is unreadable or does not match."""
    try:
        manifest = read_release_manifest(folder)
    except AtbenchError as err:
        return {"path": str(folder), "error": str(err)}
    problems = release_problems(folder, manifest)
    if problems:
        return {"path": str(folder), "error": f"damaged: {summarise(problems, shown=2)}"}
    counts = manifest.get("counts")
    return {
        "path": str(folder),
        "version": manifest["version"],
        "created_at": manifest.get("created_at"),
        "backend": manifest.get("backend"),
        "counts": counts if isinstance(counts, dict) else {},
        "domains": len(manifest.get("domains") or []),
    }
