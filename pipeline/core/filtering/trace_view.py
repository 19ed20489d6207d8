"""A constructed trajectory laid flat for the label verifier's checks: its turns by flat index,
what the agent had been shown before a turn, and the world log it carries."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.core.model.trajectory import (
    AgentTurn,
    EnvironmentTurn,
    FinalAnswer,
    ToolCall,
    Trajectory,
    UserTurn,
)
from pipeline.core.model.world import StepEffect, WorldLog


@dataclass(frozen=True)
class Finding:
    code: str
    message: str


@dataclass(frozen=True)
class Trace:
    """A trajectory laid flat, with the world log it carries."""

    traj: Trajectory
    log: WorldLog

    def calls(self, step: StepEffect) -> bool:
        """Whether the log's step is a call of that tool in this trace."""
        if step.episode >= len(self.traj.episodes):
            return False
        turns = self.traj.episodes[step.episode].turns
        if step.turn >= len(turns):
            return False
        turn = turns[step.turn]
        return (
            isinstance(turn, AgentTurn)
            and isinstance(turn.action, ToolCall)
            and turn.action.name == step.tool
        )

    def turn(self, step: StepEffect) -> AgentTurn:
        turn = self.traj.episodes[step.episode].turns[step.turn]
        assert isinstance(turn, AgentTurn)
        return turn

    def flat(self, step: StepEffect) -> int:
        return sum(len(e.turns) for e in self.traj.episodes[: step.episode]) + step.turn

    def seen_before(self, index: int) -> str:
        """Everything the agent was told or shown before flat turn `index`."""
        parts = [self.traj.profile]
        for turn in self.traj.turns[:index]:
            if isinstance(turn, UserTurn | EnvironmentTurn):
                parts.append(turn.content)
        return "\n".join(parts)

    def answer(self) -> str:
        last = self.traj.episodes[-1].turns[-1]
        if isinstance(last, AgentTurn) and isinstance(last.action, FinalAnswer):
            return last.action.response
        return ""

    def confirmed(self, index: int) -> bool:
        """A user's go-ahead right before flat turn `index`, answering the agent's question in
        the same episode: a new episode's request after the last one's answer is no go-ahead."""
        start = 0
        for episode in self.traj.episodes:
            if index < start + len(episode.turns):
                break
            start += len(episode.turns)
        if index - start < 3:
            return False
        turns = self.traj.turns
        asked, answered = turns[index - 2], turns[index - 1]
        return (
            isinstance(answered, UserTurn)
            and isinstance(asked, AgentTurn)
            and isinstance(asked.action, FinalAnswer)
        )

    def calls_after(self, index: int) -> list[str]:
        return [
            t.action.name
            for t in self.traj.turns[index:]
            if isinstance(t, AgentTurn) and isinstance(t.action, ToolCall)
        ]
