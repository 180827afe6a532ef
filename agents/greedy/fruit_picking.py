"""Fruit Picking greedy: sow towards an affordable card that brings a set closer, otherwise water.

Reads only the seat's observation. For every plant it simulates the sowing (`rules.sow`) to find
the target; a target whose fruit is in the market at a price the House can pay is worth how much
that card advances the player's best set (completing one is worth most), less a little for the
price; otherwise the seeds the target would draw from storage. After the target it buys by the
same measure or waters; it never pays for a two-card draw and keeps the more useful drawn card.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.base import argmax_legal
from fruit_envs.agents.greedy import own_part
from fruit_envs.games.fruit_picking import components as C
from fruit_envs.games.fruit_picking import rules as R

N_KINDS = len(C.KINDS)


def set_progress(counts: np.ndarray) -> np.ndarray:
    """`(...)` how close kind counts `(..., 5)` are to the nearest set, 1.0 = a set is complete."""
    c = np.asarray(counts, dtype=np.float64)
    top = np.sort(c, axis=-1)[..., ::-1]
    variety = (c >= 1).sum(axis=-1) / 5
    greedy = np.minimum(top[..., 0], 4) / 4
    smiley = np.minimum(top[..., :3], 2).sum(axis=-1) / 6
    family = (np.minimum(top[..., 0], 3) + np.minimum(top[..., 1], 2)) / 5
    return np.maximum.reduce([variety, greedy, smiley, family])


class FruitPickingGreedy:
    name = "greedy"
    PRICE_WEIGHT = 0.15
    WATER_WEIGHT = 0.2

    def __init__(self, config):
        self.config = config
        layout, p = R.observation_layout(config), config.num_players
        self.farm_order = layout["farm_order"]  # type of positions 1..6, one-hot each
        self.target = layout["target"]  # the turn's target position, one-hot
        self.market = layout["market"]  # card code per slot, one-hot (or empty)
        self.price = layout["price"]  # price per slot
        self.drawn = layout["drawn"]  # the two cards of a pending two-card draw, one-hot each
        self.own_seeds = own_part(layout["seeds"], p)  # seeds on own farm cards, per position
        self.own_storage = own_part(layout["storage"], p).start  # seeds in own storage
        self.own_bought = own_part(layout["bought"], p)  # own market cards, per kind

    def _card_values(self, own: np.ndarray) -> np.ndarray:
        """`(B, 5)` worth of one more card of each kind for kind counts `own (B, 5)`."""
        base = set_progress(own)
        more = own[:, None, :] + np.eye(N_KINDS, dtype=own.dtype)[None]
        gain = set_progress(more) - base[:, None]
        completes = (set_progress(more) >= 1.0) & (base[:, None] < 1.0)
        return 10.0 * completes + 3.0 * gain + 0.2 * C.MARKET_COUNT[None, :]

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return argmax_legal(self.scores(obs, mask), np.asarray(mask, dtype=bool), rng)

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(B, A)` the heuristic's worth of each action (higher is better; only legal entries count):
        `act` plays the best, ties broken at random; the search agent keeps the best few as candidates."""
        b = len(obs)
        rows = np.arange(b)
        farm = np.zeros((b, C.N_POSITIONS), dtype=np.int64)
        farm[:, 1:] = obs[:, self.farm_order].reshape(b, C.N_POSITIONS - 1, -1).argmax(axis=2) + 1
        seeds = np.rint(obs[:, self.own_seeds]).astype(np.int64)
        storage = np.rint(obs[:, self.own_storage]).astype(np.int64)
        market = obs[:, self.market].reshape(b, R.MAX_SLOTS, C.N_CODES + 1).argmax(axis=2)
        slot_type = np.where(market < C.N_CODES, 2 + market % N_KINDS, -1)  # farm type of each slot
        price = np.rint(obs[:, self.price]).astype(np.int64)
        own = np.rint(obs[:, self.own_bought]).astype(np.int64)
        values = self._card_values(own)  # (B, 5)
        slot_value = np.where(slot_type >= 2, values[rows[:, None], np.maximum(slot_type - 2, 0)], 0.0)
        slot_value = slot_value - self.PRICE_WEIGHT * price

        def target_value(target: np.ndarray, house: np.ndarray) -> np.ndarray:
            kind_type = farm[rows, target]
            water = self.WATER_WEIGHT * np.minimum(C.FARM_COUNT[kind_type], storage)
            buyable = (slot_type == kind_type[:, None]) & (price <= house[:, None]) & (kind_type[:, None] >= 2)
            buy = np.where(buyable, slot_value, -np.inf).max(axis=1)
            return np.where(target == C.HOUSE, 0.3, np.maximum(water, buy))

        scores = np.zeros(mask.shape, dtype=np.float64)
        for position in range(1, C.N_POSITIONS):
            sown, target = R.sow(seeds, np.full(b, position))
            scores[:, R.PLANT_BASE + position - 1] = target_value(target, sown[:, C.HOUSE])
        current = obs[:, self.target].argmax(axis=1)
        kind_type = farm[rows, current]
        scores[:, R.WATER] = self.WATER_WEIGHT * np.minimum(C.FARM_COUNT[kind_type], storage)
        scores[:, R.BUY_BASE : R.BUY_BASE + R.MAX_SLOTS] = slot_value
        scores[:, R.DRAW_ONE] = 1.0
        drawn = obs[:, self.drawn].reshape(b, 2, C.N_CODES).argmax(axis=2) % N_KINDS
        scores[:, R.KEEP_BASE : R.KEEP_BASE + 2] = values[rows[:, None], drawn]
        return scores

    def __repr__(self) -> str:
        return f"FruitPickingGreedy(num_players={self.config.num_players})"


def make(config) -> FruitPickingGreedy:
    return FruitPickingGreedy(config)
