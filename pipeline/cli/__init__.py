"""The `atbench` command: a thin shell over `pipeline.core` and the Dagster definitions.

Expected failures (`AtbenchError`) print their message and exit 1, without a traceback, and
so does a full disk that no writer named (ENOSPC); Ctrl-C exits 130.
"""

from __future__ import annotations

import errno
import sys
from typing import Annotated

import typer

from pipeline import __version__
from pipeline.cli import audit, build, cost, llm, plan, release, sft, tools, validate
from pipeline.cli import eval as eval_cli
from pipeline.cli.console import plain_console, styled
from pipeline.core.build.collector import tune_collector
from pipeline.core.model.errors import AtbenchError

app = typer.Typer(
    name="atbench",
    help="Build, extend and audit trajectory-level agent-safety benchmarks.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"atbench {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Build, extend and audit trajectory-level agent-safety benchmarks."""


app.command("validate")(validate.validate)
app.command("build")(build.build)
app.command("regen")(release.regen)
app.command("import")(release.import_release)
app.command("releases")(release.releases)
app.command("cost")(cost.cost)
app.command("plan")(plan.plan)
app.command("sft")(sft.sft)
app.add_typer(eval_cli.app, name="eval")
app.add_typer(tools.app, name="tools")
app.add_typer(llm.app, name="llm")
app.add_typer(audit.app, name="audit")

_err = plain_console(stderr=True)


def main() -> None:
    tune_collector()
    try:
        app(standalone_mode=True)
    except AtbenchError as err:
        _err.print(styled("error:", "bold red", f" {err}"), soft_wrap=True)
        sys.exit(1)
    except OSError as err:
        if err.errno != errno.ENOSPC:
            raise
        where = f": {err.filename}" if err.filename else ""
        _err.print(styled("error:", "bold red", f" no space left on device{where}"), soft_wrap=True)
        sys.exit(1)
    except KeyboardInterrupt:
        _err.print("interrupted")
        sys.exit(130)
