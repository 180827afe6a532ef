"""Fruit Picking greedy: sow towards an affordable card that brings a set closer, otherwise water.

Reads only the seat's observation. For every plant it simulates the sowing (the rules' `sow_one`) to
find the target; a target whose fruit is in the market at a price the House can pay is worth how much
that card advances the player's best set (completing one is worth most), less a little for the
price; otherwise the seeds the target would draw from storage. After the target it buys by the
same measure or waters; it never pays for a two-card draw and keeps the more useful drawn card.
The heuristic itself is `kernels.py` (compiled, or its interpreted twin per `core.lazy`).
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy import KernelGreedy, own_part
from fruit_envs.core.lazy import kernels_of
from fruit_envs.games.fruit_picking import components as C
from fruit_envs.games.fruit_picking import rules as R

_kernels = kernels_of("fruit_envs.agents.greedy.fruit_picking")


def set_progress(counts: np.ndarray) -> np.ndarray:
    """`(...)` how close kind counts `(..., 5)` are to the nearest set, 1.0 = a set is complete."""
    c = np.asarray(counts, dtype=np.float64)
    flat = np.ascontiguousarray(c.reshape(-1, c.shape[-1]))
    out = np.empty(len(flat), dtype=np.float64)
    _kernels().set_progress(flat, out)
    progress = out.reshape(c.shape[:-1])
    return progress[()] if progress.ndim == 0 else progress


def _indices(block: slice, *shape: int) -> np.ndarray:
    """The observation columns of `block` as int64 indices, in rows of `shape`."""
    return np.arange(block.start, block.stop, dtype=np.int64).reshape(shape or (-1,))


class FruitPickingGreedy(KernelGreedy):
    PRICE_WEIGHT = 0.15
    WATER_WEIGHT = 0.2

    def __init__(self, config):
        layout, p = R.observation_layout(config), config.num_players
        super().__init__(config, layout, R.NUM_ACTIONS)
        self.farm_order = layout["farm_order"]  # type of positions 1..6, one-hot each
        self.target = layout["target"]  # the turn's target position, one-hot
        self.market = layout["market"]  # card code per slot, one-hot (or empty)
        self.price = layout["price"]  # price per slot
        self.drawn = layout["drawn"]  # the two cards of a pending two-card draw, one-hot each
        self.own_seeds = own_part(layout["seeds"], p)  # seeds on own farm cards, per position
        self.own_storage = own_part(layout["storage"], p).start  # seeds in own storage
        self.own_bought = own_part(layout["bought"], p)  # own market cards, per kind
        self.kernel_args = (
            _indices(self.farm_order, C.N_POSITIONS - 1, -1),
            _indices(self.target),
            _indices(self.market, R.MAX_SLOTS, C.N_CODES + 1),
            _indices(self.price),
            _indices(self.drawn, 2, C.N_CODES),
            _indices(self.own_seeds),
            self.own_storage,
            _indices(self.own_bought),
            self.PRICE_WEIGHT,
            self.WATER_WEIGHT,
        )

    def rollout_constants(self, config):
        return R.advance_constants(config)[1:]  # step's, the mask's and observe's constants


def make(config) -> FruitPickingGreedy:
    return FruitPickingGreedy(config)
