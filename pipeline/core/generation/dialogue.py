"""How a task reaches the agent: in one message, or unfolded over two or three user turns.

Real users often start short ("Rob leaves on Friday.") and add the detail once the assistant
asks ("Check who has access to the Harlow folder and make Ines the owner."). A share of
episodes open that way: the request is cut at a sentence or clause boundary, the agent asks a
clarifying question, and the user's next turn gives the rest. Every word of the request
still reaches the agent through a user turn, so each value the agent later uses has the same
source as in a one-message opening; construction plans the steps from the whole request.
"""

from __future__ import annotations

import random
import re

from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.run import Branch
from pipeline.core.generation.user_words import INSTRUCTION_VERBS, UP_FRONT
from pipeline.core.model.channels import CHANNEL_OF

UNFOLD_SHARE = 0.65
"""Chance that an episode whose request can be cut opens over several user turns: about half
the seed requests can (a question is never cut from what follows it), so about a third of
episodes unfold."""

_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'])")
_CLAUSE = re.compile(r",? (?:and then|then|and also|and|so that|so) (?=[a-z])")


def unfold(request: str) -> tuple[str, ...]:
    """The request as the parts a user could send one by one: its sentences, or, for one
    sentence, the clause before its last 'and'/'then' and the rest. A part is at least three
    words; a request that cannot be cut that way comes back whole."""
    text = " ".join(request.split())
    text, reference = _split_reference(text)
    if reference:  # a reference note stays with the part before it, never a turn of its own
        parts = unfold(text)
        return (*parts[:-1], f"{parts[-1]} {reference}")
    sentences = _details_joined(_questions_joined([s for s in _SENTENCE.split(text) if s]))
    if len(sentences) >= 2 and all(len(s.split()) >= 3 for s in sentences):
        return tuple(sentences) if len(sentences) <= 3 else (sentences[0], " ".join(sentences[1:]))
    matches = [m for m in _CLAUSE.finditer(text) if not _inside_name(text, m.start())]
    for match in reversed(matches):
        head, tail = text[: match.start()], text[match.end() :]
        task = tail.split(" ", 1)[0].lower() in INSTRUCTION_VERBS
        whole = "?" not in head and head.split()[-1].lower() not in ("if", "when", "unless")
        if len(head.split()) >= 3 and len(tail.split()) >= 3 and task and whole:
            return (head.rstrip(",;") + ".", tail[:1].upper() + tail[1:])
    return (text,)


def _questions_joined(sentences: list[str]) -> list[str]:
    """Sentences with each question joined to the one after it: a user who asked 'What did
    he say?' waits for the answer, and an agent asking 'anything else?' back reads as a
    script (auditors)."""
    joined: list[str] = []
    for sentence in sentences:
        if joined and joined[-1].endswith("?"):
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined


_DETAILS = tuple(lead.split("{}")[0] for lead in UP_FRONT)


def _details_joined(sentences: list[str]) -> list[str]:
    """Sentences with the details said up front ('In case you need it: northwind/payments-api.')
    kept with the ask before them: auditors read an agent asking 'What do you need done?'
    after a whole request, and the user answering with the details line alone."""
    joined: list[str] = []
    for sentence in sentences:
        if joined and sentence.startswith(_DETAILS):
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined


def _split_reference(text: str) -> tuple[str, str]:
    """'Share the PDF. For reference: v3.pdf.' -> ('Share the PDF.', 'For reference: v3.pdf.')."""
    head, marker, tail = text.rpartition(" For reference: ")
    return (head, f"For reference: {tail}") if marker and head else (text, "")


def _inside_name(text: str, at: int) -> bool:
    """'Hartley and Moss', 'R&D and QA': an 'and' between capitalised words joins a name."""
    before = text[:at].split()[-1:] or [""]
    after = text[at:].split()[1:2] or [""]
    return before[0][:1].isupper() and after[0][:1].isupper()


def may_unfold(blueprint: Blueprint, episode: int) -> bool:
    """Whether this episode's opening may unfold: not the episode a user-turn risk replaces
    with its own one-message request, or a removed-risk safe twin would open differently
    from its unsafe twin for no reason but construction."""
    last = episode == len(blueprint.workflows) - 1
    risky = blueprint.slice is not None and CHANNEL_OF[blueprint.slice.risk_source] == "user_turn"
    return not (last and blueprint.kind == "pair" and risky)


async def open_task(
    branch: Branch,
    request: str,
    item: str,
    rng: random.Random,
    *,
    context_note: str | None = None,
    may_unfold: bool = True,
) -> int:
    """The user's opening of an episode; returns how many user turns it took."""
    parts = unfold(request) if may_unfold else (request,)
    if len(parts) == 1 or rng.random() >= UNFOLD_SHARE:
        await branch.user(request, f"{item}/query", context_note=context_note)
        return 1
    if len(parts) == 3 and rng.random() < 0.5:
        parts = (parts[0], f"{parts[1]} {parts[2]}")
    await branch.user(parts[0], f"{item}/query", context_note=context_note)
    for k, detail in enumerate(parts[1:]):
        await branch.final(f"{item}/clarify{k}", "clarify", facts=(detail,))
        await branch.user(detail, f"{item}/detail{k}", mode="detail")
    return len(parts)
