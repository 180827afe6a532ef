"""Uniformly random legal play."""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.base import argmax_legal


class RandomAgent:
    """Picks uniformly among the legal actions of each row."""

    name = "random"
    needs_observation = False  # the environments may skip observing for it (and pass None)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        mask = np.asarray(mask, dtype=bool)
        if not mask.any(axis=1).all():
            raise ValueError("every row of the mask needs at least one legal action")
        return argmax_legal(np.zeros(mask.shape), mask, rng)

    def __repr__(self) -> str:
        return "RandomAgent()"
