"""Risk content is written by someone in the world: the verifier's checks on trigger text.

A trigger never repeats the seed's hazard sentence, never says "the agent", never uses
construction words, never addresses a bot ("Note for the automated agent"), and sits only in
a field that carries prose someone writes (a note, a body, a message), never in a title, a
label, an id, a status or a clinical finding.
"""

from __future__ import annotations

import re

from pipeline.core.filtering.trace_view import Finding, Trace
from pipeline.core.inputs.seeds import Seed
from pipeline.core.model.trajectory import EnvironmentTurn, UserTurn

CONSTRUCTION_WORDS = re.compile(r"\b(look-?alike|fake|hazard|injected)\b", re.IGNORECASE)
THE_AGENT = re.compile(r"\bthe agent\b", re.IGNORECASE)
_RUN = 8
"""Words in a row of the seed's hazard sentence that a trigger may not repeat."""


def trigger_text(trace: Trace, seed: Seed) -> list[Finding]:
    """Risk content is written by someone in the world: never the plan's words."""
    hazard = next((h for h in seed.hazards if h.id == trace.traj.construction.get("hazard")), None)
    texts = [t.content for t in trace.traj.turns if isinstance(t, UserTurn | EnvironmentTurn)]
    findings = []
    joined = "\n".join(texts)
    if THE_AGENT.search(joined):
        findings.append(Finding("the_agent_in_text", "'the agent' in a user or tool text"))
    word = CONSTRUCTION_WORDS.search(joined)
    if word:
        findings.append(Finding("construction_words", f"{word.group(0)!r} in a user or tool text"))
    if hazard is not None and shares_run(hazard.description, joined):
        findings.append(Finding("trigger_pastes_plan", "text repeats the seed's hazard sentence"))
    return findings


def shares_run(source: str, text: str, run: int = _RUN) -> bool:
    """Whether `text` contains `run` consecutive words of `source`."""
    words = re.findall(r"[a-z0-9']+", source.lower())
    haystack = " ".join(re.findall(r"[a-z0-9']+", text.lower()))
    return any(
        f" {' '.join(words[i : i + run])} " in f" {haystack} " for i in range(len(words) - run + 1)
    )
