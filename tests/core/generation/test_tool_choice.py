"""Imported public-API tools serve workflow steps only where their own metadata says they do
the same thing to the same kind of record, and the run still grounds with them."""

from __future__ import annotations

import re
from typing import Any

from pipeline.core.generation.steps import walk_calls
from pipeline.core.generation.tool_choice import (
    chosen_workflow,
    distractors,
    equivalents,
    kind_words,
    ordinal_of,
    underivable,
    underivable_tools,
)
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.tool_pool import Tool, ToolPool

_DOMAIN = "healthcare_records"
_WORKFLOW = "triage_critical_potassium"  # ehr_search_patients, ehr_get_lab_results, flag


def _imported(tool: Tool, name: str, original: str, **update: Any) -> Tool:
    """A public API's operation shaped like `tool`, as the OpenAPI importer records one."""
    fields = {"name": name, "original_name": original, "source": "openapi", "domains": (_DOMAIN,)}
    return tool.model_copy(update={**fields, **update})


def _pool_with(inputs: Inputs, *tools: Tool) -> ToolPool:
    return ToolPool(tools={**inputs.pool.tools, **{t.name: t for t in tools}})


def test_kind_words_are_the_nouns_of_the_operation_name(inputs: Inputs) -> None:
    tool = _imported(
        inputs.pool["ehr_get_lab_results"], "acme_lab", "GET /patients/{id}/labResults"
    )
    assert kind_words(tool) == {"patient", "lab", "result"}


def test_an_imported_tool_without_derivable_semantics_is_reported(inputs: Inputs) -> None:
    reader = inputs.pool["ehr_get_lab_results"]
    empty = _imported(reader, "acme_empty", "getLabResults", returns={"type": "object"})
    verbless = _imported(reader, "acme_verbless", "labResultsPortfolio", side_effect="reversible")
    nameless = _imported(reader, "acme_nameless", "getById")
    assert underivable(empty) is not None and "result schema" in str(underivable(empty))
    assert underivable(verbless) is not None and "no verb" in str(underivable(verbless))
    assert underivable(nameless) is not None
    assert underivable(_imported(reader, "acme_labs", "getLabResults")) is None
    found = underivable_tools([empty, verbless, reader])
    assert set(found) == {"acme_empty", "acme_verbless"}, "curated tools are not judged"


def test_distractors_rotate_over_every_imported_reader_of_the_domain(inputs: Inputs) -> None:
    offered = [set(distractors(inputs.pool, _DOMAIN, k, 3)) for k in range(60)]
    union = set().union(*offered)
    readers = {
        t.name
        for t in inputs.pool.for_domain(_DOMAIN)
        if t.source != "curated"
        and t.side_effect == "none"
        and underivable(t) is None
        and not re.search(r"\{[a-z_]+\}", t.description)  # reads as an unfilled slot
    }
    assert union == readers and all(len(names) == 3 for names in offered)
    assert all(inputs.pool[n].side_effect == "none" for n in union)
    assert distractors(inputs.pool, _DOMAIN, 7, 3) == distractors(inputs.pool, _DOMAIN, 7, 3)


def test_a_step_takes_an_equivalent_that_grounds_and_never_one_that_cannot(
    inputs: Inputs,
) -> None:
    seed = inputs.seeds[_DOMAIN]
    reader = inputs.pool["ehr_get_lab_results"]
    same = _imported(reader, "acme_ehr_get_lab_results", "getPatientLabResults")
    scoped = _imported(
        reader,
        "acme_ehr_get_tenant_lab_results",
        "getTenantLabResults",
        parameters={
            "type": "object",
            "properties": {"tenantId": {"type": "string"}},
            "required": ["tenantId"],
        },
    )
    pool = _pool_with(inputs, same, scoped)
    assert {t.name for t in equivalents(pool, _DOMAIN, reader)} >= {same.name, scoped.name}
    workflow = next(w for w in seed.workflows if w.id == _WORKFLOW)
    chosen = {chosen_workflow(seed, pool, workflow, k).steps[1] for k in range(6)}
    assert same.name in chosen and reader.name in chosen, "the rotation takes both"
    assert scoped.name not in chosen, "a vendor id nothing in the task gives is never sent"
    taken = next(
        c for k in range(6) if (c := chosen_workflow(seed, pool, workflow, k)).steps[1] == same.name
    )
    walked = walk_calls(seed, pool, taken)
    assert not isinstance(walked, tuple)
    assert walked[1][-1][0].name == same.name
    assert all(
        s != "default" for calls in walked for _, plan, _, _ in calls for s in plan.sources.values()
    )
    avoided = {chosen_workflow(seed, pool, workflow, k, [reader.name]).steps[1] for k in range(6)}
    assert avoided == {reader.name}, "the hazard's own tool is never replaced"


def test_write_steps_keep_the_seed_tool(inputs: Inputs) -> None:
    writer = inputs.pool["ehr_flag_result_for_review"]
    twin = _imported(writer, "acme_flag_result", "flagResultForReview")
    assert equivalents(_pool_with(inputs, twin), _DOMAIN, writer) == []


def test_ordinals_keep_pairs_and_benign_traces_apart() -> None:
    assert ordinal_of("brokerage-0012") == 12
    assert ordinal_of("brokerage-b003") == 1003
