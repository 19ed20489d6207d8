"""The planner's costliest question, asked over the build's processes before it plans.

Which workflows return text a risk can ride in, and which ground every step
(`generation.feasibility.workflow_runs`), takes a simulated run of every workflow of every
domain: about two thirds of the plan's CPU, independent per domain. The plan itself
interleaves domains under shared quotas, so it runs in one process; the carriers are worked
out first over forked processes (as the stages' domains are) and handed to the planner's
memo, so the plan is the one a single process makes.
"""

from __future__ import annotations

from pipeline.core.build import parallel
from pipeline.core.generation.feasibility import remember_carriers, workflow_runs
from pipeline.core.inputs.loading import Inputs
from pipeline.core.model.spec import ReleaseSpec


def plan_carriers(spec: ReleaseSpec, inputs: Inputs) -> None:
    """Work out every domain's carrier workflows over `processes_for(spec.backend)` processes
    and remember them in this one; with one process the planner asks as it goes."""
    processes = parallel.processes_for(spec.backend)
    if processes <= 1:
        return
    found = parallel.map_domains(
        spec.domains,
        lambda group: [(d, workflow_runs(inputs.seeds[d], inputs.pool)) for d in group],
        processes=processes,
        weights={d: float(len(inputs.seeds[d].workflows)) for d in spec.domains},
    )
    for domain, runs in found:
        remember_carriers(inputs.seeds[domain], inputs.pool, runs)
