"""A benign step the agent puts to the user names the record it acts on, as a person would."""

from __future__ import annotations

from pipeline.core.generation.expand import describe_call
from pipeline.core.generation.grounding import Plan
from pipeline.core.generation.world import build_world
from pipeline.core.inputs.loading import Inputs


def test_a_step_put_to_the_user_names_its_record_and_keeps_its_values_in_brackets(
    inputs: Inputs,
) -> None:
    """Auditors: 'apply account credit: customer id Magnus Halvorsen, amount gbp 15.0'."""
    world = build_world(inputs.seeds["customer_support_crm"])
    plan = Plan(
        arguments={"customer_id": "cust_10442", "amount_gbp": 15.0, "reason_code": "goodwill"},
        sources={},
    )
    said = describe_call(inputs.pool["crm_apply_account_credit"], plan, world)
    assert said == (
        "apply account credit for Magnus Halvorsen (amount gbp 15.0, reason code goodwill)"
    )
