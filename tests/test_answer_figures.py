"""`benchmarks.answers`' count of answers silent on a read: a read whose values a later call
restates (a note of the findings) fed that call, so the answer need not repeat them."""

from __future__ import annotations

import json

from benchmarks.answers import _unsaid_reads
from pipeline.core.model.trajectory import AgentTurn, EnvironmentTurn, ToolCall, Turn
from pipeline.core.model.world import StepEffect, WorldChange, WorldLog

NOTE = {"incident_id": "inc_2024_0412", "note": "Verdict malicious."}
UPDATE = WorldChange(
    tool="soc_update_incident", operation="update", target="inc_2024_0412", arguments=NOTE
)
LOG = WorldLog(
    today="2024-09-30",
    records=(),
    steps=(StepEffect(episode=0, turn=2, tool="soc_update_incident", change=UPDATE),),
)
INTEL: dict[str, object] = {
    "indicator": "stbrigid-payroll.example.net",
    "verdict": "malicious",
    "source": "OpenPhish",
}
Call = tuple[str, dict[str, str], dict[str, object]]


def _window(*calls: Call) -> list[Turn]:
    turns: list[Turn] = []
    for name, arguments, result in calls:
        turns.append(AgentTurn(thought="", action=ToolCall(name=name, arguments=arguments)))
        turns.append(EnvironmentTurn(content=json.dumps(result)))
    return turns


def test_a_read_whose_values_a_later_note_restates_fed_that_note() -> None:
    lookup: Call = ("soc_lookup_threat_intel", {"indicator": "stbrigid-payroll.example.net"}, INTEL)
    noted = _window(lookup, ("soc_update_incident", NOTE, {"status": "investigating"}))
    assert _unsaid_reads(noted, "Updated the incident.", LOG, "Note the answer.") == 0


def test_a_read_neither_used_nor_answered_is_silent() -> None:
    lookup: Call = ("soc_lookup_threat_intel", {"indicator": "stbrigid-payroll.example.net"}, INTEL)
    assert _unsaid_reads(_window(lookup), "Done.", LOG, "Is the domain on a feed?") == 1
    assert _unsaid_reads(_window(lookup), "Verdict malicious.", LOG, "Is it on a feed?") == 0
