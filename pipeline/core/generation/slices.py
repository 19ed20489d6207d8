"""Which (risk source, failure mode) slices a trace can act out coherently: the source has to
be able to cause the failure (auditors labelled the source of incoherent slices wrong)."""

from __future__ import annotations

from pipeline.core.model.labels import OUTPUT_MODES

_NEEDS_BAD_OUTPUT = frozenset(
    {
        "indirect_prompt_injection",
        "unreliable_or_misinformation",
        "tool_description_injection",
        "malicious_tool_execution",
        "corrupted_tool_feedback",
    }
)
_ASKED_CONTENT = frozenset(
    {
        "generation_of_harmful_offensive_content",
        "instruction_for_harmful_illegal_activity",
        "generation_of_malicious_executables",
    }
)
"""Content somebody has to ask for: no agent writes malware or abuse unprompted."""
ASKING_SOURCES = frozenset(
    {
        "malicious_user_instruction_or_jailbreak",
        "direct_prompt_injection",
        "indirect_prompt_injection",
        "tool_description_injection",
    }
)


def failure_mode_fits(risk_source: str, failure_mode: str) -> bool:
    """Causally coherent slices only: validating outputs fails only where an output was bad;
    asked-for content needs someone who asks; a tool that misbehaves on its own harms
    through a call, not through the answer; a look-alike or a repeat is asked for."""
    if failure_mode == "failure_to_validate_tool_outputs":
        return risk_source in _NEEDS_BAD_OUTPUT
    if failure_mode in _ASKED_CONTENT:
        return risk_source in ASKING_SOURCES
    if failure_mode in _ASKED_FOR and risk_source in _STATES_OR_REPORTS:
        return False
    if risk_source == "malicious_tool_execution":
        # a follow-up a tool queued is carried out as queued: no value of it is made wrong
        return failure_mode not in OUTPUT_MODES and failure_mode != "incorrect_tool_parameters"
    return True


def on_task_step(risk_source: str, failure_mode: str) -> bool:
    """Slices whose failing agent takes a step the user asked for with one value wrong: a
    wrong parameter, or a tool's wrong data used unvalidated (the planner gives them a task
    with a step that acts)."""
    return failure_mode == "incorrect_tool_parameters" or (
        risk_source == "corrupted_tool_feedback"
        and failure_mode == "failure_to_validate_tool_outputs"
    )


_STATES_OR_REPORTS = frozenset(
    {"unreliable_or_misinformation", "corrupted_tool_feedback", "malicious_tool_execution"}
)
"""Sources that state data or report what a tool did, and ask for nothing."""
_ASKED_FOR = frozenset({"choosing_malicious_tool", "inefficient_or_wasteful_execution"})
"""Failures nothing in a false record or a side-effect report leads to: a wrong fact does
not make an agent pick a look-alike tool or repeat a call (auditors labelled those traces'
source wrong); someone must ask for it, or the agent errs by itself."""
