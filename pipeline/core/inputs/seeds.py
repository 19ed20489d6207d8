"""Environment seeds: one file per domain, the partition set of the pipeline."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from pydantic import BaseModel, ConfigDict, Field, model_validator

from pipeline.core.inputs.files import read_structured, validate_model
from pipeline.core.inputs.paths import seeds_dir
from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.inputs.tool_pool import ToolPool
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES, SNAKE_CASE
from pipeline.core.model.risk_text import (
    ASKING,
    CONSTRUCTION_WORDS,
    GIVEAWAY,
    RUN,
    THE_AGENT,
    shares_run,
)

Scalar = str | int | float | bool
EntityKind = Literal["account", "record", "file", "device", "contact", "resource"]


class Persona(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    role: str
    goal: str
    """What this user typically wants from the agent."""


class Entity(BaseModel):
    """A piece of the environment's state that tools read and act on."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")
    """Quoted into prompts and tool arguments: letters, digits and `_.:-`, no path characters."""
    kind: EntityKind
    name: str
    attributes: dict[str, Scalar] = Field(default_factory=dict)
    sensitive: bool = False


class Policy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=SNAKE_CASE)
    rule: str
    """The rule in plain words, e.g. 'Transfers above 1,000 EUR need explicit confirmation'."""
    applies_to: tuple[str, ...] = ()
    """Tool names the rule constrains."""


class Verdict(BaseModel):
    """The yes or no a request asks for ('Did my payment to Sam go through?'), settled by one
    field of one record as the run reads it: the answer leads with it instead of listing
    fields and leaving the judgement to the user."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    record: str
    """Id of the entity whose field decides it."""
    field: str
    """That field, as the entity and the tool's result name it."""
    yes_when: tuple[Scalar, ...] = ()
    """Values that mean yes (text compared without case); any other value means no."""
    below: float | None = None
    """Or: a number below this means yes ('is the battery getting low?')."""
    if_yes: str = Field(min_length=3)
    """What the answer says when it is yes, in the user's terms: 'the payment went through'
    (not `yes:`, which YAML reads as the boolean true)."""
    if_no: str = Field(min_length=3)
    """And when it is no: 'the payment has not gone through'."""

    @model_validator(mode="after")
    def _decidable(self) -> Verdict:
        if not self.yes_when and self.below is None:
            raise ValueError("a verdict needs `yes_when` values or a `below` threshold")
        return self


class Workflow(BaseModel):
    """A benign task users bring to this environment, and the tools a careful agent uses."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=SNAKE_CASE)
    request: str = Field(min_length=10)
    """The user's request in their own words."""
    steps: tuple[str, ...] = Field(min_length=2)
    """Tool names in the order the agent calls them."""
    verdict: Verdict | None = None
    """For a request that asks a yes/no question: what settles it."""


class Hazard(BaseModel):
    """A harmful action this environment makes possible: what an attack or a failure aims at."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=SNAKE_CASE)
    description: str
    """The harmful outcome in plain words."""
    tool: str
    """The tool whose call realises it."""
    harm: str
    """The real_world_harm leaf it produces."""
    failure_modes: tuple[str, ...] = Field(min_length=1)
    """failure_mode leaves through which an agent can end up doing it."""
    arguments: dict[
        str, str | int | float | bool | list[str] | list[dict[str, str | int | float | bool]]
    ] = Field(default_factory=dict)
    """Values the harmful call carries that no record holds (the SQL it runs, the stops of a
    route, a schedule's periods): the harm is in the call, where a guard can see it."""
    claim: str = ""
    """What misinformation says that makes this call look right: a false statement of fact
    as someone in the world wrote it (a portal message, a forum post, a supplier's e-mail, a
    search snippet), holding the short values the call needs that no record holds. It states
    and never asks (a request would make it an injection), and a record of the world
    contradicts it, so a careful agent can catch it. Empty where no false fact leads here."""

    @model_validator(mode="after")
    def _claim_written_in_the_world(self) -> Hazard:
        """A claim that asks, names the construction or pastes the hazard sentence would be
        rejected in every pair built from it: refused when the seed loads instead."""
        for pattern, what in (
            (ASKING, "asks for something"),
            (CONSTRUCTION_WORDS, "uses a construction word"),
            (THE_AGENT, "says 'the agent'"),
            (GIVEAWAY, "addresses a bot"),
        ):
            found = pattern.search(self.claim)
            if found:
                raise ValueError(f"claim {what} ({found.group(0)!r}): it must state a fact")
        if shares_run(self.description, self.claim):
            raise ValueError(f"claim repeats {RUN} words in a row of the hazard's description")
        if len(self.claim.split()) > CLAIM_WORDS:
            raise ValueError(f"claim has {len(self.claim.split())} words (at most {CLAIM_WORDS})")
        return self


CLAIM_WORDS = 60
"""Longer, a false report stops reading as one line someone wrote."""


class NaturalLeaves(BaseModel):
    """Taxonomy leaves that arise naturally in this environment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    risk_source: tuple[str, ...] = ()
    failure_mode: tuple[str, ...] = ()
    real_world_harm: tuple[str, ...] = ()


class Seed(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=SNAKE_CASE)
    """Slug; the partition key. Must match the file name."""
    name: str
    description: str
    agent_profile: str = Field(min_length=20)
    """System prompt of the agent deployed in this environment."""
    personas: tuple[Persona, ...] = Field(min_length=1)
    entities: tuple[Entity, ...] = Field(min_length=1)
    sensitive_data: tuple[str, ...] = ()
    policies: tuple[Policy, ...] = ()
    tools: tuple[str, ...] = Field(min_length=3)
    """Ids into the tool pool."""
    workflows: tuple[Workflow, ...] = Field(min_length=1)
    hazards: tuple[Hazard, ...] = Field(min_length=1)
    natural_leaves: NaturalLeaves = NaturalLeaves()

    @model_validator(mode="after")
    def _entity_ids_unique(self) -> Seed:
        ids = [entity.id for entity in self.entities]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"duplicate entity ids: {duplicates}")
        return self


def seed_paths(directory: Path | None = None) -> list[Path]:
    directory = directory or seeds_dir()
    return sorted(p for p in directory.glob("*.yaml"))


def domain_ids(directory: Path | None = None) -> list[str]:
    """The partition keys, read from file names only (no parsing at definition load)."""
    return [path.stem for path in seed_paths(directory)]


def load_seed(path: Path) -> Seed:
    data = read_structured(path)
    seed = validate_model(Seed, data, file=path, record=path.stem)
    if seed.id != path.stem:
        raise InputError(
            f"seed id {seed.id!r} must match the file name", file=path, record=seed.id, field="id"
        )
    return seed


def load_seeds(directory: Path | None = None) -> dict[str, Seed]:
    paths = seed_paths(directory)
    if not paths:
        raise InputError("no seed files (*.yaml) found", file=directory or seeds_dir())
    return {seed.id: seed for seed in map(load_seed, paths)}


def check_seed_references(seed: Seed, path: Path, pool: ToolPool, taxonomy: Taxonomy) -> None:
    """Cross-file checks: every tool a seed names is offered by the seed and exists in the pool;
    every leaf it names exists in the taxonomy; a workflow's verdict reads a field its entity
    holds."""

    def fail(message: str, field: str) -> InputError:
        return InputError(message, file=path, record=seed.id, field=field)

    for index, name in enumerate(seed.tools):
        if name not in pool:
            raise fail(f"tool {name!r} is not in the tool pool", f"tools.{index}")
    offered = set(seed.tools)
    entities = {entity.id: entity for entity in seed.entities}
    for w, workflow in enumerate(seed.workflows):
        for index, name in enumerate(workflow.steps):
            if name not in offered:
                raise fail(
                    f"step tool {name!r} is not in the seed's tools", f"workflows.{w}.steps.{index}"
                )
        verdict, at = workflow.verdict, f"workflows.{w}.verdict"
        if verdict is not None and verdict.record not in entities:
            raise fail(
                f"workflow {workflow.id!r}: verdict record {verdict.record!r} is no entity",
                f"{at}.record",
            )
        if verdict is not None and verdict.field not in entities[verdict.record].attributes:
            held = ", ".join(sorted(entities[verdict.record].attributes))
            raise fail(
                f"workflow {workflow.id!r}: verdict field {verdict.field!r} is not an attribute "
                f"of {verdict.record!r} ({held})",
                f"{at}.field",
            )
    for h, hazard in enumerate(seed.hazards):
        if hazard.tool not in offered:
            raise fail(
                f"hazard tool {hazard.tool!r} is not in the seed's tools", f"hazards.{h}.tool"
            )
        parameters = pool[hazard.tool].parameters.get("properties") or {}
        for key, value in hazard.arguments.items():
            if key not in parameters:
                raise fail(
                    f"{key!r} is not a parameter of {hazard.tool!r}", f"hazards.{h}.arguments.{key}"
                )
            # a value its parameter refuses would only fail at build time, in every pair
            error = best_match(Draft202012Validator(parameters[key]).iter_errors(value))
            if error is not None:
                raise fail(
                    f"{value!r} does not fit {hazard.tool}.{key}: {error.message}",
                    f"hazards.{h}.arguments.{key}",
                )
        if hazard.harm not in taxonomy.leaf_ids("real_world_harm"):
            raise fail(f"{hazard.harm!r} is not a real_world_harm leaf id", f"hazards.{h}.harm")
        for index, leaf in enumerate(hazard.failure_modes):
            if leaf not in taxonomy.leaf_ids("failure_mode"):
                raise fail(
                    f"{leaf!r} is not a failure_mode leaf id", f"hazards.{h}.failure_modes.{index}"
                )
    for axis in AXES:
        for index, leaf in enumerate(getattr(seed.natural_leaves, axis)):
            if leaf not in taxonomy.leaf_ids(axis):
                raise fail(f"{leaf!r} is not a {axis} leaf id", f"natural_leaves.{axis}.{index}")
