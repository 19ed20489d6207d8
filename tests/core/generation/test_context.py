"""What a model's prompt says about the world: the entities the trajectory's task names."""

from __future__ import annotations

from pipeline.core.generation.context import scene_of
from pipeline.core.generation.planner import Blueprint
from pipeline.core.generation.roles import QUERY, QueryInput
from pipeline.core.inputs.paths import templates_dir
from pipeline.core.llm.templates import TemplateRenderer
from tests.support.inputs import repository_inputs


def test_the_system_prompt_lists_the_entities_the_task_names_and_no_others() -> None:
    seed = repository_inputs().seeds["devops_cloud"]
    workflow = next(w for w in seed.workflows if "ci-deploy-bot" in w.request)
    blueprint = Blueprint(
        id="devops_cloud-0000",
        domain="devops_cloud",
        kind="benign",
        persona=seed.personas[0].name,
        workflows=(workflow.id,),
        tools=(),
        seed=1,
    )
    scene = scene_of(seed, blueprint)
    assert "role_ci_deploy_bot" in scene.focus
    assert set(scene.focus) < {e.id for e in seed.entities}
    request = QUERY.request(
        QueryInput(scene=scene, task=workflow.request, mode="benign", today="2024-10-03"),
        stage="test",
        domain="devops_cloud",
        item_id="q",
    )
    system = TemplateRenderer(templates_dir()).render(request.template, request.variables)[0]
    listed = [e.id for e in seed.entities if f"- {e.id} (" in system["content"]]
    assert listed == [e.id for e in seed.entities if e.id in scene.focus]
    # Every entity of the domain would be ~37k characters: past a small model's context.
    assert len(system["content"]) < 6000
