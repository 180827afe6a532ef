"""The running score margin used for potential-based reward shaping (public arithmetic, no hidden data)."""

from __future__ import annotations

import numpy as np

from fruit_envs.core.rules_api import running_scores
from fruit_envs.core.spec import GameSpec


def score_margin(spec: GameSpec, state, seats: np.ndarray) -> np.ndarray:
    """`(n,)` each game's seat's running score minus the best other seat's (one-player games: its score).

    Scores come from the rules' `potential(state)` where a game declares one (a running score every
    player can work out from the table), else from `final_scores(state)`: `rules_api.running_scores`."""
    scores = np.asarray(running_scores(spec, state), dtype=np.float64)
    seats = np.asarray(seats, dtype=np.int64)
    rows = np.arange(len(seats))
    own = scores[rows, seats]
    if scores.shape[1] == 1:
        return own
    others = scores.copy()
    others[rows, seats] = -np.inf
    return own - others.max(axis=1)
