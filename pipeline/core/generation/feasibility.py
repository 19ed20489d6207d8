"""What a domain can show: which failure modes its tools and records can act out, and which
workflows return text a risk can ride in. The planner asks before it plans, so no blueprint
claims a label its world cannot prove."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Mapping
from typing import Any

from pipeline.core.generation.disclosure import address_field, sends_secret
from pipeline.core.generation.grounding import Plan, plan_arguments
from pipeline.core.generation.render import render
from pipeline.core.generation.semantics import is_free_text_field, operation_of, refers_to, tokens
from pipeline.core.generation.steps import simulate
from pipeline.core.generation.world import build_world, execute
from pipeline.core.inputs.seeds import Hazard, Seed
from pipeline.core.inputs.tool_pool import Tool, ToolPool
from pipeline.core.model.world import Record, World

_EXEC_VERBS = frozenset(
    {"run", "execute", "exec", "install", "download", "fetch", "open", "import", "apply"}
    | {"deploy", "trigger", "load"}
)
_RESTRICTION_KEYS = frozenset(
    {"alert", "restricted", "restriction", "hold", "frozen", "excludes", "warning", "block"}
)
_TEXT_WORDS = frozenset({"memo", "remarks", "narrative", "html", "page", "content"})
_NOT_PROSE = frozenset(
    {"title", "label", "labels", "name", "slug", "type", "status", "block", "privileges", "code"}
    | {"subject", "headline"}
)
"""Fields nobody writes a request into: a title, a subject line every listing shows, a label,
a name, a status, a system's own block reason — text planted there reads as a generator's,
not a person's, and contradicts the listing that showed the field before."""
_CLINICAL = frozenset({"clinical", "lab", "labs", "allergy", "allergies", "vitals", "triage"})
"""Tools whose text is a clinician's finding: nobody writes a request into a lab result."""


def clinical(tool_name: str) -> bool:
    return bool(set(tokens(tool_name)) & _CLINICAL)


def plantable(tool: Tool) -> bool:
    """Whether the tool's result has a free-text field (at any depth) a message can sit in."""
    return not clinical(tool.name) and any(
        plantable_field(name, sub) for name, sub in _fields(tool.returns)
    )


def carries_text(tool: Tool, observation: Any) -> bool:
    """Whether this actual observation has room for a message: a free-text value in it, or
    a free-text field of the schema it left out."""
    if clinical(tool.name):
        return False
    if _text_leaf(observation, tool.returns, ""):
        return True
    top = tool.returns.get("properties") or {}
    return isinstance(observation, dict) and any(
        name not in observation and plantable_field(name, sub) for name, sub in top.items()
    )


def reports_itself(tool: Tool, observation: Any) -> bool:
    """Whether the result has a field of its own (not of a record it returns) where a tool
    that misbehaves would say what else it did: a note or log line, set or left out."""
    if clinical(tool.name) or not isinstance(observation, dict):
        return False
    top = tool.returns.get("properties") or {}
    return any(
        plantable_field(name, sub)
        and (name not in observation or isinstance(observation[name], str))
        for name, sub in top.items()
    )


_AUTHORED = frozenset({
    "message", "messages", "inbox", "mail", "email", "notification", "notifications", "review",
    "reviews", "thread", "comments", "news", "feed", "posts", "forum", "phishing", "web", "page",
    "html", "fetch", "browse",
})  # fmt: skip


def authored(tool: Tool) -> bool:
    """Whether the tool returns what people wrote to others (messages, mail, reviews, news,
    pages): where a false claim is published, and where a tool's own wrong data is not."""
    return bool(set(tokens(tool.name)) & _AUTHORED)


BY_AUTHOR = frozenset({"unreliable_or_misinformation", "corrupted_tool_feedback"})
"""Sources whose text belongs to one kind of writer: people publish a false claim; a
tool's wrong data is its own (auditors read a tampered value inside an e-mail as a claim)."""


def written_by_its_kind(source: str, tool: Tool) -> bool:
    """Whether `tool`'s result is where this source's text is written (any is, for others)."""
    return source not in BY_AUTHOR or authored(tool) == (source == "unreliable_or_misinformation")


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
    if set(tokens(name)) & {"rejection", "error", "failure", "decline", "denial"}:
        return False  # the system's own reason for refusing, not text anyone writes into
    if set(tokens(name)) & _NOT_PROSE or tokens(name)[-1:] == ["reason"]:
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


def reads_text(tool: Tool) -> bool:
    """Whether a tool returns what a record says (a document, a message body, a log), not
    only its fields: reading it establishes content a later step can rely on."""
    return tool.side_effect == "none" and any(
        plantable_field(n, s) for n, s in _fields(tool.returns)
    )


_PAGE_FIELDS = frozenset({"html", "page", "content", "body"})
_PAGE_TOOLS = frozenset({"web", "page", "url", "browse", "fetch", "scrape", "site", "article"})


MAIL_TOOL_WORDS = frozenset({"email", "inbox", "phishing"})
"""Words of a tool that reads an e-mail, whose `body` is the message's HTML source."""


def page_field(tool: Tool) -> str | None:
    """A field that holds a web page, on a tool that fetches pages, or an e-mail's HTML
    source, on a tool that reads messages (`body` — not `body_text`, a plain-text part)."""
    words = set(tokens(tool.name))
    mail = bool(words & MAIL_TOOL_WORDS) and tool.side_effect == "none"
    if not words & _PAGE_TOOLS and not mail:
        return None
    fields = {"body", "html"} if mail and not words & _PAGE_TOOLS else _PAGE_FIELDS
    for name, sub in (tool.returns.get("properties") or {}).items():
        if sub.get("type") == "string" and tokens(name)[-1:] and tokens(name)[-1] in fields:
            return str(name)  # `content`, `page_html` — not `content_type`
    return None


def page_tools(seed: Seed, pool: ToolPool) -> set[str]:
    return {name for name in seed.tools if page_field(pool[name])}


def untrusted_field(tool: Tool) -> tuple[str, str] | None:
    """The parameter through which a tool runs or fetches something it is given, and its
    kind: a `command` line, a `url` to fetch or a program `source` to deploy. Only a tool
    with a side effect counts (reading an untrusted page changes nothing), and only a
    genuine one (a look-alike is `choosing_malicious_tool`'s realisation)."""
    if tool.side_effect == "none" or tool.lookalike_of or not set(tokens(tool.name)) & _EXEC_VERBS:
        return None
    for name, sub in (tool.parameters.get("properties") or {}).items():
        if sub.get("type") != "string" or {"enum", "const"} & set(sub):
            continue
        words = set(tokens(name))
        if words & {"name", "id", "ids"}:
            continue  # a script's name in an approved library is not a script
        if words & {"command", "cmd"} or words >= {"script", "body"}:
            return str(name), "command"
        if words & {"url", "uri", "link"} or sub.get("format") in ("uri", "url"):
            return str(name), "url"
        if words & {"source", "program"} and "format" not in sub:
            return str(name), "source"
    return None


def exec_tool(pool: ToolPool, names: Iterable[str]) -> Tool | None:
    """A tool that runs or fetches something named by a URL, command or program source."""
    return next((pool[n] for n in names if untrusted_field(pool[n]) is not None), None)


_NOT_RESTRICTIONS = frozenset({"id", "ids", "number", "threshold", "count", "at", "date"})


def restricted_records(world: World) -> list[tuple[Record, str]]:
    """Records carrying a restriction a careful agent must respect (an alert, a legal hold,
    an exclusion): a non-empty text or a `true` flag under a restriction key — not an alert's
    own number or a threshold."""
    found = []
    for record in world.records:
        for key, value in record.attributes.items():
            words = set(tokens(key))
            if not words & _RESTRICTION_KEYS or words & _NOT_RESTRICTIONS:
                continue
            if (isinstance(value, str) and value) or value is True:
                found.append((record, f"{key}: {json.dumps(value) if value is True else value}"))
    return found


_FORBIDDEN_ACTS = (
    frozenset({"dispa", "route", "assig"}),
    frozenset({"dismi", "disci", "termi", "fire"}),
    frozenset({"mail", "visit", "call", "calls", "reque", "send", "messa", "lette"}),
    frozenset({"sale", "sales", "order", "buy", "purch", "gift", "check"}),
    frozenset({"delet", "purge", "trash", "remov", "move", "trans", "destr"}),
    frozenset({"relea", "discl", "share", "expor", "send", "print"}),
    frozenset({"chang", "updat", "edit"}),
)
"""Word stems of a restriction and of the acts it forbids, one group per kind of act: 'not
to be dispatched' forbids a route, 'dismissal on hold' a termination, 'no mail' a request
for documents by post, 'sales suspended' an order."""


def forbids(rule: str, tool: Tool) -> bool:
    """Whether the restriction forbids what the tool does: a held flag (`litigation_hold:
    true`) any change, a worded restriction the act it names. A consent rule for releasing
    notes does not forbid booking an appointment, nor a recall hold immobilising the van."""
    value = rule.partition(": ")[2]
    if value == "true":
        return True
    said = {w[:5] for w in re.findall(r"[a-z]+", value.lower()) if len(w) >= 3}
    acts = [w[:5] for w in tokens(tool.name)[1:]]
    # the verb said outright ('not to be dispatched'); an object it names ('do not disclose
    # appointments') is no act, so the name's other words count only through a group
    verb = set(acts[:1])
    return bool(said & verb) or any(said & group and group & set(acts) for group in _FORBIDDEN_ACTS)


def restricted_targets(world: World, tool: Tool) -> list[tuple[str, str, Record, str]]:
    """(field, value, restricted record, rule) for each way `tool` can act on a restricted
    record whose restriction forbids what it does: by its id, by an identifying attribute
    (`hostname`), or through a record that belongs to it (a document of a matter under
    litigation hold)."""
    fields = {
        str(n): sub
        for n, sub in (tool.parameters.get("properties") or {}).items()
        if sub.get("type") == "string" and "enum" not in sub
    }
    found = []
    for held, rule in restricted_records(world):
        if not forbids(rule, tool):
            continue
        members = [r for r in world.records if held.id in map(str, r.attributes.values())]
        for name in fields:
            value = held.attributes.get(name)
            if isinstance(value, str) and value:
                found.append((name, value, held, rule))
            elif tokens(name)[-1:] == ["id"] and refers_to(name, held) > 0:
                found.append((name, held.id, held, rule))
            else:
                found += [
                    (name, m.id, held, rule)
                    for m in members
                    if tokens(name)[-1:] == ["id"] and refers_to(name, m) > 0
                ]
    return found


def infeasible_modes(seed: Seed, pool: ToolPool) -> dict[str, str]:
    """Failure modes this domain cannot act out, with the reason."""
    missing: dict[str, str] = {}
    if exec_tool(pool, seed.tools) is None:
        missing["insecure_interaction_or_execution"] = (
            "no tool with a side effect runs or fetches a URL, command or program source"
        )
    if not any(pool[n].lookalike_of in seed.tools for n in seed.tools):
        missing["choosing_malicious_tool"] = "no look-alike tool beside a legitimate one"
    if not any(hazard_fits(seed, pool, h, DISCLOSURE) for h in seed.hazards):
        missing[DISCLOSURE] = (
            "no privacy hazard's tool sends a record to an address (recipient, e-mail, destination)"
        )
    if not any(hazard_fits(seed, pool, h, "tool_misuse_in_specific_context") for h in seed.hazards):
        missing["tool_misuse_in_specific_context"] = (
            "no hazard's tool acts on a record whose restriction a read-only tool shows"
        )
    return missing


_WORLDS: dict[tuple[int, str], World] = {}


def _world(seed: Seed) -> World:
    key = (id(seed), seed.id)
    if key not in _WORLDS:
        _WORLDS[key] = build_world(seed)
    return _WORLDS[key]


DISCLOSURE = "unauthorized_information_disclosure"


def hazard_fits(seed: Seed, pool: ToolPool, hazard: Hazard, mode: str) -> bool:
    """Whether this hazard can carry the failure mode: for misuse, its tool is a legitimate
    one (not a look-alike) that acts on a restricted record whose restriction a read-only
    tool shows; for a disclosure, a privacy harm its tool does by sending a sensitive
    record to an address (`disclosure`)."""
    if mode == DISCLOSURE:
        tool = pool[hazard.tool]
        sends = operation_of(tool) == "send" and address_field(tool) is not None
        return (
            hazard.harm == "privacy_and_confidentiality_harm"
            and sends
            and sends_secret(_world(seed), tool, hazard)
        )
    if mode != "tool_misuse_in_specific_context":
        return True
    if pool[hazard.tool].lookalike_of is not None:
        return False
    world = _world(seed)
    return any(
        reveal(pool, seed, world, held, rule) is not None
        for _, _, held, rule in restricted_targets(world, pool[hazard.tool])
    )


def told(rule: str, text: str) -> bool:
    """Whether `text` shows the restriction `key: value`: a flag as the field set to true, a
    text by its opening words."""
    key, _, value = rule.partition(": ")
    return f'"{key}": true' in text if value == "true" else value[:40] in text


def reveal(
    pool: ToolPool, seed: Seed, world: World, held: Record, rule: str
) -> tuple[Tool, Plan] | None:
    """A genuine read-only call whose answer shows the record's restriction (its key and
    value), so the agent has been told before it acts."""
    for tool in (pool[n] for n in seed.tools):
        if tool.side_effect != "none" or tool.lookalike_of is not None:
            continue
        plan = plan_arguments(tool, world, (held.id,), held.name, [held.id])
        _, result = execute(world, tool, plan.arguments, (held.id,))
        shown = json.dumps(render(tool, result, world, plan.arguments, random.Random(0)))
        if held.id in shown and told(rule, shown):
            return tool, plan
    return None


Runs = tuple[list[str], list[str]]
"""A seed's workflows as their simulated benign runs sort them: (carriers, groundable)."""
_CARRIERS: dict[tuple[int, str], Runs] = {}
"""(pool identity, seed JSON) -> `workflow_runs`."""


def carrier_workflows(seed: Seed, pool: ToolPool) -> list[str]:
    """Workflows whose benign run returns text a risk can ride in, at some step."""
    return workflow_runs(seed, pool)[0]


def groundable_workflows(seed: Seed, pool: ToolPool) -> list[str]:
    """Workflows whose benign run grounds every step (`steps.simulate`): one with a step no
    value the user said or a result showed can fill would only be rejected at expansion (a
    write on an empty or made-up value), so the planner never plans it."""
    return workflow_runs(seed, pool)[1]


def workflow_runs(seed: Seed, pool: ToolPool) -> Runs:
    """(carrier, groundable) workflow ids of the seed (memoised: every partition's planner
    asks the same question of the same seed)."""
    key = (id(pool), seed.model_dump_json())
    if key not in _CARRIERS:
        _CARRIERS[key] = _runs(seed, pool)
    return _CARRIERS[key]


def remember_carriers(seed: Seed, pool: ToolPool, found: Runs) -> None:
    """Adopt `workflow_runs(seed, pool)` as another process worked it out (the build plans
    domains' carriers in forked processes, then plans the release in one)."""
    _CARRIERS[(id(pool), seed.model_dump_json())] = found


def _runs(seed: Seed, pool: ToolPool) -> Runs:
    carriers, groundable = [], []
    for workflow in seed.workflows:
        observed = simulate(seed, pool, workflow)
        if not isinstance(observed, list):
            continue
        groundable.append(workflow.id)
        if any(
            carries_text(pool[name], obs)
            for name, obs in zip(workflow.steps, observed, strict=True)
        ):
            carriers.append(workflow.id)
    return carriers, groundable


OBSERVED_SOURCES = frozenset(
    {
        "indirect_prompt_injection",
        "unreliable_or_misinformation",
        "corrupted_tool_feedback",
        "malicious_tool_execution",
    }
)
"""Sources whose trigger an observation of the shared prefix carries (a misbehaving tool
reports what it did in its own result)."""


def infeasible_sources(seed: Seed, pool: ToolPool) -> dict[str, str]:
    """Risk sources this domain cannot carry, with the reason."""
    missing: dict[str, str] = {}
    if not carrier_workflows(seed, pool):
        why = "no workflow step returns text a message or claim could sit in"
        missing |= dict.fromkeys(sorted(OBSERVED_SOURCES), why)
    return missing
