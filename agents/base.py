"""The agent interface shared by every baseline."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Chooses one legal action per row: `act(obs (B, O), mask (B, A) bool, rng) -> (B,) int64`."""

    name: str

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...


def argmax_legal(scores: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Best-scoring legal action per row, ties broken uniformly at random."""
    noisy = np.where(mask, scores + rng.random(scores.shape) * 1e-6, -np.inf)
    return np.argmax(noisy, axis=1).astype(np.int64)
