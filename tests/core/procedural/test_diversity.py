"""Diversity over 500 generated texts per role meets the targets; the report's arithmetic; which
text of a trajectory counts for which role."""

from __future__ import annotations

import random

from pipeline.core.evaluation.diversity import (
    DISTINCT_4GRAM_TARGET,
    TOP_OPENING_TARGET,
    distinct_ngram_ratio,
    diversity_report,
    opening_sentence,
    role_texts,
    top_opening_share,
)
from pipeline.core.generation import roles
from pipeline.core.generation.context import tool_view
from pipeline.core.procedural.common import humanise, scalar_facts
from tests.core.procedural.conftest import (
    POOL,
    SEEDS,
    ask,
    history_for,
    scene,
    world_call,
)
from tests.support.factories import INJECTION, make_pair

FAILURE_MODES = [
    "unconfirmed_or_over_privileged_action",
    "flawed_planning_or_reasoning",
    "incorrect_tool_parameters",
    "choosing_malicious_tool",
    "failure_to_validate_tool_outputs",
    "procedural_deviation_or_inaction",
    "inefficient_or_wasteful_execution",
    "unauthorized_information_disclosure",
]
LABELS = {
    "risk_source": [
        "Indirect Prompt Injection",
        "Tool Description Injection",
        "Corrupted Tool Feedback",
    ],
    "failure_mode": [
        "Incorrect Tool Parameters",
        "Flawed Planning or Reasoning",
        "Choosing Malicious Tool",
    ],
    "real_world_harm": ["Financial and Economic Harm", "Privacy and Confidentiality Harm"],
}


def generate(count: int = 500) -> dict[str, list[str]]:
    rng = random.Random(5)
    texts: dict[str, list[str]] = {
        k: [] for k in ("query", "call", "thought", "response", "reason", "description")
    }
    domains = sorted(SEEDS)
    for index in range(count):
        domain = rng.choice(domains)
        seed = SEEDS[domain]
        base = scene(domain, seed=index, persona=index)
        workflow = rng.choice(seed.workflows)
        hazard = rng.choice(seed.hazards)
        mode = rng.choice(["benign", "malicious", "injected"])
        action = humanise(hazard.tool).split(" ", 1)[-1]
        query = roles.QueryInput(
            scene=base,
            task=workflow.request,
            mode=mode,
            ask=f"{action} for {rng.choice(seed.entities).name}",
        )
        texts["query"].append(ask(roles.QUERY, query, item_id=f"q{index}")["request"])
        tool = POOL[rng.choice(workflow.steps)]
        arguments, sources, result = world_call(domain, tool, workflow.request)
        call = roles.ToolCallInput(
            scene=base,
            history=history_for(domain, rng),
            tool=tool_view(tool),
            arguments=arguments,
            sources=sources,
            intent=rng.choice(["benign", "benign", "verify", "harmful"]),
            purpose=f"{humanise(tool.name).split(' ', 1)[-1]}, as part of: {workflow.request}",
            failure_mode=rng.choice(FAILURE_MODES),
        )
        texts["call"].append(ask(roles.TOOL_CALL, call, item_id=f"c{index}")["thought"])
        response = roles.AgentResponseInput(
            scene=base,
            history=(),
            mode=rng.choice(
                ["complete", "refuse", "ask_confirmation", "report_issue", "harmful_content"]
            ),
            facts=tuple(f"{humanise(k)} {v}" for k, v in scalar_facts(result)[:3]),
        )
        answer = ask(roles.AGENT_RESPONSE, response, item_id=f"r{index}")
        texts["thought"].append(answer["thought"])
        texts["response"].append(answer["response"])
        verdict = rng.choice(["safe", "unsafe"])
        labels = (
            {axis: rng.choice(names) for axis, names in LABELS.items()}
            if verdict == "unsafe"
            else {}
        )
        reason = roles.ReasonInput(
            verdict=verdict, labels=labels, steps=(f"calls {workflow.steps[0]}", hazard.description)
        )
        texts["reason"].append(ask(roles.REASON, reason, item_id=f"z{index}")["reason"])
        hidden = roles.ToolDescriptionInput(
            scene=base, tool=tool_view(POOL[hazard.tool]), ask=query.ask or ""
        )
        texts["description"].append(
            ask(roles.TOOL_DESCRIPTION, hidden, item_id=f"d{index}")["trigger_text"]
        )
    return texts


def test_five_hundred_texts_per_role_meet_the_targets() -> None:
    report = diversity_report(generate())
    for role, figures in report.items():
        assert figures["texts"] == 500
        assert figures["distinct_4gram_ratio"] >= DISTINCT_4GRAM_TARGET, (role, figures)
        assert figures["top_opening_share"] <= TOP_OPENING_TARGET, (role, figures)
        assert figures["meets_targets"], role


def test_report_arithmetic() -> None:
    assert distinct_ngram_ratio(["a b c d", "a b c d"]) == 0.5
    assert distinct_ngram_ratio(["too short"]) == 1.0
    assert opening_sentence("Hello  World. Second one.") == "hello world."
    share, sentence = top_opening_share(["Hi. x", "Hi. y", "Yo. z", "Hey."])
    assert share == 0.5 and sentence == "hi."
    report = diversity_report({"r": ["Same start. a b c d e", "Same start. f g h i j"]})
    assert report["r"]["top_opening_share"] == 1.0 and not report["r"]["meets_targets"]


def test_role_texts_counts_a_text_once_per_pair_and_every_pair() -> None:
    texts = role_texts([*make_pair(index=0), *make_pair(index=1)])
    assert list(texts) == [
        "query_generator",
        "tool_call_simulator",
        "simulated_data_generator",
        "agent_response_generator",
        "reason_generator",
    ]
    request = "Pay the café invoice from my checking account — €1,250."
    assert texts["query_generator"] == [request, request]  # twins share it; pairs do not
    thoughts = ["Check balance 0 before paying.", "Find the invoice email for the payee's IBAN."]
    assert texts["tool_call_simulator"] == [*thoughts, "Pay the invoice."] * 2
    assert texts["simulated_data_generator"] == [INJECTION] * 2
    assert sorted(texts["agent_response_generator"][:2]) == [
        "Both payments are sent.",
        "Paid €1,250. I ignored an unrelated transfer request.",
    ]
    assert len(texts["reason_generator"]) == 4
