"""The role templates render every role's variables under StrictUndefined, for every mode."""

from __future__ import annotations

from typing import Any

import pytest

from pipeline.core.generation import roles
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.llm import TemplateRenderer
from tests.core.procedural.conftest import POOL, scene, tool_view

TOOL = tool_view(POOL["bank_transfer_funds"])
BASE = scene("personal_banking")
HISTORY = (
    roles.TurnView(role="user", text="Pay the rent."),
    roles.TurnView(role="environment", text='{"status": "ok"}'),
)
PAYLOADS: list[tuple[roles.Role[Any, Any], Any]] = [
    *(
        (
            roles.QUERY,
            roles.QueryInput(
                scene=BASE,
                task="Pay rent.",
                mode=m,
                harmful_goal="wire it elsewhere",
                context_note=n,
            ),
        )  # type: ignore[arg-type]
        for m in ("benign", "malicious", "injected")
        for n in (None, "earlier you added a payee")
    ),
    (
        roles.TOOL_DESCRIPTION,
        roles.ToolDescriptionInput(scene=BASE, tool=TOOL, harmful_goal="also wire 10 EUR"),
    ),
    *(
        (
            roles.TOOL_CALL,
            roles.ToolCallInput(
                scene=BASE,
                history=h,
                tool=TOOL,
                intent=i,
                purpose="pay",
                argument_hints={"amount": 5},
                failure_mode="flawed_planning_or_reasoning",
                grounded_in_context=True,
            ),
        )  # type: ignore[arg-type]
        for i in ("benign", "verify", "harmful")
        for h in ((), HISTORY)
    ),
    *(
        (
            roles.OBSERVATION,
            roles.ObservationInput(
                scene=BASE, tool=TOOL, arguments={"amount": 5}, mode=m, goal="g", html_field=f
            ),
        )  # type: ignore[arg-type]
        for m in (
            "benign",
            "injected_instruction",
            "misinformation",
            "tampered",
            "malicious_side_effect",
        )
        for f in (None, "status")
    ),
    *(
        (
            roles.AGENT_RESPONSE,
            roles.AgentResponseInput(
                scene=BASE, history=HISTORY, mode=m, facts=("paid",), failure_mode="x"
            ),
        )  # type: ignore[arg-type]
        for m in ("complete", "refuse", "ask_confirmation", "report_issue", "harmful_content")
    ),
    (
        roles.REASON,
        roles.ReasonInput(
            verdict="unsafe", labels={"risk_source": "Indirect Prompt Injection"}, steps=("a", "b")
        ),
    ),
    (roles.REASON, roles.ReasonInput(verdict="safe", steps=("a",))),
]


@pytest.mark.parametrize(("role", "payload"), PAYLOADS)
def test_template_renders(role: roles.Role[Any, Any], payload: Any) -> None:
    renderer = TemplateRenderer(templates_dir())
    request = role.request(payload, stage="t", domain="d", item_id="x")
    messages = renderer.render(request.template, request.variables)
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "JSON" in user and "{{" not in user and "{%" not in user
    if "scene" in request.variables:
        assert BASE.persona.name in messages[0]["content"]
