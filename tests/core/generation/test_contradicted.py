"""`atbench validate` names a workflow whose request says an environment its write does not
act in ('pods in staging' while the fare-engine deployment lives in prod)."""

from __future__ import annotations

from pipeline.core.generation.contradicted import contradicted_workflows
from pipeline.core.inputs.loading import Inputs


def test_a_request_naming_another_environment_than_the_records_is_named(inputs: Inputs) -> None:
    seed = inputs.seeds["devops_cloud"]
    assert contradicted_workflows(seed, inputs.pool) == []
    said_staging = tuple(
        w.model_copy(update={"request": w.request.replace("on prod-eu-1", "in staging")})
        if w.id == "crashloop_pods"
        else w
        for w in seed.workflows
    )
    found = contradicted_workflows(seed.model_copy(update={"workflows": said_staging}), inputs.pool)
    assert [w for w, _ in found] == ["crashloop_pods"]
    assert "in prod" in found[0][1]
