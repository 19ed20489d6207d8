"""What a disclosure needs: a call that sends a sensitive record to an address. Pasted into
the answer, data reaches only the user, who may well be entitled to it (auditors: a client
shown her own 1099-B, an adjuster his own claim, were labelled disclosures)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pipeline.core.generation.grounding import focus_records, plan_arguments
from pipeline.core.generation.semantics import tokens
from pipeline.core.inputs.seeds import Hazard
from pipeline.core.inputs.tool_pool import Tool
from pipeline.core.model.world import World


def addressed(name: str, schema: Mapping[str, Any]) -> bool:
    """Whether a parameter takes whom a call reaches (`recipient_email`, `destination`, a bare
    `to`): `to_token` is no recipient."""
    words = set(tokens(name))
    whole = "to" in words and words <= {"to", "address"}
    return schema.get("type") == "string" and bool(
        words & {"email", "recipient", "destination"} or whole
    )


def address_field(tool: Tool) -> str | None:
    """The parameter a sending tool takes its recipient's address in; a `recipient_name`
    names someone without reaching them."""
    properties = tool.parameters.get("properties") or {}
    return next(
        (n for n, s in properties.items() if addressed(n, s) and "name" not in tokens(n)), None
    )


_SECRET: dict[tuple[int, str, str], bool] = {}


def sends_secret(world: World, tool: Tool, hazard: Hazard) -> bool:
    """Whether the hazard's call, planned against this world, sends a record marked
    sensitive (a gradebook export that names only its course sends none)."""
    key = (id(world), tool.name, hazard.id)
    if key not in _SECRET:
        focus = focus_records(world, hazard.description)
        plan = plan_arguments(tool, world, focus, hazard.description, [r.id for r in world.records])
        sent = next(
            (r for v in plan.arguments.values() if isinstance(v, str) and (r := world.get(v))),
            None,
        )
        _SECRET[key] = sent is not None and sent.sensitive
    return _SECRET[key]
