"""Cherry Picking greedy's heuristic as a compiled kernel over the batch: the one source of its scores
(`CherryPickingGreedy.scores` calls it, interpreted or compiled as `core.lazy` chooses). Piles are scored by
the rules' own scoring (`pile_parts`, `pile_bonuses`, `score_plus`: the pile counted once, one pass over the
wildcards' assignments pricing a fruit of every sort), so a gain is exactly what the rules would add to the pile.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy.kernels import choose, keep_rows
from fruit_envs.core.kernels import inner, njit
from fruit_envs.games.cherry_picking import components as C
from fruit_envs.games.cherry_picking import rules as R
from fruit_envs.games.cherry_picking.kernels import legal_mask, observe, pile_bonuses, pile_parts, score_plus, step

N_CARDS = C.N_CARD_TYPES
N_PLANTS = C.N_PLANTS
N_SORTS = len(C.SORTS)
N_VALUES = len(C.FRUIT_VALUES)
FRUIT_BASE = C.FRUIT_BASE
WILDCARD = C.WILDCARD
CHOOSE_BASE = R.CHOOSE_BASE
CARD_SORT = C.CARD_SORT.astype(np.int64)
CARD_VALUE = C.CARD_VALUE.astype(np.int64)
IS_FRUIT, IS_BASKET = C.IS_FRUIT, C.IS_BASKET
BUILDING, SALAD, WILD = 1.5, 1.0, 3.0  # worth of a fruit towards a same-sort bonus, of a new sort, of a wildcard


@inner
def potential(fruit, card) -> float:
    """Bonus-building worth of `card` for a pile holding `fruit` (fruits per sort), beyond the immediate gain:
    a third to fifth fruit of a sort, a sort the pile lacks (salad), a wildcard."""
    sort = CARD_SORT[card]
    have = fruit[max(sort, 0)]
    building = BUILDING if sort >= 0 and 2 <= have < 5 else 0.0
    salad = SALAD if sort >= 0 and have == 0 else 0.0
    return building + salad + (WILD if card == WILDCARD else 0.0)


@njit
def scores(obs, plants_at, pile_at, table, assign, n_assign, basket_discount, give_away, out):
    """Fill `out` (B, A) with each action's worth for the observations `obs` (B, O): the plants' one-hot cards
    are the 6 x 53 columns from `plants_at`, the observer's harvest pile the 53 from `pile_at`; `table, assign,
    n_assign` the rules' scoring tables. Harvesting at a plant is worth the score gain of its card plus its
    potential; committing a fruit the gain at its plant, a ladder or wildcard the best gain, a basket
    `basket_discount` of it, each less `give_away` times the card's own value (it is left for others)."""
    pile = np.empty(N_CARDS, dtype=np.int8)  # the state's dtype: `pile_parts` compiles once, as `step` uses it
    fruit = np.empty(N_SORTS, dtype=np.int64)
    gains = np.empty(N_PLANTS, dtype=np.float64)
    more = np.empty(N_SORTS, dtype=np.int64)  # the bonuses with one more fruit of each sort
    for b in range(len(obs)):
        row = obs[b]
        for c in range(N_CARDS):
            pile[c] = np.int64(row[pile_at + c])
        total, ladders, wild = pile_parts(pile, fruit)  # `fruit`: the pile's fruit per sort
        bonus = pile_bonuses(fruit, wild, table, assign, n_assign, more)
        base = score_plus(total, ladders, bonus, more, -1)
        for k in range(N_PLANTS):
            # the plant's card: its one-hot block's 1 (`argmax`). A played fruit goes to its own sort's plant, so
            # that sort's columns are read first; then the block from its start, the first of its largest entries
            at = plants_at + k * N_CARDS
            card = -1
            for c in range(FRUIT_BASE + k * N_VALUES, FRUIT_BASE + (k + 1) * N_VALUES):
                if row[at + c] == 1.0:
                    card = c
                    break
            if card < 0:
                card, top = 0, row[at]
                for c in range(1, N_CARDS):
                    if top >= 1.0:
                        break
                    entry = row[at + c]
                    if entry > top:
                        card, top = c, entry
            gain = score_plus(total, ladders, bonus, more, np.int64(card)) - base
            gains[k] = np.float64(gain) + potential(fruit, np.int64(card))
        best = gains[0]
        for k in range(1, N_PLANTS):
            best = max(best, gains[k])
        for c in range(N_CARDS):
            if IS_BASKET[c]:
                worth = basket_discount * best
            elif IS_FRUIT[c]:
                worth = gains[CARD_SORT[c]]
            else:
                worth = best
            out[b, c] = worth - give_away * CARD_VALUE[c]
        for k in range(N_PLANTS):
            out[b, CHOOSE_BASE + k] = gains[k]


heuristic = scores  # `rollout` takes the state's `scores` array under that name


@njit
def rollout(
    steps, greedy, rng, keys, done, to_move, step_count, phase, set_index, hands, piles, plants, played, aside,
    set_scores, scores, deck, hand, pay_scores, table, assign, n_assign, plants_at, pile_at, pile_table,
    pile_assign, pile_n_assign, basket_discount, give_away, obs_size,
):  # fmt: skip
    """Play `steps` decisions of every game in place, each seat choosing as `CherryPickingGreedy.act` does
    (`greedy`) or uniformly among its legal actions, with `rng`'s draws in the order search's Python loop
    makes them (`agents.greedy.kernels`). Its arguments: the state's arrays, the rules' constants of
    `advance` (`rules.advance_constants`), the agent's `kernel_args`, the observation's width."""
    n, num_actions = len(done), R.NUM_ACTIONS
    kept = np.ones(n, dtype=np.bool_)
    games, seat = np.arange(n), np.zeros(n, dtype=np.int64)
    actions, live = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.bool_)
    mask = np.zeros((n, num_actions), dtype=np.bool_)
    worth = np.zeros((n, num_actions))
    obs = np.zeros((n, obs_size), dtype=np.float32)
    rewards, ended = np.zeros((n, hands.shape[1]), dtype=np.float32), np.zeros(n, dtype=np.bool_)
    for _ in range(steps):
        if not keep_rows(done, kept):
            return
        for g in range(n):
            seat[g] = to_move[g]
            live[g] = not done[g]
        mask[:] = False
        legal_mask(games, seat, done, to_move, phase, hands, played, mask)
        if greedy:
            obs[:] = 0.0
            observe(seat, done, to_move, phase, set_index, hands, piles, plants, played, scores, hand, obs)
            worth[:] = 0.0
            heuristic(
                obs, plants_at, pile_at, pile_table, pile_assign, pile_n_assign, basket_discount, give_away, worth
            )
        choose(worth, mask, done, kept, rng, actions)
        step(
            actions, live, keys, done, to_move, step_count, phase, set_index, hands, piles, plants, played, aside,
            set_scores, scores, rewards, ended, deck, hand, pay_scores, table, assign, n_assign,
        )  # fmt: skip
