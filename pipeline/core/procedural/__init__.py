"""The procedural backend: deterministic, offline content for every generator role.

`HANDLERS[request.role](request)` returns the role's answer as a dict. Each call draws all its
randomness from one `random.Random` seeded by (scene seed, item id, role, sample index), so
the same request always yields the same answer and a different sample index a different one.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from pipeline.core.filtering.judge import PLAUSIBILITY_JUDGE
from pipeline.core.generation.roles import (
    AGENT_RESPONSE,
    OBSERVATION,
    QUERY,
    REASON,
    TOOL_CALL,
    TOOL_DESCRIPTION,
    Role,
)
from pipeline.core.llm import LLMRequest
from pipeline.core.llm.code_version import code_version
from pipeline.core.model.seeding import stable_int
from pipeline.core.procedural import (
    judge,
    observation,
    query,
    reason,
    response,
    tool_call,
    tool_description,
)
from pipeline.core.procedural.common import role_rng

In = TypeVar("In", bound=BaseModel)
Handler = Callable[[LLMRequest], dict[str, Any]]


def _handler(role: Role[In, Any], body: Callable[[In, random.Random], dict[str, Any]]) -> Handler:
    """Parse the request's variables into the role's input, then run `body` with its rng."""

    def handle(request: LLMRequest) -> dict[str, Any]:
        payload = role.input_type.model_validate(request.variables)
        scene = getattr(payload, "scene", None)
        seed = (
            scene.seed
            if scene is not None
            else stable_int(json.dumps(request.variables, sort_keys=True))
        )
        rng = role_rng(seed, request.item_id, request.role, request.sample_index)
        return body(payload, rng)

    handle.__name__ = f"handle_{role.name}"
    return handle


HANDLERS: dict[str, Handler] = {
    QUERY.name: _handler(QUERY, query.handle),
    TOOL_DESCRIPTION.name: _handler(TOOL_DESCRIPTION, tool_description.handle),
    TOOL_CALL.name: _handler(TOOL_CALL, tool_call.handle),
    OBSERVATION.name: _handler(OBSERVATION, observation.handle),
    AGENT_RESPONSE.name: _handler(AGENT_RESPONSE, response.handle),
    REASON.name: _handler(REASON, reason.handle),
    PLAUSIBILITY_JUDGE.name: _handler(PLAUSIBILITY_JUDGE, judge.handle),
}


MODEL_NAME = f"procedural-{code_version(__name__)}"
"""Names the procedural 'model' by a hash of the code it runs (this package and every project
module it imports), so a changed generator or judge gets new cache keys and a new build folder
instead of silently reusing old answers."""

__all__ = ["HANDLERS", "MODEL_NAME"]
