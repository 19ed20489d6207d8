"""Where a risk enters a trajectory: the channels, and the channel each risk source uses.

The planner chooses by it, construction plants triggers by it, the rule filter checks risk
points against it and the importer places an imported row's risk with it: one table for all.
"""

from __future__ import annotations

from typing import Literal

Channel = Literal[
    "user_turn",
    "observation",
    "tool_description",
    "tool_execution",
    "tool_output",
    "agent_reasoning",
]
"""Where a trigger sits: the user's words, retrieved content, a tool's interface, what a tool
does, what a tool returns, or the agent's own reasoning."""

CHANNEL_OF: dict[str, Channel] = {
    "malicious_user_instruction_or_jailbreak": "user_turn",
    "direct_prompt_injection": "user_turn",
    "indirect_prompt_injection": "observation",
    "unreliable_or_misinformation": "observation",
    "tool_description_injection": "tool_description",
    "malicious_tool_execution": "tool_execution",
    "corrupted_tool_feedback": "tool_output",
    "inherent_agent_failures": "agent_reasoning",
}
"""Where each risk source enters; construction plants the trigger there."""

OBSERVED_CHANNELS: frozenset[Channel] = frozenset({"observation", "tool_output", "tool_execution"})
"""Channels whose trigger rides in a tool's observation."""
