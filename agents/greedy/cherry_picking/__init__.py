"""Cherry Picking greedy: take the card that adds most to my own set score right now.

Reads only the seat's observation. For each plant it computes the exact score gain of adding that
plant's card to its own pile (the rules' `score_pile`), plus a small bonus for cards that build towards
later bonuses. Committing: a fruit is worth the gain at its own plant, a ladder or wildcard the best
gain anywhere, a basket a discounted best gain (it harvests last); every card played is left on a
plant for others, so a card's own value counts against playing it. The heuristic is one kernel over the
batch, `kernels.scores`.
"""

from __future__ import annotations

from fruit_envs.agents.greedy import KernelGreedy, own_part
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
        if self.plants.stop - self.plants.start != C.N_PLANTS * C.N_CARD_TYPES or (
            self.own_pile.stop - self.own_pile.start != C.N_CARD_TYPES
        ):
            raise ValueError(f"the kernel reads {C.N_PLANTS} plants and a pile of {C.N_CARD_TYPES} columns each")
        scoring = R.score_tables(config.same_sort_bonus)  # the tables the rules score piles with
        # the kernel's first columns of the plants' one-hot cards (6 x 53) and of the own pile (53)
        self.kernel_args = (self.plants.start, self.own_pile.start, *scoring, self.BASKET_DISCOUNT, self.GIVE_AWAY)

    def rollout_constants(self, config):
        return R.advance_constants(config)[3]  # step's deck, hand size, score paying and scoring tables


def make(config) -> CherryPickingGreedy:
    return CherryPickingGreedy(config)
