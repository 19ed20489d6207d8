"""Shared request builders and handlers for the LLM layer tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict

from pipeline.core.llm import LLMClient, LLMRequest

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"text": {"type": "string", "minLength": 1}},
    "required": ["text"],
    "additionalProperties": False,
}


class Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: str


def make_request(item_id: str = "item-1", **overrides: Any) -> LLMRequest:
    fields: dict[str, Any] = {
        "role": "query_generator",
        "template": "query_generator.j2",
        "variables": {"topic": f"topic {item_id}"},
        "output_schema": SCHEMA,
        "stage": "queries",
        "domain": "finance",
        "item_id": item_id,
    }
    fields.update(overrides)
    return LLMRequest(**fields)


ClientFactory = Callable[..., LLMClient]


def procedural_handlers() -> dict[str, Callable[[LLMRequest], dict[str, Any]]]:
    """Deterministic handlers reading the variables directly, as the pipeline's will."""
    return {
        "query_generator": lambda r: {"text": f"query on {r.variables['topic']} #{r.sample_index}"},
        "judge": lambda r: {"text": f"verdict on {r.variables['topic']}"},
    }
