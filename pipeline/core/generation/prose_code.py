"""In-world text that is not prose: a source or config file in its own syntax, a CI job's
log as its runner prints it. Written by `prose` for the records and tools it recognises."""

from __future__ import annotations

import re
from random import Random
from typing import Protocol

from pipeline.core.generation import prose_threads as threads
from pipeline.core.model.world import Record


class Writer(Protocol):
    """What these texts need of `prose`'s writer: the record, its facts, its world's people
    and days."""

    record: Record
    rng: Random
    facts: list[tuple[str, object]]

    def person(self) -> str: ...

    def day(self, back: int) -> str: ...


SOURCE = re.compile(r"\.(py|js|ts|go|rb|java|ya?ml|toml|ini|cfg|env|json|sh)$", re.IGNORECASE)
"""File names whose content is code or configuration, not prose."""


def source(w: Writer) -> str:
    """A source or config file: its path in a header comment, the record's own values as
    settings, in the file's own syntax."""
    path = w.record.name
    ext = path.rsplit(".", 1)[-1].lower()
    note = f"{path}: last changed on {w.day(w.rng.randint(3, 40))} by {w.person()}"
    settings = [(re.sub(r"\W+", "_", k).strip("_"), v) for k, v in w.facts]
    settings += [(k, v) for k, v in threads.SETTINGS if k not in dict(settings)]
    if ext in ("yaml", "yml"):
        return "\n".join([f"# {note}", *(f"{k}: {_literal(v)}" for k, v in settings)])
    if ext in ("toml", "ini", "cfg", "env"):
        return "\n".join([f"# {note}", *(f"{k} = {_literal(v)}" for k, v in settings)])
    if ext == "json":
        inner = ",\n".join(f'  "{k}": {_literal(v)}' for k, v in settings)
        return "{\n" + inner + "\n}"
    python = [f"{k.upper()} = {v if isinstance(v, bool) else _literal(v)}" for k, v in settings]
    return "\n".join([f'"""{note}."""', "", *python])


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    return '"' + str(value).replace('"', "'") + '"'


def build_log(w: Writer) -> str:
    """A CI job's log: its steps in order, each a group of the lines its runner prints."""
    second, lines = w.rng.randint(6, 15) * 3600, []
    for step in threads.CI_STEPS:
        for line in step:
            second += w.rng.randint(1, 25)
            stamp = f"{w.day(1)}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}Z"
            lines.append(f"{stamp} {line.format(n=w.rng.randint(12, 340))}")
    return "\n".join(lines)
