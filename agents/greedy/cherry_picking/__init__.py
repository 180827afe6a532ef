"""Cherry Picking greedy: take the card that adds most to my own set score right now.

Reads only the seat's observation. For each plant it computes the exact score gain of adding that
plant's card to its own pile (the rules' `score_pile`), plus a small bonus for cards that build towards
later bonuses. Committing: a fruit is worth the gain at its own plant, a ladder or wildcard the best
gain anywhere, a basket a discounted best gain (it harvests last); every card played is left on a
plant for others, so a card's own value counts against playing it. The heuristic is one kernel over the
batch, `kernels.scores`.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy import KernelGreedy, columns, own_part
from fruit_envs.games.cherry_picking import components as C
from fruit_envs.games.cherry_picking import rules as R


class CherryPickingGreedy(KernelGreedy):
    BASKET_DISCOUNT = 0.6
    GIVE_AWAY = 0.3  # weight of the value of the card we leave on a plant

    def __init__(self, config):
        layout = R.observation_layout(config)
        super().__init__(config, layout, R.NUM_ACTIONS)
        self.plants = layout["plants"]  # the card under each plant, one-hot per plant
        self.own_pile = own_part(layout["piles"], config.num_players)  # own harvest pile's card counts
        # the kernel's column indices: (6, 53) of each plant's one-hot, (53,) of the own pile
        plant_columns = columns(self.plants, slice(0, C.N_CARD_TYPES), C.N_CARD_TYPES).astype(np.int64)
        pile_columns = np.arange(self.own_pile.start, self.own_pile.stop, dtype=np.int64)
        scoring = R.score_tables(config.same_sort_bonus)  # the tables the rules score piles with
        self.kernel_args = (plant_columns, pile_columns, *scoring, self.BASKET_DISCOUNT, self.GIVE_AWAY)

    def rollout_constants(self, config):
        return R.advance_constants(config)[3]  # step's deck, hand size, score paying and scoring tables


def make(config) -> CherryPickingGreedy:
    return CherryPickingGreedy(config)
