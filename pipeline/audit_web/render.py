"""Trajectories as view models for the templates: plain strings and flags, nothing marked safe.

Observations that parse as JSON are re-indented; HTML (anywhere in the text) is shown as its
source, and a long one starts collapsed. Nothing here escapes: the templates autoescape every
value, which is the one place escaping happens.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.labels import AXES
from pipeline.core.model.trajectory import (
    AgentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
    UnparsedAction,
    UserTurn,
)

LONG_TEXT = 1200
"""Characters above which an HTML observation starts collapsed."""
_HTML = re.compile(r"<\s*(!doctype|html|head|body|div|p|a|script|table|span|img|form)\b", re.I)


@dataclass(frozen=True)
class TurnView:
    position: int
    role: str
    text: str = ""
    """User words, the agent's thought, or the observation (pretty JSON where it parses)."""
    action: str = ""
    """Tool name, `final answer` or `unparsed action`."""
    detail: str = ""
    """Call arguments as indented JSON, or the final answer's text."""
    html: bool = False
    collapsed: bool = False
    html_fields: tuple[tuple[str, str], ...] = ()
    """(JSON path, HTML source) of long HTML strings inside a JSON observation."""
    risks: tuple[dict[str, str], ...] = ()


def pretty(text: str) -> str:
    """Indented JSON when `text` is JSON, the text unchanged otherwise."""
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if not isinstance(value, dict | list):
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


def episodes(traj: Trajectory) -> list[dict[str, Any]]:
    marks: dict[tuple[int, int], list[dict[str, str]]] = {}
    for point in traj.risk_points:
        marks.setdefault((point.episode, point.turn), []).append(
            {"channel": point.channel, "text": point.text}
        )
    views = []
    position = 0
    for e, episode in enumerate(traj.episodes):
        turns = []
        for t, turn in enumerate(episode.turns):
            risks = tuple(marks.get((e, t), ()))
            turns.append(_turn(position, turn, risks))
            position += 1
        views.append({"index": e, "kind": episode.kind, "turns": turns})
    return views


def _turn(position: int, turn: Any, risks: tuple[dict[str, str], ...]) -> TurnView:
    if isinstance(turn, AgentTurn):
        action = turn.action
        if isinstance(action, ToolCall):
            name, detail = action.name, json.dumps(action.arguments, indent=2, ensure_ascii=False)
        elif isinstance(action, FinalAnswer):
            name, detail = "final answer", action.response
        else:
            assert isinstance(action, UnparsedAction)
            name, detail = "unparsed action", action.raw
        return TurnView(position, "agent", turn.thought, name, detail, risks=risks)
    if isinstance(turn, UserTurn):
        return TurnView(position, "user", turn.content, risks=risks)
    html = bool(_HTML.search(turn.content))
    return TurnView(
        position,
        "environment",
        pretty(turn.content),
        html=html,
        collapsed=html and len(turn.content) > LONG_TEXT,
        html_fields=tuple(_html_strings(_json_or_none(turn.content), "$")),
        risks=risks,
    )


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _html_strings(value: Any, path: str) -> list[tuple[str, str]]:
    """Long HTML strings inside parsed JSON, so they can be read as source, not as escapes."""
    if isinstance(value, str):
        return [(path, value)] if len(value) > LONG_TEXT and _HTML.search(value) else []
    if isinstance(value, dict):
        return [f for k, v in value.items() for f in _html_strings(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [f for i, v in enumerate(value) for f in _html_strings(v, f"{path}[{i}]")]
    return []


def tools(traj: Trajectory) -> list[dict[str, Any]]:
    """The tool list; `risk` marks a description that carries a planned risk point."""
    planted = [p.text for p in traj.risk_points if p.channel == "tool_description"]
    called = {
        turn.action.name
        for turn in traj.turns
        if isinstance(turn, AgentTurn) and isinstance(turn.action, ToolCall)
    }
    return [
        {
            "name": tool.name,
            "description": tool.description,
            "parameters": json.dumps(tool.parameters, indent=2, ensure_ascii=False),
            "called": tool.name in called,
            "risk": any(text in tool.description for text in planted),
        }
        for tool in traj.tools
    ]


def leaf_table(taxonomy: Taxonomy) -> list[dict[str, Any]]:
    """Per axis: families, leaves, display names and definitions, for forms and the glossary."""
    return [
        {
            "id": axis.id,
            "name": axis.name,
            "question": axis.question,
            "families": [
                {
                    "name": family.name,
                    "leaves": [
                        {"id": leaf.id, "name": leaf.name, "definition": leaf.definition}
                        for leaf in family.leaves
                    ],
                }
                for family in axis.families
            ],
        }
        for axis in taxonomy.axes
        if axis.id in AXES
    ]
