"""Reading the action strings of external benchmarks: the public format first, then the looser
spellings older benchmarks use (`Tool{...}`, `Tool: {...}`, `Tool\\nAction Input: {...}`,
`Tool(...)`, Python-literal arguments, key aliases), within size and nesting limits.

Every reading other than the public format's comes with the repair codes the importer reports
(see `importers.REPAIRS`).
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pipeline.core.model.actions import FINAL_PREFIX, parse_action
from pipeline.core.model.trajectory import FinalAnswer, ToolCall, UnparsedAction

MAX_ACTION_CHARS = 20_000
MAX_ACTION_NESTING = 50
"""Limits past which an action string is kept verbatim unparsed: Python's and JSON's parsers
recurse, so one hostile row could otherwise exhaust the stack or memory of the whole import."""

_NAME_KEYS = ("name", "tool", "tool_name", "action", "function")
_ARGUMENT_KEYS = ("arguments", "parameters", "args", "input", "tool_input", "action_input")
_COMPLETE = re.compile(rf"{FINAL_PREFIX}\s*[{{\"']", re.S)
_LOOSE_CALL = re.compile(
    r"(?:Action\s*:\s*)?(?P<name>[A-Za-z_][\w.\-]*)\s*"
    r"(?:\n\s*Action\s*Input\s*:|:)?\s*(?P<args>\{.*\})",
    re.S,
)
_NON_DECIMAL = re.compile(r"^[-+]?0[xXoObB]|_")


@dataclass(frozen=True)
class ActionReading:
    """What an action string says. `action` is None for plain text, which only the turns
    around it can classify (answer, or unparsed call)."""

    action: ToolCall | FinalAnswer | UnparsedAction | None
    notes: tuple[str, ...] = ()


def read_action(raw: str) -> ActionReading:
    """Read the public format first, then the looser spellings older benchmarks use."""
    text = raw.strip()
    if not text:
        return ActionReading(FinalAnswer(response=""), ("empty_action",))
    if len(text) > MAX_ACTION_CHARS or _nesting(text) > MAX_ACTION_NESTING:
        return ActionReading(UnparsedAction(raw=raw), ("action_beyond_limits",))
    try:
        action = parse_action(text)
        # the public reader ignores keys besides name and arguments; here they would be lost
        if isinstance(action, FinalAnswer) or set(json.loads(text)) <= {"name", "arguments"}:
            return ActionReading(action)
    except ValueError:
        pass
    if _COMPLETE.match(text):
        payload, literal = _value(text[len(FINAL_PREFIX) :].strip())
        if isinstance(payload, dict) and isinstance(payload.get("response"), str):
            payload = payload["response"]
        if isinstance(payload, str):
            return ActionReading(FinalAnswer(response=payload), literal)
        return ActionReading(UnparsedAction(raw=raw), ("unparsed_action",))
    if text.startswith("{"):
        obj, literal = _value(text)
        call = _aliased_call(obj) if isinstance(obj, dict) else None
        if call is not None:
            return ActionReading(call, ("json_key_aliases", *literal))
        return ActionReading(UnparsedAction(raw=raw), ("unparsed_action",))
    loose = _LOOSE_CALL.fullmatch(text)
    if loose:
        arguments, literal = _value(loose["args"])
        if isinstance(arguments, dict):
            call = ToolCall(name=loose["name"], arguments=arguments)
            return ActionReading(call, ("loose_action_syntax", *literal))
        return ActionReading(UnparsedAction(raw=raw), ("unparsed_action",))
    call = _python_call(text)
    if call is not None:
        return ActionReading(call, ("python_call_syntax",))
    return ActionReading(None)


def _nesting(text: str) -> int:
    """How deep brackets nest; brackets in strings count too (an upper bound suits a limit)."""
    depth = deepest = 0
    for char in text:
        if char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth = max(depth - 1, 0)
    return deepest


def _value(text: str) -> tuple[Any, tuple[str, ...]]:
    """JSON (also a JSON string holding JSON), else a Python literal (noted); None if neither."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = _literal(text)
        return (value, ("python_literal_arguments",)) if value is not None else (None, ())
    if isinstance(value, str) and value.lstrip().startswith("{"):
        inner, notes = _value(value)
        if isinstance(inner, dict):
            return inner, notes
    return value, ()


def _literal(text: str) -> Any:
    """A Python literal as JSON data, or None. Refuses hex/octal/binary numbers (an unquoted
    `0x8f3a...` address would silently become an integer) and anything JSON cannot hold."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            segment = ast.get_source_segment(text, node) or ""
            if _NON_DECIMAL.search(segment):
                return None
    try:
        return json.loads(json.dumps(ast.literal_eval(tree.body), ensure_ascii=False))
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None


def _aliased_call(obj: Mapping[str, Any]) -> ToolCall | None:
    name = next((obj[k] for k in _NAME_KEYS if isinstance(obj.get(k), str) and obj[k]), None)
    if name is None or set(obj) - set(_NAME_KEYS) - set(_ARGUMENT_KEYS):
        return None
    arguments: Any = next((obj[k] for k in _ARGUMENT_KEYS if k in obj), {})
    if isinstance(arguments, str):
        arguments, _ = _value(arguments or "{}")
    return ToolCall(name=name, arguments=arguments) if isinstance(arguments, dict) else None


def _python_call(text: str) -> ToolCall | None:
    """`tool()`, `tool(key=value, ...)` or `tool({...})` with literal arguments."""
    try:
        node = ast.parse(text, mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name | ast.Attribute):
        return None
    arguments: dict[str, Any] = {}
    if node.args:
        if len(node.args) > 1 or node.keywords:
            return None
        only = _literal(ast.get_source_segment(text, node.args[0]) or "")
        if not isinstance(only, dict):
            return None
        arguments = only
    for keyword in node.keywords:
        value = _literal(ast.get_source_segment(text, keyword.value) or "")
        if keyword.arg is None or (value is None and not _is_none(keyword.value)):
            return None
        arguments[keyword.arg] = value
    return ToolCall(name=ast.unparse(node.func), arguments=arguments)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
