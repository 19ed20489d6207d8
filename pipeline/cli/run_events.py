"""What a build run's events say: the published release, or the one paragraph of why not.

The same for every way a run is made (in this process, `execute_job`, or submitted to an
instance and read back from its event log), so each ends with the same closing lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from pipeline.core.build.config import BuildConfig
from pipeline.core.inputs.files import read_jsonl
from pipeline.core.model.errors import AtbenchError
from pipeline.core.model.rejection import Rejection, summarise_rejections

if TYPE_CHECKING:
    import dagster as dg


def published(events: Sequence[dg.DagsterEvent]) -> dict[str, Any]:
    """The `release` materialisation's metadata: version, path and counts."""
    import dagster as dg

    materialization = next(
        e.materialization
        for e in events
        if e.is_step_materialization and e.asset_key == dg.AssetKey("release")
    )
    return {key: value.value for key, value in materialization.metadata.items()}


def raise_on_failed_gate(events: Sequence[dg.DagsterEvent], config: BuildConfig) -> None:
    """A failed gate fails the run too: name the gate, and what emptied the candidate, before
    the generic run failure."""
    import dagster as dg

    for event in events:
        if event.event_type != dg.DagsterEventType.ASSET_CHECK_EVALUATION:
            continue
        check = cast("dg.AssetCheckEvaluation", event.event_specific_data)
        if not check.passed:
            ws = config.workspace()
            rejected = read_jsonl(ws.candidate_rejections_file, Rejection)
            raise AtbenchError(
                f"release gate {check.check_name!r} failed: {check.description}. "
                f"{summarise_rejections(rejected)}. The previous release (if any) is "
                f"untouched; every rejection is in {ws.candidate_rejections_file.parent}"
            )


def raise_on_failure(success: bool, events: Sequence[dg.DagsterEvent], what: str) -> None:
    if success:
        return
    for event in events:
        if event.is_step_failure and event.step_failure_data.error is not None:
            error = _error_text(event.step_failure_data.error)
            raise AtbenchError(f"{what} failed in stage {stage_of(event.step_key or '')}: {error}")
    raise AtbenchError(f"{what} failed; see the run in the Dagster UI")


def stage_of(step_key: str) -> str:
    """The stage a step ran, as the user knows it: `release`, or `skeletons (ecommerce)` for
    the construction step `constructed.branch.skeletons[ecommerce]`."""
    op, _, branch = step_key.rpartition(".")[2].partition("[")
    return f"{op} ({branch.rstrip(']')})" if branch else op


def _error_text(error: Any) -> str:
    """A user error's message whole (it is written to be read); anything else, a bug, by its
    last line and where its traceback is."""
    cause = error.cause or error
    text = str(cause.message).strip()
    head, _, rest = text.partition(": ")
    if cause.cls_name in _user_errors():
        return rest if head.endswith(cause.cls_name) else text
    return (
        f"{text.splitlines()[-1]} ({cause.cls_name}; the traceback is in the run's event log: "
        "`make ui`, or rerun with --verbose)"
    )


def _user_errors() -> set[str]:
    found, todo = set(), [AtbenchError]
    while todo:
        cls = todo.pop()
        found.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return found
