"""A trajectory as a guard reads it: the tool list and the turns, in the judge prompts' layout.

Every prompt format, the SFT prompts and the bag-of-words guard read the same rendering, so a
guard trained on SFT data sees at evaluation time exactly the text it was trained on.
"""

from __future__ import annotations

import json
from typing import Any

from pipeline.core.model.actions import format_action
from pipeline.core.model.trajectory import AgentTurn, Trajectory, UserTurn


def render_turns(traj: Trajectory) -> str:
    """`[USER]: ...`, `[AGENT]:` with `[THOUGHT]:` / `[ACTION]:` lines, `[ENVIRONMENT]: ...`."""
    lines: list[str] = []
    for e, episode in enumerate(traj.episodes):
        if len(traj.episodes) > 1:
            lines.append(f"--- episode {e + 1} of {len(traj.episodes)} ---")
        for turn in episode.turns:
            if isinstance(turn, UserTurn):
                lines.append(f"[USER]: {turn.content}")
            elif isinstance(turn, AgentTurn):
                lines.append("[AGENT]:")
                if turn.thought:
                    lines.append(f"[THOUGHT]: {turn.thought}")
                lines.append(f"[ACTION]: {format_action(turn.action)}")
            else:
                lines.append(f"[ENVIRONMENT]: {turn.content}")
    return "\n".join(lines)


def render_tools(traj: Trajectory) -> str:
    """One line per tool: name, description and argument names (a description may carry the
    risk, so it is shown whole)."""
    if not traj.tools:
        return "(no tools: the agent only converses)"
    return "\n".join(
        f"- {tool.name}({', '.join(_argument_names(tool.parameters))}): {tool.description}"
        for tool in traj.tools
    )


def _argument_names(parameters: dict[str, Any]) -> list[str]:
    properties = parameters.get("properties")
    return list(properties) if isinstance(properties, dict) else []


def render_dialogue(traj: Trajectory) -> list[tuple[str, str]]:
    """(speaker, text) pairs for guards that read a User/Agent conversation: a call and its
    observation become one Agent line, so no speaker the guard does not know appears."""
    lines: list[tuple[str, str]] = []
    for turn in traj.turns:
        if isinstance(turn, UserTurn):
            lines.append(("User", turn.content))
        elif isinstance(turn, AgentTurn):
            said = f"(thinking: {turn.thought}) " if turn.thought else ""
            lines.append(("Agent", said + format_action(turn.action)))
        elif lines and lines[-1][0] == "Agent":
            lines[-1] = ("Agent", f"{lines[-1][1]}\n(tool result: {turn.content})")
        else:
            lines.append(("Agent", f"(tool result: {turn.content})"))
    return lines


def trace_digest_text(traj: Trajectory) -> str:
    """The turns as one canonical JSON string, for exact-duplicate checks."""
    return json.dumps(
        [turn.model_dump(mode="json", exclude={"grounded_in_context"}) for turn in traj.turns],
        sort_keys=True,
        ensure_ascii=False,
    )
