"""`atbench regen`, `atbench import` and `atbench releases`: work with published releases."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from pipeline.cli.build import run_stages, settings_for_spec
from pipeline.core.build.regen import Rebuild, read_source_release, regenerate_domain
from pipeline.core.build.workspace import Workspace
from pipeline.core.inputs.loading import load_inputs
from pipeline.core.inputs.paths import outputs_dir
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.spec import ReleaseSpec
from pipeline.core.release.importers import FLAGS, ImportFormat, import_benchmark, report_path
from pipeline.core.release.publish import MANIFEST_FILE

if TYPE_CHECKING:
    import dagster as dg

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
    if print_run_config:
        spec = read_source_release(release).spec
        config = {
            "resources": {"settings": {"config": {**settings_for_spec(spec), **settings_extra}}},
            "ops": {"release": {"config": {"out": str(out.resolve())}}},
        }
        typer.echo(json.dumps(config))
        return
    inputs = load_inputs()  # fail fast, naming file, record and field, before anything runs
    console = Console()
    summary = regenerate_domain(
        release.resolve(),
        domain,
        out.resolve(),
        rebuild=dagster_rebuild(settings_extra, console=console),
        taxonomy=inputs.taxonomy,
    )
    console.print(
        f"[bold green]release v{summary.version}[/] at {summary.out_dir}: {domain} rebuilt; "
        f"{summary.total} trajectories ({summary.unsafe} unsafe, {summary.safe} safe), "
        f"{summary.rejected} rejected",
        soft_wrap=True,
    )


def dagster_rebuild(
    settings_extra: Mapping[str, Any],
    *,
    console: Console | None = None,
    instance: dg.DagsterInstance | None = None,
) -> Rebuild:
    """A `Rebuild` that materialises one domain's partitions of every stage through Dagster
    under the release's spec; `settings_extra` carries what the spec leaves open (endpoint,
    structured-output dialect, concurrency)."""

    def rebuild(spec: ReleaseSpec, domain: str) -> Workspace:
        from pipeline.defs.resources import BuildSettings

        settings = {**settings_for_spec(spec), **settings_extra}
        resource = BuildSettings(**settings)
        if resource.spec() != spec:
            raise AtbenchError(
                f"these settings build spec {resource.spec().key()}, not the release's "
                f"{spec.key()}; check ATBENCH_MODEL and the backend options"
            )
        run_stages(settings, [domain], console=console, instance=instance)
        return resource.workspace()

    return rebuild


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
    summary, report = import_benchmark(
        path, cast(ImportFormat, fmt.value), out.resolve(), taxonomy=taxonomy
    )
    console = Console()
    console.print(
        f"[bold green]release v{summary.version}[/] at {summary.out_dir}: imported "
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
        console.print(f"[yellow]rejected[/] {where}: {rejected.reason}", highlight=False)
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
            table.add_row(where, "-", "-", f"[red]{entry['error']}[/]")
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
    Console().print(table)


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
    try:
        manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
        return {
            "path": str(folder),
            "version": manifest["version"],
            "created_at": manifest.get("created_at"),
            "backend": manifest.get("backend"),
            "counts": manifest.get("counts", {}),
            "domains": len(manifest.get("domains", [])),
        }
    except (OSError, ValueError, KeyError, TypeError) as err:
        return {"path": str(folder), "error": f"unreadable {MANIFEST_FILE}: {err}"}
