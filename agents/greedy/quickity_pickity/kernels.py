"""Quickity Pickity greedy's heuristic as compiled kernels, a loop over the rows of a batch: the one source of
how it scores each action and values a set (numba, see `core.kernels`; its interpreted twin per `core.lazy`).
The observation's columns, the set legality and the worth tables come from the agent as arguments.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy.kernels import choose, keep_rows
from fruit_envs.core.kernels import inner, njit
from fruit_envs.games.quickity_pickity import components as C
from fruit_envs.games.quickity_pickity import rules as R
from fruit_envs.games.quickity_pickity.kernels import legal_mask, observe, step

FLIP_ACTION, TAKE_BASE, PLACE_BASE, NEW_SET = R.FLIP_ACTION, R.TAKE_BASE, R.PLACE_BASE, R.NEW_SET
TYPES = C.N_FRUIT_TYPES
TYPE_BITS = C.KIND_BITS[:TYPES].astype(np.int64)
IS_BONUS = C.IS_BONUS.copy()
CARD_BONUS = C.CARD_BONUS.astype(np.int64)
ILLEGAL = float(C.ILLEGAL_SET)
OVER_STAGE = 2  # no monkey column set (the game is over): the stage read as two monkeys up


@inner
def _worth(card, stage, size, legal, worth) -> np.float64:
    """One set's worth: 0 when absent (size 0), -10 when broken (not `legal`), else its card's blended value
    for its size."""
    if size == 0:
        return 0.0
    if not legal:
        return ILLEGAL
    return worth[card, stage, min(size, worth.shape[2] - 1)]


@njit
def set_worth(card, stage, size, bits, legal, worth, out):
    """`out` (B, K): the worth of sets of `size` and attribute `bits` (both (B, K)) on round card `card` (B,)
    with `stage` (B,) monkeys up; `legal` (1024,) the set legality of each `bits`."""
    for b in range(len(out)):
        c, up = np.int64(card[b]), np.int64(stage[b])
        for k in range(out.shape[1]):
            out[b, k] = _worth(c, up, np.int64(size[b, k]), legal[bits[b, k]], worth)


@inner
def _first_max(obs, b, cols) -> np.int64:
    """The first of `cols` holding the largest value in row `b` of `obs`, as `argmax` picks it."""
    best = 0
    for i in range(1, len(cols)):
        if obs[b, cols[i]] > obs[b, cols[best]]:
            best = i
    return best


@njit
def scores(
    obs, mine, size_col, bits_cols, card_cols, monkey_cols, expression_cols, colour_cols, shape_cols, legal, worth,
    flip_worth, out,
):  # fmt: skip
    """`out` (B, A): each action's worth to the heuristic. A take scores the fruit type's best placement (into
    an own set or as a new one), a place the held fruit's gain there, a flip `flip_worth`. `mine`, `size_col`
    (S,) and `bits_cols` (S, 10) are each set row's columns, the others one-hot blocks'."""
    sets = len(mine)
    # the observer's sets with a fruit: the set row, bits, and the gain of one more fruit if it stays legal or not
    row = np.zeros(sets, dtype=np.int64)
    bits = np.zeros(sets, dtype=np.int64)
    kept = np.zeros(sets, dtype=np.float64)
    broken = np.zeros(sets, dtype=np.float64)
    best = np.zeros(TYPES, dtype=np.float64)  # of each fruit type: its best gain into a set
    bonus = np.zeros(TYPES, dtype=np.int64)  # of each fruit type: its bonus on this card
    yes, no = np.bool_(True), np.bool_(False)
    for b in range(len(obs)):
        card = _first_max(obs, b, card_cols)
        stage = np.int64(OVER_STAGE)
        for i in range(len(monkey_cols)):
            if obs[b, monkey_cols[i]] != 0:
                stage = _first_max(obs, b, monkey_cols)
                break
        held = 16 * _first_max(obs, b, expression_cols) + 4 * _first_max(obs, b, colour_cols)
        held += _first_max(obs, b, shape_cols)
        out[b, FLIP_ACTION] = flip_worth
        n = 0
        for j in range(sets):
            out[b, PLACE_BASE + j] = -np.inf  # no set there: the held fruit cannot go in
            if obs[b, mine[j]] > 0.5 and np.rint(obs[b, size_col[j]]) > 0:
                size = np.int64(np.rint(obs[b, size_col[j]]))
                row[n], bits[n] = j, 0
                for i in range(bits_cols.shape[1]):
                    bits[n] += np.int64(np.rint(obs[b, bits_cols[j, i]])) << i
                before = _worth(card, stage, size, legal[bits[n]], worth)
                kept[n] = _worth(card, stage, size + 1, yes, worth) - before
                broken[n] = _worth(card, stage, size + 1, no, worth) - before
                n += 1
        for ty in range(TYPES):
            best[ty] = -np.inf
            bonus[ty] = np.int64(IS_BONUS[card, ty]) * CARD_BONUS[card]
        for k in range(n):
            for ty in range(TYPES):
                into = (kept[k] if legal[bits[k] | TYPE_BITS[ty]] else broken[k]) + bonus[ty]
                best[ty] = max(best[ty], into)
                if ty == held:
                    out[b, PLACE_BASE + row[k]] = into
        for ty in range(TYPES):
            alone = _worth(card, stage, np.int64(1), legal[TYPE_BITS[ty]], worth) + bonus[ty]
            out[b, TAKE_BASE + ty] = max(best[ty], alone)
            if ty == held:
                out[b, NEW_SET] = alone


@njit
def rollout(
    steps, greedy, rng, keys, done, to_move, step_count, phase, seat_phase, round_index, starter, in_play,
    kind_start, layout, location, up_count, taken, kind_slots, held, num_sets, set_size, set_bits, set_bonus,
    seen_most, seen_once, committed, deck, deck_pos, shown, card, cards_won, legal, pay_scores, rounds_to_win,
    box_hidden, offsets, card_table, held_rows, set_rows, value_pos, value_neg, options, mine, size_col, bits_cols,
    card_cols, monkey_cols, expression_cols, colour_cols, shape_cols, legal_table, worth, flip_worth, obs_size,
):  # fmt: skip
    """Play `steps` decisions of every game in place, each seat choosing as `QuickityPickityGreedy.act` does
    (`greedy`) or uniformly among its legal actions, with `rng`'s draws in the order search's Python loop
    makes them (`agents.greedy.kernels`). Its arguments: the state's arrays, the rules' constants of `advance`
    (`rules.advance_constants`: step's, then observe's tables), the agent's `kernel_args`, the observation's
    width."""
    n, num_actions, f = len(done), R.NUM_ACTIONS, set_size.shape[1]
    kept = np.ones(n, dtype=np.bool_)
    games, seat = np.arange(n), np.zeros(n, dtype=np.int64)
    actions, live = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.bool_)
    mask = np.zeros((n, num_actions), dtype=np.bool_)
    values = np.zeros((n, num_actions))
    obs = np.zeros((n, obs_size), dtype=np.float32)
    rewards, ended = np.zeros((n, num_sets.shape[1]), dtype=np.float32), np.zeros(n, dtype=np.bool_)
    for _ in range(steps):
        if not keep_rows(done, kept):
            return
        for g in range(n):
            seat[g] = to_move[g]
            live[g] = not done[g]
        mask[:] = False
        legal_mask(games, seat, done, seat_phase, up_count, num_sets, committed, f, np.bool_(True), mask)
        if greedy:
            obs[:] = 0.0
            observe(
                seat, done, seat_phase, starter, layout, location, up_count, taken, held, num_sets, set_size,
                set_bits, set_bonus, seen_most, seen_once, committed, deck, deck_pos, shown, card, cards_won, legal,
                box_hidden, offsets, card_table, held_rows, set_rows, value_pos, value_neg, options, obs,
            )  # fmt: skip
            values[:] = 0.0
            scores(
                obs, mine, size_col, bits_cols, card_cols, monkey_cols, expression_cols, colour_cols, shape_cols,
                legal_table, worth, flip_worth, values,
            )  # fmt: skip
        choose(values, mask, done, kept, rng, actions)
        step(
            actions, live, keys, done, to_move, step_count, phase, seat_phase, round_index, starter, in_play,
            kind_start, layout, location, up_count, taken, kind_slots, held, num_sets, set_size, set_bits,
            set_bonus, seen_most, seen_once, committed, deck, deck_pos, shown, card, cards_won, rewards, ended,
            legal, pay_scores, rounds_to_win, box_hidden,
        )  # fmt: skip
