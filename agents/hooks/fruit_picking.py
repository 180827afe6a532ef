"""Fruit Picking's search hooks: its own progress score, and the canonical order of the hidden stack.

The rules have no running score (`rules.potential`): reward shaping uses the final scores (market
fruits), which barely move before a set is completed. Search's progress weighs set progress first.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy.fruit_picking import set_progress
from fruit_envs.agents.hooks import SearchHooks, sort_within
from fruit_envs.games.fruit_picking import rules


def progress(state) -> np.ndarray:
    """Completing a set decides first, then market fruits: set progress (the greedy agent's measure)
    weighted far above the fruits."""
    counts = rules.kind_counts(state)
    return 10.0 * rules.completed(state) + 4.0 * set_progress(counts) + 0.1 * rules.market_fruits(state)


def canonical(state, seats: np.ndarray):
    """The stack cards and pending-draw cards unknown to the seat, put in card order in their places
    (`redeal_hidden` permutes them where they lie)."""
    s = state.copy()
    cards = np.concatenate([s.stack, s.drawn], axis=1)
    knowers = np.concatenate([s.stack_knowers, s.drawn_knowers], axis=1).astype(np.int64)
    unknown = (cards >= 0) & (((knowers >> seats[:, None]) & 1) == 0)
    cards = sort_within(cards, unknown)
    s.stack, s.drawn = cards[:, : s.stack.shape[1]].copy(), cards[:, s.stack.shape[1] :].copy()
    return s


SEARCH = SearchHooks(
    options="rollouts=32,depth=12",
    guided="policy=ppo-baseline,prior=ppo-baseline,value=ppo-baseline",  # network rollouts and value head
    progress=progress,
    scale=2.0,
    canonical=canonical,
)
