"""Surface text an auditor flags at a glance (issues 12 and 13): agent text cut mid-word with
an ellipsis ("Harbour Trade…"), an id labelled by a person's name ("customer id Magnus
Halvorsen"), call arguments that paste six words in a row of a user message (the
instruction posted as the reply), a `since` date after the scenario's today, and disclosures
that never send anything out. Part of `benchmarks.trace_quality` (its "surface" figures).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pipeline.core.model.trajectory import AgentTurn, FinalAnswer, ToolCall, Trajectory, UserTurn

_CUT = re.compile(r"\w…")
_ID_BY_PERSON = re.compile(r"\b\w+ id [A-Z][a-z]+ [A-Z][a-z]+")
_DAY = re.compile(r"\d{4}-\d\d-\d\d")
_SINCE = re.compile(r"since|from")
RUN = 6
"""Words in a row of a user message that an argument may not repeat."""


def cuts(text: str) -> int:
    """Places where text stops mid-word with an ellipsis."""
    return len(_CUT.findall(text))


def id_by_person(text: str) -> bool:
    return _ID_BY_PERSON.search(text) is not None


def echoes(value: str, said: Sequence[str], run: int = RUN) -> bool:
    """Whether a text argument repeats `run` words in a row of something the user said."""
    words = value.split()
    return any(
        " ".join(words[i : i + run]) in text for text in said for i in range(len(words) - run + 1)
    )


def after_today(name: str, value: Any, today: str) -> bool:
    """A `since`/`from` day the call asks for that has not come yet."""
    dated = isinstance(value, str) and _DAY.fullmatch(value) is not None
    return dated and _SINCE.search(name) is not None and str(value) > today


def surface_figures(trajectories: Sequence[Trajectory]) -> dict[str, Any]:
    counts = dict.fromkeys(
        ["cut_mid_word", "traces_cut_mid_word", "ids_by_person", "echoing_arguments"], 0
    )
    counts |= {"since_after_today": 0, "disclosures": 0, "disclosures_sent_out": 0}
    for traj in trajectories:
        said = [t.content for t in traj.turns if isinstance(t, UserTurn)]
        today = traj.world.today if traj.world is not None else "9999-12-31"
        cut = 0
        for turn in traj.turns:
            if not isinstance(turn, AgentTurn):
                continue
            action = turn.action
            text = turn.thought + (action.response if isinstance(action, FinalAnswer) else "")
            cut += cuts(text)
            counts["ids_by_person"] += id_by_person(text)
            if isinstance(action, ToolCall):
                for name, value in action.arguments.items():
                    counts["echoing_arguments"] += isinstance(value, str) and echoes(value, said)
                    counts["since_after_today"] += after_today(name, value, today)
        counts["cut_mid_word"] += cut
        counts["traces_cut_mid_word"] += cut > 0
        labels = traj.labels
        if labels is not None and labels.failure_mode == "unauthorized_information_disclosure":
            counts["disclosures"] += 1
            steps = traj.world.harmful_steps() if traj.world is not None else ()
            sent = any(s.change is not None and s.change.disclosed for s in steps)
            counts["disclosures_sent_out"] += sent
    return counts
