"""Juicy Fruits' search hooks: its own progress score.

The rules have no running score (`rules.potential`): reward shaping uses the points scored so far,
which leave out the stall points that islands score at the end. Search's progress adds them.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy.juicy_fruits import FRUIT_CHARGE
from fruit_envs.agents.hooks import SearchHooks
from fruit_envs.games.juicy_fruits import rules


def progress(state) -> np.ndarray:
    """Points, plus the stall points the islands would score if the game ended now (they are added at the
    end), plus the fruit in reserve at the greedy agent's worth of keeping one (0.4 points)."""
    points = rules.scores(state).astype(np.float64)
    discs = state.discs if rules.has_factory(state.config) else None
    stalls = rules.stall_points(state.island, state.ship_present, discs)
    return points + np.where(state.done[:, None], 0, stalls) + FRUIT_CHARGE * state.fruit.sum(axis=2)


SEARCH = SearchHooks(options="rollouts=32,depth=8", progress=progress, scale=10.0)
