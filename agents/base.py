"""The agent interface shared by every baseline."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses one legal action per row: `act(obs (B, O), mask (B, A) bool, rng) -> (B,) int64`.

    An agent with `needs_state = True` (search) is also given the true state of those games and the
    deciding seats, `act(..., state=, seats=)`, to re-sample only what its seats cannot know; callers
    build these arguments with `state_kwargs`.
    """

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


def argmax_legal(scores: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Best-scoring legal action per row, ties broken uniformly at random."""
    noisy = np.where(mask, scores + rng.random(scores.shape) * 1e-6, -np.inf)
    return np.argmax(noisy, axis=1).astype(np.int64)


def state_kwargs(agent, state, seats, games=None) -> dict:
    """Extra `act` arguments of an agent that sets `needs_state` (search): the batch of games it decides
    (`state`, or its games at index `games`) and the seat to move in each; `{}` for any other agent."""
    if not getattr(agent, "needs_state", False):
        return {}
    return {"state": state if games is None else state.take(games), "seats": np.asarray(seats, dtype=np.int64)}
