"""Construction: the simulated world, grounded arguments, and the three building stages.

`world` executes tools against an environment state built from a seed; `grounding` plans
every call's arguments from the task; `expand`, `inject` and `pair` build the benign run, the
planted risk and the two twins, each re-executed from its own state.
"""
