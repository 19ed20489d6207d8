"""Construction of trajectories: the coverage planner, the generator roles it asks the LLM
layer to play, and the assembly of safe/unsafe twin pairs from their answers."""

__all__ = ["construction", "planner", "roles"]
