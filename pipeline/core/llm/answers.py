"""Turning an answer text into a validated model, with errors the model can act on when re-asked."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import jsonschema
import jsonschema_rs
from jsonschema.exceptions import best_match
from pydantic import BaseModel, ValidationError

from pipeline.core.llm.cache import canonical_json
from pipeline.core.llm.errors import SchemaViolation

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"```(?:json)?\s*\n?(.*?)```", re.DOTALL)
_validators: dict[str, tuple[jsonschema_rs.Validator | None, jsonschema.protocols.Validator]] = {}


def parse_answer(text: str) -> Any:
    """The JSON object in `text`: the whole text, a ```json fence, or the first {...} in it."""
    stripped = text.strip()
    if not stripped:
        raise SchemaViolation("the answer is empty; expected a JSON object")
    try:
        return json.loads(stripped)
    except ValueError:
        pass
    fence = _FENCE.search(stripped)
    candidates = [fence.group(1).strip()] if fence else []
    start = stripped.find("{")
    if start >= 0:
        candidates.append(stripped[start:])
    for candidate in candidates:
        try:
            return json.JSONDecoder().raw_decode(candidate)[0]
        except ValueError:
            continue
    raise SchemaViolation(f"the answer is not JSON: {_shorten(stripped)!r}")


def validate_answer(data: Any, schema: dict[str, Any], answer_model: type[M]) -> M:
    """Check `data` against the JSON Schema the model was given, then build `answer_model`.

    A compiled Rust validator answers whether it fits; only an answer it refuses goes through
    `jsonschema`, which has the final word and words the error the model is re-asked with."""
    fast, validator = _validator_for(schema)
    if fast is None or not fast.is_valid(data):
        error = best_match(validator.iter_errors(data))
        if error is not None:
            where = error.json_path
            raise SchemaViolation(
                f"the answer does not match the schema at {where}: {error.message}"
            )
    try:
        return answer_model.model_validate(data)
    except ValidationError as err:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '<root>'}: {e['msg']}"
            for e in err.errors(include_url=False)[:3]
        )
        raise SchemaViolation(
            f"the answer does not fit {answer_model.__name__}: {details}"
        ) from None


def _validator_for(
    schema: dict[str, Any],
) -> tuple[jsonschema_rs.Validator | None, jsonschema.protocols.Validator]:
    """Compiled validators by schema content: building one costs far more than using it. No
    Rust validator for a schema it cannot compile (`jsonschema` then checks alone)."""
    text = canonical_json(schema)
    found = _validators.get(text)
    if found is None:
        cls = jsonschema.validators.validator_for(schema)
        cls.check_schema(schema)
        try:
            fast = jsonschema_rs.validator_for(schema, validate_formats=False)
        except (ValueError, jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError):
            fast = None
        found = (fast, cls(schema))
        _validators[text] = found
    return found


def _shorten(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"
