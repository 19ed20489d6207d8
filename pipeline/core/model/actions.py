"""How an agent's action reads as text: the public ATBench action string, both ways.

Construction writes it, judges read it and the release layer exports and imports it, so it
lives with the trajectory model rather than with any one of them.
"""

from __future__ import annotations

import json
from typing import Any

from pipeline.core.model.trajectory import FinalAnswer, ToolCall, UnparsedAction

FINAL_PREFIX = "Complete"


def format_action(action: ToolCall | FinalAnswer | UnparsedAction) -> str:
    """The public action string: a JSON tool call, or `Complete` + `{"response": ...}`; an
    imported action that could not be parsed goes out exactly as it came in."""
    if isinstance(action, UnparsedAction):
        return action.raw
    if isinstance(action, ToolCall):
        return json.dumps({"name": action.name, "arguments": action.arguments}, ensure_ascii=False)
    return FINAL_PREFIX + json.dumps({"response": action.response}, ensure_ascii=False)


def parse_action(text: str) -> ToolCall | FinalAnswer:
    """Read an action string back; `arguments` may also be a JSON-encoded string.

    Raises ValueError saying what was expected, for the caller to locate.
    """
    stripped = text.strip()
    if stripped.startswith(FINAL_PREFIX):
        payload = _json_value(stripped[len(FINAL_PREFIX) :].strip() or '""', "final answer")
        if isinstance(payload, str):
            return FinalAnswer(response=payload)
        if isinstance(payload, dict) and isinstance(payload.get("response"), str):
            return FinalAnswer(response=payload["response"])
        raise ValueError('a final answer must be Complete{"response": "<text>"}')
    call = _json_value(stripped, "tool call")
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise ValueError('a tool call must be a JSON object {"name": ..., "arguments": {...}}')
    arguments = call.get("arguments", {})
    if isinstance(arguments, str):
        arguments = _json_value(arguments or "{}", "tool call arguments")
    if not isinstance(arguments, dict):
        raise ValueError("tool call arguments must be a JSON object")
    return ToolCall(name=call["name"], arguments=arguments)


def _json_value(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{what} is not valid JSON ({err.msg} at char {err.pos})") from None
