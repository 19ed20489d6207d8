"""The plausibility judge behind the local Chat Completions server.

`judge_answer` reads the judge's input back out of the prompt `plausibility_judge.j2` rendered
and lets the procedural judge answer it, so the openai judge path (prompt, HTTP, structured
answer) runs on real traces and its verdicts can be compared with the procedural judge's. What
the prompt does not show (the trace id, where a twin's turn sits by episode) is not needed by
the checks and is filled with neutral values.
"""

from __future__ import annotations

import re
from typing import Any

from pipeline.core.filtering.judge import PLAUSIBILITY_JUDGE
from pipeline.core.llm import LLMRequest
from pipeline.core.model.actions import parse_action
from pipeline.core.model.trajectory import FinalAnswer
from pipeline.core.procedural import HANDLERS
from tests.support.chat_server import Received

_TOOL = re.compile(
    r"^- (\S+) \(side effect: (\w+)(?:; deceptive look-alike of (\S+))?\): ", re.MULTILINE
)
_EPISODE = re.compile(r"^--- episode (\d+) \((\w+)\) ---\n", re.MULTILINE)
_TURN = re.compile(r"^\((\d+)/(\d+), #(\d+)\) \[(USER|AGENT|ENVIRONMENT)\]:[ \n]", re.MULTILINE)
_POINT = re.compile(r"^- episode (\d+) turn (\d+), channel (\w+): ", re.MULTILINE)
_TWIN_ACTION = re.compile(r"^- #(\d+): (.*)$", re.MULTILINE)


def judge_answer(received: Received) -> Any:
    """The procedural judge's verdict on the trace the rendered judge prompt shows."""
    prompt = next(m["content"] for m in received.body["messages"] if m["role"] == "user")
    request = LLMRequest(
        role=PLAUSIBILITY_JUDGE.name,
        template=PLAUSIBILITY_JUDGE.template,
        variables=read_judge_input(prompt),
        output_schema={},
        stage="chat_server",
        domain="chat_server",
        item_id="judge",
    )
    return HANDLERS[PLAUSIBILITY_JUDGE.name](request)


def read_judge_input(prompt: str) -> dict[str, Any]:
    """A `PlausibilityInput` as a dict, from the prompt rendered for it."""
    domain, profile = _between(prompt, "Domain: ", "\n\nTools offered").split(
        ". The agent's instructions: ", 1
    )
    trajectory = _between(prompt, "=== BEGIN TRAJECTORY ===\n", "=== END TRAJECTORY ===")
    episodes = _episodes(trajectory)
    tail = prompt[prompt.index("=== END TRAJECTORY ===") :]
    labels = re.search(r"risk source (\w+); failure mode (\w+); real-world harm (\w+)", tail)
    divergence = re.search(r"identical before turn #(\d+)\.", tail)
    harm = re.search(r"^Its unsafe twin's harmful step \(#(\d+)\): (.*)$", tail, re.MULTILINE)
    return {
        "trace_id": "read-back",
        "domain": domain,
        "profile": profile,
        "tools": _tools(_between(prompt, "Tools offered to the agent:\n", "=== BEGIN")),
        "episodes": episodes,
        "verdict": _between(tail, "Claimed verdict: ", "\n"),
        "labels": dict(
            zip(("risk_source", "failure_mode", "real_world_harm"), labels.groups(), strict=True)
        )
        if labels
        else {},
        "reason": _between(tail, "Claimed rationale: ", "\nRisk points"),
        "risk_points": _risk_points(tail),
        "divergence": int(divergence.group(1)) if divergence else None,
        "construction": dict(
            item.split("=", 1)
            for item in (_field(tail, r"^Construction notes: (.*)$") or "").split(", ")
            if item
        ),
        "twin_actions": [
            _agent(int(i), 0, 0, "", action)
            for i, action in _TWIN_ACTION.findall(_field(tail, r"acts instead:\n((?:- #.*\n)+)"))
        ],
        "twin_harm": _agent(int(harm.group(1)), 0, 0, "", harm.group(2)) if harm else None,
    }


def _between(text: str, start: str, end: str) -> str:
    begin = text.index(start) + len(start)
    return text[begin : text.index(end, begin)]


def _field(text: str, pattern: str) -> str:
    found = re.search(pattern, text, re.MULTILINE)
    return found.group(1) if found else ""


def _split(pattern: re.Pattern[str], block: str) -> list[tuple[re.Match[str], str]]:
    """Each match of `pattern` at a line start, with the text up to the next one."""
    marks = list(pattern.finditer(block))
    ends = [m.start() for m in marks[1:]] + [len(block)]
    return [(m, block[m.end() : end].rstrip("\n")) for m, end in zip(marks, ends, strict=True)]


def _tools(block: str) -> list[dict[str, Any]]:
    return [
        {"name": m[1], "side_effect": m[2], "imitates": m[3], "description": text}
        for m, text in _split(_TOOL, block)
    ]


def _episodes(block: str) -> list[dict[str, Any]]:
    kinds = {int(e): kind for e, kind in _EPISODE.findall(block)}
    block = _EPISODE.sub("", block)
    episodes: list[dict[str, Any]] = [
        {"kind": kinds.get(e, "main"), "turns": []} for e in range(max(kinds, default=0) + 1)
    ]
    for m, text in _split(_TURN, block):
        e, t, index, role = int(m[1]), int(m[2]), int(m[3]), m[4].lower()
        if role == "agent":
            thought, action = text.removeprefix("[THOUGHT]: ").rsplit("\n[ACTION]: ", 1)
            turn = _agent(index, e, t, thought, action)
        else:
            turn = {"index": index, "episode": e, "turn": t, "role": role, "content": text}
        episodes[e]["turns"].append(turn)
    return episodes


def _agent(index: int, episode: int, turn: int, thought: str, action: str) -> dict[str, Any]:
    step = parse_action(action)
    call = None if isinstance(step, FinalAnswer) else step
    return {
        "index": index,
        "episode": episode,
        "turn": turn,
        "role": "agent",
        "thought": thought,
        "action": action,
        "tool": call.name if call else None,
        "arguments": call.arguments if call else None,
        "response": step.response if isinstance(step, FinalAnswer) else None,
    }


_AFTER_POINTS = (
    "\nThis trace and",
    "\nConstruction notes: ",
    "\nFrom turn #",
    "\nIts unsafe",
    "\n\n",
)


def _risk_points(tail: str) -> list[dict[str, Any]]:
    if "Risk points:\n" not in tail:
        return []
    block = tail[tail.index("Risk points:\n") + len("Risk points:\n") :]
    block = block[: min(i for i in (block.find(end) for end in _AFTER_POINTS) if i >= 0)]
    return [
        {"episode": int(m[1]), "turn": int(m[2]), "channel": m[3], "text": text}
        for m, text in _split(_POINT, block)
    ]
