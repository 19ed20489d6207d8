"""Consoles that print text as text.

User- and data-derived strings (paths, ids, seed text, server errors, manifest fields) are
never read as Rich markup: `[/x]` prints as `[/x]` instead of crashing, `[red]x` stays
`[red]x`, and a pattern such as `^[a-z]+$` keeps its brackets. Styling is applied to our own
words only, through `styled`.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text


def plain_console(*, stderr: bool = False) -> Console:
    return Console(stderr=stderr, markup=False, highlight=False)


def styled(label: str, style: str, rest: str = "") -> Text:
    """`label` in `style`, then `rest` as it is."""
    return Text.assemble((label, style), rest)
