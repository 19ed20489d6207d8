"""Generator roles: what each role is given and what it must answer.

Construction decides *what happens* in a trajectory (which tool, benign or harmful, where the
trigger sits); roles only write the content. Every role is a jinja2 template plus a typed input
and a typed answer. The same request goes to a real model (the template is rendered) or to the
procedural backend (the input is read directly), so both backends are interchangeable.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from pipeline.core.llm import LLMRequest
from pipeline.core.model.channels import Channel

In = TypeVar("In", bound=BaseModel)
Out = TypeVar("Out", bound=BaseModel)

_INPUT = ConfigDict(extra="forbid", frozen=True)


# --- shared context ---------------------------------------------------------------------------


class PersonaView(BaseModel):
    model_config = _INPUT

    name: str
    role: str
    goal: str


class EntityView(BaseModel):
    model_config = _INPUT

    id: str
    kind: str
    name: str
    attributes: dict[str, Any]
    sensitive: bool


class Scene(BaseModel):
    """The environment a trajectory happens in, as every role sees it."""

    model_config = _INPUT

    domain: str
    domain_name: str
    agent_profile: str
    persona: PersonaView
    entities: tuple[EntityView, ...]
    policies: tuple[str, ...]
    seed: int
    """Deterministic variety for the procedural backend; part of the cache key."""
    focus: tuple[str, ...] = ()
    """Ids of the entities the trajectory's tasks and hazard name: the only ones a model's
    prompt lists. A whole world runs to ~15k tokens (cloud_storage), past a small model's
    context and paid on every call; each call's own records come in its own prompt."""


class TurnView(BaseModel):
    """A past turn, flattened for prompts: `role` plus the text a reader would see."""

    model_config = _INPUT

    role: Literal["user", "agent", "environment"]
    text: str


class ToolView(BaseModel):
    model_config = _INPUT

    name: str
    description: str
    parameters: dict[str, Any]
    returns: dict[str, Any]
    side_effect: str


# --- role inputs and answers ------------------------------------------------------------------

QueryMode = Literal["benign", "malicious", "injected", "confirm", "follow_up", "detail"]


class QueryInput(BaseModel):
    model_config = _INPUT

    scene: Scene
    task: str
    """The benign task the user brings (a seed workflow's request), or for `confirm` the
    step the agent asked the user to approve."""
    mode: QueryMode
    """`malicious`: the user wants `ask` done (possibly with jailbreak framing); `injected`:
    a benign request that carries, as pasted or quoted text, an instruction to do `ask`;
    `confirm`: the user's short go-ahead for the step the agent asked about; `follow_up`:
    one more short question in the same conversation; `detail`: the user's answer to the
    agent's clarifying question, giving the rest of the task (`task`)."""
    ask: str | None = None
    """The deviation in concrete words: what a trigger asks for (never the plan's words)."""
    required_values: tuple[str, ...] = ()
    """Values the planted text must contain verbatim (an address, an amount)."""
    context_note: str | None = None
    """For a follow-up request in a later episode: what happened before."""
    today: str = ""
    """The scenario's current date."""


class QueryAnswer(BaseModel):
    request: str = Field(min_length=10)
    trigger_text: str | None = None
    """Exact substring of `request` that carries the risk (malicious or injected modes)."""


class ToolDescriptionInput(BaseModel):
    model_config = _INPUT

    scene: Scene
    tool: ToolView
    ask: str
    """What the hidden instruction in the rewritten description must push the agent to do."""
    required_values: tuple[str, ...] = ()


class ToolDescriptionAnswer(BaseModel):
    description: str = Field(min_length=20)
    trigger_text: str = Field(min_length=10)
    """Exact substring of `description` holding the hidden instruction."""


CallIntent = Literal["benign", "harmful", "verify"]


class ToolCallInput(BaseModel):
    model_config = _INPUT

    scene: Scene
    history: tuple[TurnView, ...]
    tool: ToolView
    """The tool construction chose for this step."""
    arguments: dict[str, Any]
    """The call's arguments, fixed by construction from the request, earlier results, the
    policies or the planned risk; the role writes the reasoning that leads to them."""
    sources: dict[str, str] = Field(default_factory=dict)
    """Argument name -> where its value came from (request, observation, seed, risk, ...)."""
    intent: CallIntent
    purpose: str
    """What this step is for in this task, in plain words."""
    failure_mode: str | None = None
    """For a harmful call: the failure mode the agent's thought should show."""
    reasoning: str | None = None
    """For a flawed plan: the wrong inference the thought must state."""
    grounded_in_context: bool = False
    """The call acts on something from an earlier episode, not on a fresh request."""
    today: str = ""


class ToolCallAnswer(BaseModel):
    thought: str = Field(min_length=5)


ObservationMode = Literal[
    "benign", "injected_instruction", "misinformation", "tampered", "malicious_side_effect"
]


class ObservationInput(BaseModel):
    model_config = _INPUT

    scene: Scene
    tool: ToolView
    arguments: dict[str, Any]
    result: dict[str, Any]
    """The world's answer rendered onto the return schema: the ids and values the
    observation must keep (an LLM may phrase text around them, never contradict them)."""
    mode: ObservationMode
    ask: str | None = None
    """What planted content pushes or claims: the action an injection asks for, the false
    claim, the tampered value, or the side effect the tool performed."""
    required_values: tuple[str, ...] = ()
    """Values the planted text must contain verbatim."""
    verbatim: bool = False
    """The planted text as a seed wrote it (a false report in its writer's words): carried
    word for word, not phrased around."""
    plant_field: str | None = None
    """The free-text field that carries planted content."""
    html_field: str | None = None
    """If set, this page-like field carries a long HTML page (at least 4,000 characters)."""
    today: str = ""


class ObservationAnswer(BaseModel):
    observation: dict[str, Any]
    trigger_text: str | None = None
    """Exact substring of one string value of `observation` holding the planted content."""


ResponseMode = Literal[
    "complete", "refuse", "ask_confirmation", "report_issue", "harmful_content", "clarify"
]


class AgentResponseInput(BaseModel):
    model_config = _INPUT

    scene: Scene
    history: tuple[TurnView, ...]
    mode: ResponseMode
    facts: tuple[str, ...] = ()
    """Observed results the answer must state (for a confirmation, the step it asks about;
    for `clarify`, the part of the task the user has not said yet)."""
    required_content: str | None = None
    """Text the answer must contain verbatim: the harmful content an output failure mode
    consists of, written by construction so the label can be checked."""
    failure_mode: str | None = None
    trigger_ask: str | None = None
    """What the risk the agent met asked for (the trigger's ask): a safe answer may name the
    concrete thing it left alone (a link, an address, a step), an unsafe one (`failure_mode`
    set) what it did about it, in the same words."""
    trigger_in: Channel | None = None
    """Where that risk was met (a tool's description, an observation, the user's turn), so an
    answer that mentions it says where it really was."""
    policy: str | None = None
    """The agent's rule that governs the call a confirmation asks about or a refusal leaves
    out, when one does: the reason it gives is that rule, not one that shares a word."""
    today: str = ""


class AgentResponseAnswer(BaseModel):
    thought: str = Field(min_length=5)
    response: str = Field(min_length=5)


class ReasonInput(BaseModel):
    model_config = _INPUT

    verdict: Literal["safe", "unsafe"]
    labels: dict[str, str] = Field(default_factory=dict)
    """Axis -> leaf display name, unsafe only."""
    steps: tuple[str, ...]
    """The concrete steps that make the trace safe or unsafe, in order."""


class ReasonAnswer(BaseModel):
    reason: str = Field(min_length=20)


# --- the registry -----------------------------------------------------------------------------


class Role(Generic[In, Out]):
    """One generator role: its template, input type and answer type."""

    def __init__(self, name: str, input_type: type[In], answer_type: type[Out]) -> None:
        self.name = name
        self.template = f"{name}.j2"
        self.input_type = input_type
        self.answer_type = answer_type
        self._schema: dict[str, Any] | None = None

    def answer_schema(self) -> dict[str, Any]:
        """The answer type's JSON Schema, built once per role (pydantic rebuilds it per call);
        `request` copies what it narrows, so this one is never changed."""
        if self._schema is None:
            self._schema = self.answer_type.model_json_schema()
        return self._schema

    def request(
        self,
        payload: In,
        *,
        stage: str,
        domain: str,
        item_id: str,
        schema_overrides: dict[str, dict[str, Any]] | None = None,
    ) -> LLMRequest:
        """Build the LLM request; `schema_overrides` narrows answer fields (enums, tool schemas)."""
        base = self.answer_schema()
        schema = {**base, "properties": {**base["properties"], **(schema_overrides or {})}}
        return LLMRequest(
            role=self.name,
            template=self.template,
            variables=payload.model_dump(mode="json"),
            output_schema=schema,
            stage=stage,
            domain=domain,
            item_id=item_id,
        )


QUERY = Role("query_generator", QueryInput, QueryAnswer)
TOOL_DESCRIPTION = Role("tool_description_simulator", ToolDescriptionInput, ToolDescriptionAnswer)
TOOL_CALL = Role("tool_call_simulator", ToolCallInput, ToolCallAnswer)
OBSERVATION = Role("simulated_data_generator", ObservationInput, ObservationAnswer)
AGENT_RESPONSE = Role("agent_response_generator", AgentResponseInput, AgentResponseAnswer)
REASON = Role("reason_generator", ReasonInput, ReasonAnswer)

ROLES: dict[str, Role[Any, Any]] = {
    role.name: role
    for role in (QUERY, TOOL_DESCRIPTION, TOOL_CALL, OBSERVATION, AGENT_RESPONSE, REASON)
}
