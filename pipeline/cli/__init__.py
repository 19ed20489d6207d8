"""The `atbench` command: a thin shell over `pipeline.core` and the Dagster definitions.

Expected failures (`AtbenchError`) print their message and exit 1, without a traceback;
Ctrl-C exits 130.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from pipeline.cli import build, cost, llm, plan, release, tools, validate
from pipeline.core.model.errors import AtbenchError

app = typer.Typer(
    name="atbench",
    help="Build, extend and audit trajectory-level agent-safety benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("validate")(validate.validate)
app.command("build")(build.build)
app.command("regen")(release.regen)
app.command("import")(release.import_release)
app.command("releases")(release.releases)
app.command("cost")(cost.cost)
app.command("plan")(plan.plan)
app.add_typer(tools.app, name="tools")
app.add_typer(llm.app, name="llm")

_err = Console(stderr=True)


def main() -> None:
    try:
        app(standalone_mode=True)
    except AtbenchError as err:
        _err.print(f"[bold red]error:[/] {err}", highlight=False, soft_wrap=True)
        sys.exit(1)
    except KeyboardInterrupt:
        _err.print("interrupted")
        sys.exit(130)
