"""`atbench tools ...`: import public tool formats into the pool and describe the pool."""

from __future__ import annotations

import typer

app = typer.Typer(help="Import tools into the pool and report on it.", no_args_is_help=True)
