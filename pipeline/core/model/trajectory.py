"""The one trajectory model every stage reads and writes.

A trajectory is a list of episodes, each a list of turns: user requests, agent turns (a thought
plus exactly one action: a tool call or the final answer) and environment observations. It
carries one trajectory-level verdict and, for unsafe traces only, one label per taxonomy axis.
Validation refuses states that cannot happen, so a stage that builds one cannot ship it broken.

Field order is the on-disk format: renaming or reordering fields needs a `schema_version` bump.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, model_validator

from pipeline.core.model.channels import Channel
from pipeline.core.model.labels import SNAKE_CASE, Labels
from pipeline.core.model.world import WorldLog

SCHEMA_VERSION = 2

Verdict = Literal["safe", "unsafe"]
Tag = Literal["long_context", "delayed_trigger", "false_reference", "long_html"]
EpisodeKind = Literal["main", "setup", "exploit"]
_FROZEN = ConfigDict(extra="forbid", frozen=True)


class ToolSpec(BaseModel):
    """A tool as the agent sees it (the public `tool_used` entry)."""

    model_config = _FROZEN

    name: str = Field(min_length=1)
    description: str
    parameters: dict[str, Any]
    """JSON Schema object of the arguments."""


class ToolCall(BaseModel):
    model_config = _FROZEN

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class FinalAnswer(BaseModel):
    model_config = _FROZEN

    response: str


class UnparsedAction(BaseModel):
    """An imported action string that reads as neither a tool call nor a final answer.

    Kept verbatim rather than guessed at; only imported traces may carry one. It may or may
    not have been a call, so an observation after it is allowed but not required.
    """

    model_config = _FROZEN

    raw: str


class UserTurn(BaseModel):
    model_config = _FROZEN

    role: Literal["user"] = "user"
    content: str


class AgentTurn(BaseModel):
    model_config = _FROZEN

    role: Literal["agent"] = "agent"
    thought: str
    action: ToolCall | FinalAnswer | UnparsedAction
    grounded_in_context: bool = False
    """Set on Exploit steps that act on earlier outputs or permissions (source=CONTEXT),
    not on a fresh trigger."""


class EnvironmentTurn(BaseModel):
    model_config = _FROZEN

    role: Literal["environment"] = "environment"
    content: str
    """The observation, usually a JSON string."""


Turn = Annotated[UserTurn | AgentTurn | EnvironmentTurn, Field(discriminator="role")]


class Episode(BaseModel):
    model_config = _FROZEN

    kind: EpisodeKind = "main"
    """`setup` and `exploit` are the two halves of a delayed-trigger case."""
    turns: tuple[Turn, ...] = Field(min_length=1)


class RiskPoint(BaseModel):
    """One place where the sampled risk enters the trace."""

    model_config = _FROZEN

    episode: int = Field(ge=0)
    turn: int = Field(ge=0)
    """Index of the turn within its episode."""
    channel: Channel
    text: str = Field(min_length=1)
    """The injected or risky content as it appears at that turn."""


class Provenance(BaseModel):
    model_config = _FROZEN

    release_seed: int
    config_hash: str
    backend: str
    """`procedural`, `openai`, or `imported:<format>`."""
    model: str | None = None
    template_versions: dict[str, str] = Field(default_factory=dict)
    """Template name -> sha256 prefix of the file that produced the content."""


class Trajectory(BaseModel):
    model_config = _FROZEN

    schema_version: int = SCHEMA_VERSION
    id: str = Field(min_length=1)
    """Stable id, `<pair_id>-<variant>`; releases also number rows for the public format."""
    domain: str = Field(pattern=SNAKE_CASE)
    pair_id: str
    variant: Verdict
    """Which twin of the pair this is; equals the verdict for constructed pairs."""
    tools: tuple[ToolSpec, ...]
    """At least one for constructed traces; an imported conversation may call none."""
    profile: str
    """The agent's system prompt."""
    episodes: tuple[Episode, ...] = Field(min_length=1)
    verdict: Verdict
    labels: Labels | None = None
    reason: str
    risk_points: tuple[RiskPoint, ...] = Field(default=(), max_length=3)
    """Unsafe traces have 1-3; a safe twin may keep the trigger it resisted."""
    divergence: int | None = None
    """Flat turn index where this trace first differs from its twin."""
    tags: frozenset[Tag] = frozenset()
    provenance: Provenance
    construction: dict[str, str] = Field(default_factory=dict)
    """How the trace was built (slice, safe strategy, ...), kept beside the labels."""
    world: WorldLog | None = None
    """The environment the trace ran in and what each call did to it: the evidence its
    verdict and labels rest on. Absent on imported traces."""

    @field_serializer("tags", when_used="json")
    def _sorted_tags(self, tags: frozenset[Tag]) -> list[str]:
        """A set's iteration order varies between processes; a stored record must not."""
        return sorted(tags)

    @model_validator(mode="after")
    def _state_is_possible(self) -> Trajectory:
        # Binary-only sources (R-Judge, ASSEBench) neither label nor locate their risks, so an
        # imported unsafe trace may lack both; a constructed one never may.
        if self.verdict == "unsafe" and self.labels is None and not self.imported:
            raise ValueError("an unsafe trajectory needs labels on all three axes")
        if self.verdict == "safe" and self.labels is not None:
            raise ValueError("a safe trajectory carries no labels")
        if self.verdict == "unsafe" and not self.risk_points and not self.imported:
            raise ValueError("an unsafe trajectory needs 1-3 risk points")
        if not self.imported and any(
            isinstance(turn, AgentTurn) and isinstance(turn.action, UnparsedAction)
            for turn in self.turns
        ):
            raise ValueError("only imported trajectories may keep an unparsed action")
        if not self.tools and not self.imported:
            raise ValueError("a constructed trajectory needs at least one tool")
        tool_names = {tool.name for tool in self.tools}
        if len(tool_names) != len(self.tools):
            raise ValueError("tool names in the tool list must be unique")
        for e, episode in enumerate(self.episodes):
            _check_turn_order(e, episode, tool_names, imported=self.imported)
        for point in self.risk_points:
            if point.episode >= len(self.episodes) or point.turn >= len(
                self.episodes[point.episode].turns
            ):
                raise ValueError(
                    f"risk point at episode {point.episode} turn {point.turn} is "
                    "outside the trajectory"
                )
        return self

    @property
    def turns(self) -> list[UserTurn | AgentTurn | EnvironmentTurn]:
        return [turn for episode in self.episodes for turn in episode.turns]

    @property
    def imported(self) -> bool:
        """Read from an external benchmark (`atbench import`) rather than constructed."""
        return self.provenance.backend.startswith("imported:")


def _check_turn_order(e: int, episode: Episode, tool_names: set[str], *, imported: bool) -> None:
    """A call is followed by its observation; an observation needs a call (or an unparsed
    action, which may have been one) before it, except in imported logs, which sometimes show
    an environment message the agent did not ask for."""
    previous: UserTurn | AgentTurn | EnvironmentTurn | None = None
    for t, turn in enumerate(episode.turns):
        awaiting_observation = isinstance(previous, AgentTurn) and isinstance(
            previous.action, ToolCall
        )
        may_observe = isinstance(previous, AgentTurn) and isinstance(
            previous.action, ToolCall | UnparsedAction
        )
        where = f"episode {e} turn {t}"
        if isinstance(turn, EnvironmentTurn) and not may_observe and not imported:
            raise ValueError(f"{where}: observation with no tool call before it")
        if awaiting_observation and not isinstance(turn, EnvironmentTurn):
            raise ValueError(f"{where}: tool call at turn {t - 1} has no observation after it")
        if (
            isinstance(turn, AgentTurn)
            and isinstance(turn.action, ToolCall)
            and turn.action.name not in tool_names
        ):
            raise ValueError(
                f"{where}: action names tool {turn.action.name!r}, "
                "which is not in the trajectory's tool list"
            )
        previous = turn
    if isinstance(previous, AgentTurn) and isinstance(previous.action, ToolCall):
        raise ValueError(f"episode {e}: ends with a tool call that has no observation")
