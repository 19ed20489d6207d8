"""The stated seed is worked out once and kept in the work folder, under a digest of what
shapes it: an edited seed is worked out again."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from pipeline.core.build.stated_seeds import stated_key, stated_seed
from pipeline.core.build.workspace import Workspace
from pipeline.core.generation.steps import with_stated_requests
from pipeline.core.inputs.loading import Inputs

DOMAIN = "smart_home"


def test_the_saved_seed_is_read_back_until_the_seed_changes(inputs: Inputs, tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "build")
    first = stated_seed(inputs, DOMAIN, ws)
    assert first == with_stated_requests(inputs.seeds[DOMAIN], inputs.pool)
    saved = ws.root / "stated" / f"{DOMAIN}.json"
    assert json.loads(saved.read_text())["key"] == stated_key(inputs, DOMAIN)

    # Another process (a new Inputs object, same content) reads the file, not the seed.
    marked = json.loads(saved.read_text())
    marked["seed"]["name"] = "read from the work folder"
    saved.write_text(json.dumps(marked))
    same = dataclasses.replace(inputs)
    assert stated_seed(same, DOMAIN, ws).name == "read from the work folder"

    # An edited workflow request changes the key: worked out again from the new seed.
    seed = inputs.seeds[DOMAIN]
    workflow = seed.workflows[0]
    edited = seed.model_copy(
        update={
            "workflows": (
                workflow.model_copy(update={"request": "Please check the hallway lights now."}),
                *seed.workflows[1:],
            )
        }
    )
    changed = dataclasses.replace(inputs, seeds={**inputs.seeds, DOMAIN: edited})
    assert stated_key(changed, DOMAIN) != stated_key(inputs, DOMAIN)
    again = stated_seed(changed, DOMAIN, ws)
    assert again.name == seed.name
    assert again.workflows[0].request.startswith("Please check the hallway lights now.")
    assert json.loads(saved.read_text())["key"] == stated_key(changed, DOMAIN)
