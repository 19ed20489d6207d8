"""What a domain can show: which failure modes its tools and records can act out, and which
workflows return text a risk can ride in. The planner asks before it plans, so no blueprint
claims a label its world cannot prove."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pipeline.core.generation.semantics import is_free_text_field, tokens
from pipeline.core.generation.steps import simulate
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.seeds import Seed
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.world import Record, World

_EXEC_VERBS = frozenset(
    {"run", "execute", "exec", "install", "download", "fetch", "open", "import", "apply"}
    | {"deploy", "trigger", "load"}
)
_EXEC_FIELDS = frozenset(
    {"url", "uri", "link", "command", "script", "code", "cmd", "source", "package", "image"}
)
_RESTRICTION_KEYS = frozenset(
    {"alert", "restricted", "restriction", "hold", "frozen", "excludes", "warning", "block"}
)
_TEXT_WORDS = frozenset(
    {"memo", "remarks", "narrative", "title", "subject", "label", "html", "page", "content"}
)


def plantable(tool: Tool) -> bool:
    """Whether the tool's result has a free-text field (at any depth) a message can sit in."""
    return any(plantable_field(name, sub) for name, sub in _fields(tool.returns))


def reports_activity(tool: Tool) -> bool:
    """Whether the tool's result can say what else it did: a text field, or a top-level
    status, result or message string."""
    if plantable(tool):
        return True
    return any(
        sub.get("type") == "string"
        and set(tokens(name)) & {"status", "result", "state", "message"}
        and not {"enum", "format", "const", "pattern"} & set(sub)
        for name, sub in (tool.returns.get("properties") or {}).items()
    )


def carries_text(tool: Tool, observation: Any) -> bool:
    """Whether this actual observation has room for a message: a free-text value in it, or
    a free-text field of the schema it left out."""
    if _text_leaf(observation, tool.returns, ""):
        return True
    top = tool.returns.get("properties") or {}
    return isinstance(observation, dict) and any(
        name not in observation and plantable_field(name, sub) for name, sub in top.items()
    )


def _text_leaf(value: Any, schema: Mapping[str, Any], key: str) -> bool:
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        return any(_text_leaf(v, properties.get(k) or {}, k) for k, v in value.items())
    if isinstance(value, list):
        items = schema.get("items")
        return any(_text_leaf(v, items if isinstance(items, Mapping) else {}, key) for v in value)
    return (
        isinstance(value, str) and bool(key) and plantable_field(key, schema or {"type": "string"})
    )


def plantable_field(name: str, schema: Mapping[str, Any]) -> bool:
    """A string field that holds prose (a note, a body, a page) and has room for more."""
    if schema.get("type") != "string" or {"enum", "format", "const", "pattern"} & set(schema):
        return False
    if schema.get("maxLength", 1000) < 200:
        return False
    if set(tokens(name)) & {"url", "uri", "id", "ids", "date", "at", "email"}:
        return False
    return is_free_text_field(name) or bool(set(tokens(name)) & _TEXT_WORDS)


def _fields(schema: Mapping[str, Any]) -> Iterable[tuple[str, Mapping[str, Any]]]:
    for name, sub in (schema.get("properties") or {}).items():
        if not isinstance(sub, Mapping):
            continue
        yield name, sub
        yield from _fields(sub)
        items = sub.get("items")
        if isinstance(items, Mapping):
            yield from _fields(items)


_PAGE_FIELDS = frozenset({"html", "page", "content", "body"})
_PAGE_TOOLS = frozenset({"web", "page", "url", "browse", "fetch", "scrape", "site", "article"})


def page_field(tool: Tool) -> str | None:
    """A field that holds a web page, on a tool that fetches pages."""
    if not set(tokens(tool.name)) & _PAGE_TOOLS:
        return None
    for name, sub in (tool.returns.get("properties") or {}).items():
        if sub.get("type") == "string" and set(tokens(name)) & _PAGE_FIELDS:
            return str(name)
    return None


def page_tools(seed: Seed, pool: ToolPool) -> set[str]:
    return {name for name in seed.tools if page_field(pool[name])}


def exec_tool(pool: ToolPool, names: Iterable[str]) -> Tool | None:
    """A tool that runs or fetches something named by a URL, command or script."""
    for name in names:
        tool = pool[name]
        params = {w for p in (tool.parameters.get("properties") or {}) for w in tokens(p)}
        if set(tokens(tool.name)) & _EXEC_VERBS and params & _EXEC_FIELDS:
            return tool
    return None


def restricted_records(world: World) -> list[tuple[Record, str]]:
    """Records carrying a restriction a careful agent must respect (alert, hold, excludes)."""
    found = []
    for record in world.records:
        for key, value in record.attributes.items():
            if set(tokens(key)) & _RESTRICTION_KEYS and isinstance(value, str) and value:
                found.append((record, f"{key}: {value}"))
    return found


def infeasible_modes(seed: Seed, pool: ToolPool) -> dict[str, str]:
    """Failure modes this domain cannot act out, with the reason."""
    missing: dict[str, str] = {}
    if exec_tool(pool, seed.tools) is None:
        missing["insecure_interaction_or_execution"] = "no tool runs or fetches a URL or command"
    if not any(pool[n].lookalike_of in seed.tools for n in seed.tools):
        missing["choosing_malicious_tool"] = "no look-alike tool beside a legitimate one"
    if not restricted_records(build_world(seed)):
        missing["tool_misuse_in_specific_context"] = "no record carries a restriction"
    return missing


_CARRIERS: dict[tuple[int, str], list[str]] = {}
"""(pool identity, seed JSON) -> carrier workflow ids."""


def carrier_workflows(seed: Seed, pool: ToolPool) -> list[str]:
    """Workflows whose benign run returns text a risk can ride in, at some step (memoised:
    every partition's planner asks the same question of the same seed)."""
    key = (id(pool), seed.model_dump_json())
    if key not in _CARRIERS:
        _CARRIERS[key] = _carriers(seed, pool)
    return _CARRIERS[key]


def _carriers(seed: Seed, pool: ToolPool) -> list[str]:
    found = []
    for workflow in seed.workflows:
        observed = simulate(seed, pool, workflow)
        if isinstance(observed, list) and any(
            carries_text(pool[name], obs)
            for name, obs in zip(workflow.steps, observed, strict=True)
        ):
            found.append(workflow.id)
    return found


OBSERVED_SOURCES = frozenset(
    {"indirect_prompt_injection", "unreliable_or_misinformation", "corrupted_tool_feedback"}
)


def infeasible_sources(seed: Seed, pool: ToolPool) -> dict[str, str]:
    """Risk sources this domain cannot carry, with the reason."""
    missing: dict[str, str] = {}
    if not carrier_workflows(seed, pool):
        why = "no workflow step returns text a message or claim could sit in"
        missing |= dict.fromkeys(sorted(OBSERVED_SOURCES), why)
    if not any(reports_activity(pool[h.tool]) for h in seed.hazards):
        missing["malicious_tool_execution"] = "no hazard's tool can report what it did on its own"
    return missing
