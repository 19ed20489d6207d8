"""Template residue: what the project's own templates could leave in a trace, and nothing else.

Traces about code, CI, web pages, databases and logs legitimately hold `TODO`, `${{ secrets.X }}`,
`{% if user %}`, `{{ title }}`, f-string braces and log formats, so a syntax pattern cannot tell
residue from content. What only our templates can produce is checked instead:

- a tag of a generator template (`templates/`) left unrendered. Only distinctive tags count: one
  that names an attribute, a filter, a literal or a snake_case variable (`{{ scene.persona.name }}`,
  `{% if mode == "benign" %}`); bare `{{ task }}` or `{% endif %}` is what any templating language
  writes, and every generator template has distinctive tags that would leak with it;
- an instruction sentence of a generator template echoed into the content;
- for the procedural backend, its phrase grammar (`[[a|b]]`, `{slot}`) left unexpanded;
- in what the agent and user write (thoughts, answers, arguments, user turns, the reason)
  outside code spans, the placeholder a model leaves where our system prompt asked for a
  value: `[Your Name]`, `[Insert date]`. Not `{first_name}`: an agent discussing a mail-merge
  template or an f-string writes that.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import jinja2

from pipeline.core.generation import roles
from pipeline.core.llm.templates import SYSTEM_TEMPLATE

GENERATOR_TEMPLATES = (
    *(role.template for role in (roles.QUERY, roles.TOOL_DESCRIPTION, roles.TOOL_CALL)),
    *(role.template for role in (roles.OBSERVATION, roles.AGENT_RESPONSE, roles.REASON)),
    SYSTEM_TEMPLATE,
)
"""The templates whose rendered prompts produce trace content (not the judge's, not the card's)."""
MIN_ECHO_WORDS = 6
"""A shorter instruction fragment ("Mode:", "Return JSON with") also occurs in ordinary text."""

_PHRASE_GRAMMAR = re.compile(r"\[\[[^\[\]]*\]\]|\{[a-z_]+\}")
_PROSE_PLACEHOLDER = re.compile(r"(?i:\[(?:insert|your|enter|add)\s[^\]\n]{1,60}\])(?!\()")
_CODE_SPAN = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n")


@dataclass(frozen=True)
class TemplateMarks:
    """What the generator templates could leave behind, compiled once per templates folder."""

    tags: re.Pattern[str]
    echoes: re.Pattern[str]

    def find(self, text: str) -> str | None:
        found = self.tags.search(text) or self.echoes.search(text)
        return found.group(0) if found else None


@cache
def template_marks(directory: Path) -> TemplateMarks:
    env = jinja2.Environment()
    tags: set[str] = set()
    echoes: set[str] = set()
    for name in GENERATOR_TEMPLATES:
        path = directory / name
        if not path.is_file():
            continue
        tags |= _distinctive_tags(env.lex(path.read_text()))
        echoes |= _instruction_sentences(env.lex(path.read_text()))
    return TemplateMarks(tags=_alternation(tags), echoes=_alternation(echoes))


def _distinctive_tags(tokens: Iterable[tuple[int, str, str]]) -> set[str]:
    """Each distinctive `{{ ... }}` / `{% ... %}`, as a pattern tolerant of spacing and trims."""
    found: set[str] = set()
    inside: list[tuple[str, str]] | None = None
    for _, kind, value in tokens:
        if kind in ("variable_begin", "block_begin"):
            inside = []
        elif kind in ("variable_end", "block_end") and inside is not None:
            if any(_distinctive(k, v) for k, v in inside) and not _builtin(inside):
                body = r"\s*".join(re.escape(v) for _, v in inside)
                ends = (r"\{\{", r"\}\}") if kind == "variable_end" else (r"\{%", r"%\}")
                found.add(rf"{ends[0]}-?\s*{body}\s*-?{ends[1]}")
            inside = None
        elif inside is not None and kind != "whitespace":
            inside.append((kind, value))
    return found


def _distinctive(kind: str, value: str) -> bool:
    return kind in ("string", "integer", "float") or value in (".", "|", "(") or "_" in value


def _builtin(inside: list[tuple[str, str]]) -> bool:
    """`loop.index` and friends: Jinja's own variables, written by every Jinja page too."""
    return bool(inside) and inside[0][1] == "loop"


def _instruction_sentences(tokens: Iterable[tuple[int, str, str]]) -> set[str]:
    """The templates' own sentences (static text between tags) long enough to be unmistakable."""
    found: set[str] = set()
    for _, kind, value in tokens:
        if kind != "data":
            continue
        for sentence in _SENTENCE_END.split(value):
            words = sentence.strip(' -,;:`"').split()
            if len(words) >= MIN_ECHO_WORDS:
                found.add(r"\s+".join(re.escape(word) for word in words))
    return found


def _alternation(patterns: set[str]) -> re.Pattern[str]:
    """One regex for all `patterns`, longest first; one that matches nothing when empty."""
    ordered = sorted(patterns, key=lambda p: (-len(p), p))
    return re.compile("|".join(ordered) or r"(?!)")


def phrase_grammar(text: str) -> str | None:
    """The procedural backend's unexpanded `[[a|b]]` alternation or unfilled `{slot}`."""
    found = _PHRASE_GRAMMAR.search(text)
    return found.group(0) if found else None


def prose_placeholder(text: str) -> str | None:
    """A placeholder left in prose instead of a value; code spans (`...`, ```...```) are content."""
    found = _PROSE_PLACEHOLDER.search(_CODE_SPAN.sub(" ", text))
    return found.group(0) if found else None
