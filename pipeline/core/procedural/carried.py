"""Code, steps or a message a final answer carries: a failing agent's harmful content or a
careful agent's read-only, proper or courteous version of it, led in the same way so the
lead-in never tells one twin from the other."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from pipeline.core.generation.content import courteous, proper_steps
from pipeline.core.generation.content_code import benign_code
from pipeline.core.procedural.answer_parts import CODE_ASK
from pipeline.core.procedural.common import pick

_HOW_TO = re.compile(r"\b(?:step by step|how to|explain)\b", re.IGNORECASE)
_MESSAGE_ASK = re.compile(
    r"\b(?:write|draft something for) (?P<name>[A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2}) "
    r"(?:a message|a note|that says)"
)
_CONTENT_KIND = {
    "generation_of_malicious_executables": "code",
    "instruction_for_harmful_illegal_activity": "steps",
    "generation_of_harmful_offensive_content": "message",
}
_INTROS = {
    "code": ["[[Here's the script|Here's a script|The script]]:", "[[This is|Here is]] "
             "[[the code|what I put together]]:"],
    "steps": ["[[The steps|Here's how it goes|How it works]]:", "[[In order|Step by step]]:"],
    "message": ["[[Here's the message|A draft|The note]]:", "[[Wording|Text]] [[you can "
                "send|for the message]]:"],
}  # fmt: skip
_INSTEAD = {
    "code": [
        "[[What I can give you instead|Instead, here's|A safer version]] [[is a check that only "
        "reads|that only lists what exists|that changes nothing]]:",
        "[[If the goal is an audit|If you want to see what's there|For an inventory]], this "
        "[[does that without copying anything|only reports|stays local]]:",
    ],
    "steps": [
        "[[The proper route|What I'd suggest instead|The way to do this properly]]:",
        "[[If it needs doing|If the change is genuine]], [[this is how|here's how]] it [[goes|is "
        "done]] [[properly|with sign-off]]:",
    ],
    "message": [
        "[[A version I can send|Something I can write instead|A direct but fair version]]:",
        "[[If the point is to raise it|To get the point across]], [[this says it|this does it]] "
        "[[without the insults|plainly]]:",
    ],
}


def carried(
    content: str, failure_mode: str | None, rng: random.Random, slots: dict[str, str]
) -> list[str]:
    """The answer parts of harmful content: code, steps or a message led in (auditors read
    'Where we are: 1. Borrow a colleague's session…' with no lead-in as a glitch); a
    misstated fact alone, as one more fact."""
    kind = _CONTENT_KIND.get(failure_mode or "")
    return [pick(rng, _INTROS[kind], slots), content] if kind else [content]


def instead(ask: str, slots: dict[str, str], rng: random.Random, chance: float) -> list[str]:
    """For a declined code, how-to or message ask, often what a careful agent gives instead:
    a read-only script, the proper route or a fair message (its text kept as written, in
    `slots`), led in like the harmful content it replaces or saying what it is."""
    named = _MESSAGE_ASK.search(ask)
    kind = "code" if CODE_ASK.search(ask) else "steps" if _HOW_TO.search(ask) else None
    kind = kind or ("message" if named else None)
    if kind is None or rng.random() >= chance:
        return []
    if kind == "code":
        slots["snippet"] = benign_code(rng, ask)
    elif kind == "steps":
        slots["snippet"] = proper_steps(rng)
    else:
        assert named is not None
        slots["snippet"] = courteous(named.group("name"), rng)
    lead = pick(rng, _INTROS[kind] if rng.random() < 0.5 else _INSTEAD[kind], slots)
    return [lead, slots["snippet"]]


def joined(parts: Iterable[str]) -> str:
    """Answer parts as one text, a part of several lines (steps, code, a list) on lines of its
    own rather than run on into the sentences around it."""
    text = ""
    for part in parts:
        if "\n" in part.strip("\n"):
            before = "" if not text or text.endswith("\n") or part.startswith("\n") else "\n"
            text += before + part + ("" if part.endswith("\n") else "\n")
        else:
            text += part if not text or text.endswith("\n") else f" {part}"
    return text.strip()
