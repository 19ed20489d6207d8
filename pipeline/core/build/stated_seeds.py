"""Each domain's seed with its stated requests, worked out once per build, not once per stage.

`with_stated_requests` walks every workflow of a seed through the simulated world, about a
second of CPU per domain, and each of the four construction stages needs its result. It is a
pure function of the seed, the tools it names and the code, so it is kept in memory per
`Inputs` object and on disk in the build's work folder under a digest of exactly those: a
stage in a forked process (`parallel`) or a later run reads it instead of walking again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pipeline.core.build.stamps import project_digest
from pipeline.core.build.workspace import Workspace
from pipeline.core.generation.steps import with_stated_requests
from pipeline.core.inputs.files import write_json_atomic
from pipeline.core.inputs.loading import Inputs
from pipeline.core.inputs.seeds import Seed

_memo: dict[tuple[int, str, Path], tuple[Inputs, Seed]] = {}
"""By (id of the Inputs, domain, work folder); each entry holds its Inputs, so a reused id
cannot match, and each work folder gets its own file."""


def stated_seed(inputs: Inputs, domain: str, ws: Workspace) -> Seed:
    """`with_stated_requests` of the domain's seed: from memory, from the work folder when its
    digest matches, else worked out and written there."""
    found = _memo.get((id(inputs), domain, ws.root))
    if found is not None and found[0] is inputs:
        return found[1]
    seed = inputs.seeds[domain]
    key = stated_key(inputs, domain)
    path = ws.root / "stated" / f"{domain}.json"
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        stated = Seed.model_validate(saved["seed"]) if saved.get("key") == key else None
    except (OSError, ValueError, KeyError, TypeError):
        stated = None
    if stated is None:
        stated = with_stated_requests(seed, inputs.pool)
        write_json_atomic(path, {"key": key, "seed": stated.model_dump(mode="json")})
    _memo[(id(inputs), domain, ws.root)] = (inputs, stated)
    return stated


def stated_key(inputs: Inputs, domain: str) -> str:
    """What the stated seed depends on: the seed, every tool it or a workflow names, and the
    project's code and versioned inputs."""
    seed = inputs.seeds[domain]
    names = sorted({*seed.tools, *(step for w in seed.workflows for step in w.steps)})
    tools = [inputs.pool[name].model_dump(mode="json") for name in names if name in inputs.pool]
    blob = json.dumps([project_digest(), seed.model_dump(mode="json"), tools], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()
