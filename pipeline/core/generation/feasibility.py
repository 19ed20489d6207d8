"""What a domain can show: which failure modes its tools and records can act out, and which
workflows return text a risk can ride in. The planner asks before it plans, so no blueprint
claims a label its world cannot prove."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pipeline.core.generation.world import build_world, is_free_text_field, tokens
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
    return any(_texty(name, sub) for name, sub in _fields(tool.returns))


def _texty(name: str, schema: Mapping[str, Any]) -> bool:
    if schema.get("type") != "string" or {"enum", "format", "const"} & set(schema):
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


def carrier_workflows(seed: Seed, pool: ToolPool) -> list[str]:
    """Workflows with a step whose result can carry text a risk rides in."""
    return [w.id for w in seed.workflows if any(plantable(pool[name]) for name in w.steps)]


OBSERVED_SOURCES = frozenset(
    {"indirect_prompt_injection", "unreliable_or_misinformation", "corrupted_tool_feedback"}
)


def infeasible_sources(seed: Seed, pool: ToolPool) -> dict[str, str]:
    """Risk sources this domain cannot carry, with the reason."""
    if carrier_workflows(seed, pool):
        return {}
    why = "no workflow step returns text a message or claim could sit in"
    return dict.fromkeys(sorted(OBSERVED_SOURCES), why)
