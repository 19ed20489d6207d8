"""Answer validation: the fast validator lets fitting answers through, and a refused answer
is worded by jsonschema for the re-ask."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from pipeline.core.llm.answers import validate_answer
from pipeline.core.llm.errors import SchemaViolation


class Pick(BaseModel):
    tool: str
    count: int


SCHEMA = {
    "type": "object",
    "properties": {"tool": {"enum": ["lookup", "send"]}, "count": {"type": "integer"}},
    "required": ["tool", "count"],
    "additionalProperties": False,
}


def test_a_fitting_answer_becomes_the_model() -> None:
    assert validate_answer({"tool": "send", "count": 2}, SCHEMA, Pick) == Pick(tool="send", count=2)


@pytest.mark.parametrize(
    ("answer", "where"),
    [
        ({"tool": "delete", "count": 2}, r"\$\.tool"),
        ({"tool": "send", "count": "2"}, r"\$\.count"),
        ({"tool": "send"}, r"at \$: 'count' is a required property"),
        ({"tool": "send", "count": 1, "extra": True}, "Additional properties"),
    ],
)
def test_a_refused_answer_names_where_it_fails(answer: dict[str, object], where: str) -> None:
    with pytest.raises(SchemaViolation, match=where):
        validate_answer(answer, SCHEMA, Pick)


def test_the_model_still_checks_what_the_schema_leaves_open() -> None:
    with pytest.raises(SchemaViolation, match="does not fit Pick: count"):
        validate_answer({"tool": "send", "count": 1.5}, {"type": "object"}, Pick)
