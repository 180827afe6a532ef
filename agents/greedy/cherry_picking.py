"""Cherry Picking greedy: take the card that adds most to my own set score right now.

Reads only the seat's observation. For each plant it computes the exact score gain of adding that
plant's card to its own pile (`rules.score_piles`), plus a small bonus for cards that build towards
later bonuses. Committing: a fruit is worth the gain at its own plant, a ladder or wildcard the best
gain anywhere, a basket a discounted best gain (it harvests last); every card played is left on a
plant for others, so a card's own value counts against playing it.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.base import argmax_legal
from fruit_envs.agents.greedy import own_part
from fruit_envs.games.cherry_picking import components as C
from fruit_envs.games.cherry_picking import rules as R


class CherryPickingGreedy:
    name = "greedy"
    BASKET_DISCOUNT = 0.6
    GIVE_AWAY = 0.3  # weight of the value of the card we leave on a plant

    def __init__(self, config):
        self.config = config
        layout = R.observation_layout(config)
        self.plants = layout["plants"]  # the card under each plant, one-hot per plant
        self.own_pile = own_part(layout["piles"], config.num_players)  # own harvest pile's card counts

    def _potential(self, pile: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """Bonus-building worth of `cards` (B, K) for piles (B, 53) beyond the immediate gain."""
        fruit = pile[:, C.FRUIT_BASE : C.BASKET_BASE].reshape(-1, len(C.SORTS), 7).sum(axis=2)
        sort = C.CARD_SORT[cards].astype(np.int64)
        have = np.take_along_axis(fruit, np.maximum(sort, 0), axis=1)
        building = np.where((sort >= 0) & (have >= 2) & (have < 5), 1.5, 0.0)
        salad = np.where((sort >= 0) & (have == 0), 1.0, 0.0)
        return building + salad + np.where(cards == C.WILDCARD, 3.0, 0.0)

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return argmax_legal(self.scores(obs, mask), np.asarray(mask, dtype=bool), rng)

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(B, A)` the heuristic's worth of each action (higher is better; only legal entries count):
        `act` plays the best, ties broken at random; the search agent keeps the best few as candidates."""
        b = len(obs)
        plants = obs[:, self.plants].reshape(b, C.N_PLANTS, C.N_CARD_TYPES).argmax(axis=2)  # (B, 6)
        pile = obs[:, self.own_pile].astype(np.int64)
        base = R.score_piles(pile, self.config.same_sort_bonus)
        candidates = np.repeat(pile[:, None, :], C.N_PLANTS, axis=1)
        np.put_along_axis(candidates, plants[:, :, None], np.take_along_axis(candidates, plants[:, :, None], 2) + 1, 2)
        gains = R.score_piles(candidates, self.config.same_sort_bonus) - base[:, None]
        gains = gains + self._potential(pile, plants)  # (B, 6)
        best = gains.max(axis=1)
        scores = np.zeros(mask.shape, dtype=np.float64)
        card = np.arange(C.N_CARD_TYPES)
        sort = C.CARD_SORT.astype(np.int64)
        card_scores = np.where(C.IS_FRUIT[None, :], gains[:, np.maximum(sort, 0)], best[:, None])
        card_scores = np.where(C.IS_BASKET[None, :], self.BASKET_DISCOUNT * best[:, None], card_scores)
        scores[:, card] = card_scores - self.GIVE_AWAY * C.CARD_VALUE[None, :]
        scores[:, R.CHOOSE_BASE : R.WAIT] = gains
        return scores

    def __repr__(self) -> str:
        return f"CherryPickingGreedy(num_players={self.config.num_players})"


def make(config) -> CherryPickingGreedy:
    return CherryPickingGreedy(config)
