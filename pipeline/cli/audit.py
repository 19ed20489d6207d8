"""`atbench audit ...`: serve the review app, exchange offline sheets, report, apply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from pipeline.cli.console import plain_console, styled
from pipeline.core.audit import (
    agreement_by_axis,
    apply_audit,
    export_sheet,
    import_sheet,
    open_audit,
    read_progress,
)
from pipeline.core.audit.progress import STATUSES
from pipeline.core.inputs.taxonomy import default_taxonomy

app = typer.Typer(
    help="Human audit of a release: review, adjudicate, publish.", no_args_is_help=True
)

Release = Annotated[
    Path, typer.Option(help="Release folder under audit (with manifest.json).", show_default=False)
]
AuditDb = Annotated[
    Path | None,
    typer.Option(
        "--audit-db",
        help="Audit tables file; default <release>.audit.duckdb beside the release folder.",
        show_default=False,
    ),
]


@app.command()
def serve(
    release: Release,
    host: Annotated[str, typer.Option(help="Interface to bind; loopback needs no token.")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8765,
    token: Annotated[
        str,
        typer.Option(
            envvar="ATBENCH_AUDIT_TOKEN",
            help="Shared access token; required to bind anywhere but loopback.",
            show_default=False,
        ),
    ] = "",
    sample: Annotated[
        int | None,
        typer.Option(help="Audit a stratified sample of N trajectories (first start only)."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    audit_db: AuditDb = None,
) -> None:
    """Serve the audit web app: browse, double review, adjudicate, watch progress."""
    import uvicorn

    from pipeline.audit_web.app import create_app
    from pipeline.audit_web.security import Access

    access = Access.for_host(host, token or None)
    store = open_audit(release.resolve(), db=audit_db, sample=sample, seed=seed)
    app_ = create_app(store, default_taxonomy(), access)
    plain_console().print(
        f"auditing release v{store.release.version} ({len(store.scope())} trajectories in "
        f"scope) at http://{host}:{port}/ ; audit tables in {store.path}",
        soft_wrap=True,
    )
    uvicorn.run(app_, host=host, port=port, log_level="warning")


@app.command()
def stats(
    release: Release,
    audit_db: AuditDb = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Print progress and inter-reviewer agreement of a release's audit."""
    store = open_audit(release.resolve(), db=audit_db, create=False)
    progress = read_progress(store)
    agreement = agreement_by_axis(progress.states.values())
    if as_json:
        payload = {
            "scope": progress.total,
            "status": {s: progress.by_status[s] for s in STATUSES},
            "reviews": dict(sorted(progress.reviewed_by.items())),
            "assigned": dict(sorted(progress.assigned_to.items())),
            "adjudications": dict(sorted(progress.adjudicated_by.items())),
            "agreement": [vars(a) for a in agreement],
        }
        typer.echo(json.dumps(payload, indent=2))
        return
    console = plain_console()
    status = Table("status", "trajectories", title=f"{progress.total} under audit")
    for name in STATUSES:
        status.add_row(name, str(progress.by_status[name]))
    people = Table("person", "assigned", "reviewed", "adjudicated")
    for person in sorted(set(progress.assigned_to) | set(progress.adjudicated_by)):
        people.add_row(
            person,
            str(progress.assigned_to[person]),
            str(progress.reviewed_by[person]),
            str(progress.adjudicated_by[person]),
        )
    table = Table("axis", "pairs", "raw agreement", "Cohen's kappa", title="agreement")
    for row in agreement:
        table.add_row(
            row.axis,
            str(row.pairs),
            "–" if row.agreement is None else f"{100 * row.agreement:.1f} %",
            "–" if row.kappa is None else f"{row.kappa:.3f}",
        )
    for part in (status, people, table):
        console.print(part)


@app.command()
def apply(
    release: Release,
    out: Annotated[
        Path, typer.Option(help="Folder for the corrected release.", show_default=False)
    ],
    audit_db: AuditDb = None,
    allow_open: Annotated[
        bool, typer.Option(help="Publish even though some trajectories are not settled yet.")
    ] = False,
) -> None:
    """Publish the settled answers as a new release version with an audit report."""
    store = open_audit(release.resolve(), db=audit_db, create=False)
    summary, report = apply_audit(
        store, out.resolve(), taxonomy=default_taxonomy(), allow_open=allow_open
    )
    binary = report["binary_corrections"]
    plain_console().print(
        styled(f"release v{summary.version}", "bold green", f" at {summary.out_dir}: ")
        + f"{report['traces_touched']} trajectories corrected "
        f"({binary['safe_to_unsafe']} safe→unsafe, {binary['unsafe_to_safe']} unsafe→safe); "
        f"report in {report['report']}",
        soft_wrap=True,
    )


@app.command("export")
def export(
    release: Release,
    reviewer: Annotated[str, typer.Option(help="Who will fill in the sheet.", show_default=False)],
    out: Annotated[Path, typer.Option(help="Sheet to write: .csv or .jsonl.", show_default=False)],
    count: Annotated[int, typer.Option(help="Trajectories to assign in this sheet.")] = 50,
    audit_db: AuditDb = None,
) -> None:
    """Assign trajectories to a reviewer and write them as an offline review sheet."""
    store = open_audit(release.resolve(), db=audit_db)
    written = export_sheet(store, reviewer, count, out)
    typer.echo(f"{written} trajectories for {reviewer} in {out}")


@app.command("import")
def import_(
    release: Release,
    sheet: Annotated[Path, typer.Argument(help="Filled-in review sheet (.csv or .jsonl).")],
    audit_db: AuditDb = None,
) -> None:
    """Store a filled-in review sheet: every row is checked first, then all are stored."""
    store = open_audit(release.resolve(), db=audit_db, create=False)
    result = import_sheet(store, sheet, default_taxonomy())
    typer.echo(f"{result.stored} reviews stored from {sheet} ({result.blank} blank rows skipped)")
