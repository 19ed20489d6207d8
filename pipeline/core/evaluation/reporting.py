"""Markdown from templates/evaluation/*.md.j2, and the plots beside it (matplotlib's object
API, never pyplot, so no global backend state)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from matplotlib.figure import Figure

from pipeline.core.inputs.files import write_text_atomic
from pipeline.core.inputs.paths import templates_dir

SAFE_COLOUR = "#4c9f70"
UNSAFE_COLOUR = "#c8553d"
NEUTRAL_COLOUR = "#5b7db1"


def percent(value: float | None, digits: int = 1) -> str:
    """A ratio as a percentage; `n/a` for an undefined one."""
    return "n/a" if value is None else f"{100 * value:.{digits}f}"


def interval(bounds: list[float] | None) -> str:
    return "n/a" if bounds is None else f"{percent(bounds[0])}–{percent(bounds[1])}"


def write_markdown(path: Path, template: str, **variables: Any) -> None:
    env = Environment(
        loader=FileSystemLoader(templates_dir() / "evaluation"),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["pct"] = percent
    env.filters["ci"] = interval
    write_text_atomic(path, env.get_template(template).render(**variables))


def save_figure(fig: Figure, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png", dpi=100)
