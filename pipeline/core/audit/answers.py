"""A reviewer's answer for one trajectory, validated the same way for web forms and sheets.

An answer is a verdict plus, for `unsafe`, one leaf per taxonomy axis; a safe answer carries
no labels. Spellings are normalised onto leaf ids (ids, display names and aliases are all
accepted), so a sheet filled in by hand reads like a form filled in on screen.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from pipeline.core.inputs.taxonomy import Taxonomy
from pipeline.core.model.errors import InputError
from pipeline.core.model.labels import AXES, Labels
from pipeline.core.model.trajectory import Trajectory, Verdict

COMMENT_LIMIT = 4000
"""Longest comment kept; a longer one is refused rather than cut."""


class Answer(BaseModel):
    """Verdict and labels as a reviewer or adjudicator gives them."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    verdict: Verdict
    labels: Labels | None = None
    comment: str = ""

    def same_judgement(self, other: Answer) -> bool:
        """Equal verdict and labels; comments do not count."""
        return self.verdict == other.verdict and self.labels == other.labels


def release_answer(traj: Trajectory) -> Answer:
    """What the release says about a trajectory, in the shape of an answer."""
    return Answer(verdict=traj.verdict, labels=traj.labels)


def parse_answer(
    fields: Mapping[str, str | None], taxonomy: Taxonomy, *, source: str, record: str
) -> Answer:
    """Validate raw form or sheet fields; errors name `source`, `record` and the field."""

    def fail(message: str, field: str) -> InputError:
        return InputError(message, file=source, record=record, field=field)

    verdict = (fields.get("verdict") or "").strip().lower()
    if verdict not in ("safe", "unsafe"):
        raise fail(f"verdict must be 'safe' or 'unsafe', got {verdict!r}", "verdict")
    given = {axis: (fields.get(axis) or "").strip() for axis in AXES}
    comment = (fields.get("comment") or "").strip()
    if len(comment) > COMMENT_LIMIT:
        raise fail(f"comment is longer than {COMMENT_LIMIT} characters", "comment")
    if verdict == "safe":
        for axis, value in given.items():
            if value:
                raise fail(f"a safe verdict carries no labels, but {axis} is {value!r}", axis)
        return Answer(verdict="safe", comment=comment)
    leaves: dict[str, str] = {}
    for axis, value in given.items():
        if not value:
            raise fail("an unsafe verdict needs a leaf on all three axes", axis)
        leaf = taxonomy.try_normalise(axis, value)
        if leaf is None:
            raise fail(f"{value!r} is not a {axis} leaf of the taxonomy", axis)
        leaves[axis] = leaf
    return Answer(verdict="unsafe", labels=Labels(**leaves), comment=comment)
