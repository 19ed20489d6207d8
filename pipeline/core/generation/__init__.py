"""Construction of trajectories: the coverage planner, the simulated world every trace runs in
(state, tool semantics, grounded arguments), the generator roles the LLM layer plays, and the
stages that build the benign run, plant the risk and carry both twins on from their own state.
"""

__all__ = [
    "content",
    "deviation",
    "expand",
    "feasibility",
    "grounding",
    "inject",
    "pair",
    "planner",
    "render",
    "roles",
    "run",
    "steps",
    "world",
]
