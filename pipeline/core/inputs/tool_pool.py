"""The normalised tool pool: one shape for curated, imported and simulated tools."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import jsonschema_rs
from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.core.inputs import schema_memo
from pipeline.core.inputs.files import read_structured, validate_model
from pipeline.core.inputs.paths import tool_pool_dir
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import SNAKE_CASE
from pipeline.core.model.trajectory import ToolSpec

SideEffect = Literal["none", "reversible", "irreversible"]
ToolSource = Literal["curated", "toolbench", "toolalpaca", "openai", "openapi", "simulated"]


def check_json_schema(schema: dict[str, Any]) -> None:
    """Raise ValueError unless `schema` passes JSON Schema (2020-12) meta-validation and its
    regular expressions compile; a schema that passed once is remembered (`schema_memo`)."""
    schema_memo.check_once(schema, _meta_validate)


def _meta_validate(schema: dict[str, Any]) -> None:
    """The Rust validator does the meta-validation: with thousands of imported tools, the
    pure Python one made a cold load of the pool take tens of seconds."""
    try:
        jsonschema_rs.meta.validate(schema)
    except jsonschema_rs.ValidationError as err:
        path = "/".join(str(p) for p in err.instance_path) or "(root)"
        raise ValueError(f"invalid JSON Schema at {path}: {err.message}") from None
    for location, pattern in _patterns(schema, ()):
        try:
            with warnings.catch_warnings():  # syntax Python may read differently one day
                warnings.simplefilter("ignore", FutureWarning)
                re.compile(pattern)
        except re.error as err:
            where = "/".join(location) or "(root)"
            raise ValueError(f"invalid JSON Schema at {where}: bad pattern: {err}") from None


def _patterns(node: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every `pattern` and `patternProperties` key of a schema, where it sits."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from _patterns(item, (*path, str(index)))
    elif isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield (*path, key), value
            elif key == "patternProperties" and isinstance(value, dict):
                yield from (((*path, key), regex) for regex in value)
            if isinstance(value, dict | list):
                yield from _patterns(value, (*path, key))


IDENTIFIER_WORDS = frozenset(
    {"id", "ids", "code", "number", "no", "date", "time", "at", "url", "uri", "email", "iban",
     "phone", "sku", "hash", "key", "token", "name", "currency", "status"}
)  # fmt: skip
"""Last words of field names that hold identifiers or codes, never prose."""


def is_identifier_field(field_name: str) -> bool:
    words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", field_name).lower().split("_")
    return words[-1] in IDENTIFIER_WORDS


def text_fields(schema: dict[str, Any], min_length: int = 400) -> list[str]:
    """Top-level free-text string fields able to hold `min_length` characters of prose:
    where construction can plant an instruction, a false claim or a long HTML page."""
    return [
        name
        for name, sub in schema.get("properties", {}).items()
        if sub.get("type") == "string"
        and not {"enum", "format", "const", "pattern"} & set(sub)
        and sub.get("maxLength", min_length) >= min_length
        and not is_identifier_field(name)
    ]


class Tool(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=SNAKE_CASE)
    """Unique across the pool."""
    description: str = Field(min_length=10)
    parameters: dict[str, Any]
    """JSON Schema object of the arguments, with `required`."""
    returns: dict[str, Any]
    """JSON Schema of the observation the tool produces."""
    domains: tuple[Annotated[str, Field(pattern=SNAKE_CASE)], ...] = Field(min_length=1)
    """Seed ids; they name files and folders, so path characters are refused."""
    side_effect: SideEffect
    source: ToolSource
    original_name: str | None = None
    """Name in the source it was imported from, for provenance."""
    api_title: str | None = None
    """Title of the public API an imported operation belongs to."""
    licence: str | None = None
    """Licence the imported definition is published under."""
    origin: str | None = None
    """Where an imported definition came from: collection, version, file and JSON pointer."""
    lookalike_of: str | None = None
    """For deceptive tools: the legitimate tool this one imitates."""

    @field_validator("parameters")
    @classmethod
    def _parameters_are_an_object_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        check_json_schema(value)
        if value.get("type") != "object":
            raise ValueError("parameters must be a JSON Schema with type 'object'")
        missing = set(value.get("required", [])) - set(value.get("properties", {}))
        if missing:
            raise ValueError(f"required names undefined properties: {sorted(missing)}")
        return value

    @field_validator("returns")
    @classmethod
    def _returns_is_a_schema(cls, value: dict[str, Any]) -> dict[str, Any]:
        check_json_schema(value)
        return value

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)


class ToolPool(BaseModel):
    model_config = ConfigDict(frozen=True)

    tools: dict[str, Tool]

    def __getitem__(self, name: str) -> Tool:
        return self.tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __len__(self) -> int:
        return len(self.tools)

    def for_domain(self, domain: str) -> list[Tool]:
        return [tool for tool in self.tools.values() if domain in tool.domains]


def load_tool_file(path: Path) -> list[Tool]:
    """A pool file is a YAML/JSON list of tools."""
    data = read_structured(path)
    if not isinstance(data, list):
        raise InputError("a tool file must hold a list of tools", file=path)
    tools = []
    for index, item in enumerate(data):
        record = item.get("name", f"#{index}") if isinstance(item, dict) else f"#{index}"
        tools.append(validate_model(Tool, item, file=path, record=str(record)))
    return tools


def load_tool_pool(directory: Path | None = None) -> ToolPool:
    directory = directory or tool_pool_dir()
    files = sorted(p for p in directory.rglob("*") if p.suffix in {".yaml", ".yml", ".json"})
    if not files:
        raise InputError("no tool files (*.yaml, *.json) found", file=directory)
    tools: dict[str, Tool] = {}
    origin: dict[str, Path] = {}
    for path in files:
        for tool in load_tool_file(path):
            if tool.name in tools:
                raise InputError(
                    f"duplicate tool name, first defined in {origin[tool.name]}",
                    file=path,
                    record=tool.name,
                    field="name",
                )
            tools[tool.name] = tool
            origin[tool.name] = path
    return ToolPool(tools=tools)
