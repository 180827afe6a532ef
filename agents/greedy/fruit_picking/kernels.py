"""Fruit Picking's greedy heuristic as compiled kernels (numba; see `core.kernels`): the one source of its
scores and of its set-progress measure, each a loop over the rows of a batch. Sowing is the rules' own
`sow_one`; `core.lazy` runs the same functions interpreted where the compiled ones are not ready.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy.kernels import choose, keep_rows
from fruit_envs.core.kernels import inner, njit
from fruit_envs.games.fruit_picking import rules as R
from fruit_envs.games.fruit_picking.kernels import (
    BUY_BASE,
    DRAW_ONE,
    FARM_COUNT,
    HOUSE,
    KEEP_BASE,
    MARKET_COUNT,
    MAX_SLOTS,
    N_CODES,
    N_KINDS,
    N_POS,
    PLANT_BASE,
    WATER,
    legal_mask,
    observe,
    sow_one,
    step,
)


@inner
def progress(counts) -> float:
    """How close kind counts `(5,)` float64 are to the nearest set, 1.0 = a set is complete: the best of
    Variety (kinds owned), Greedy (4 of a kind), Smiley (three pairs) and Family (three and a pair)."""
    kinds = 0
    first = second = third = -np.inf  # the three largest counts
    for k in range(len(counts)):
        c = counts[k]
        kinds += c >= 1
        if c > first:
            first, second, third = c, first, second
        elif c > second:
            second, third = c, second
        elif c > third:
            third = c
    variety = kinds / 5
    greedy = min(first, 4.0) / 4
    smiley = (min(first, 2.0) + min(second, 2.0) + min(third, 2.0)) / 6
    family = (min(first, 3.0) + min(second, 2.0)) / 5
    return max(max(max(variety, greedy), smiley), family)


@njit
def set_progress(counts, out):
    """`progress` of each row of `counts (m, 5)` float64, into `out (m,)`."""
    for i in range(len(counts)):
        out[i] = progress(counts[i])


@inner
def card_values(own, values):
    """The worth of one more card of each kind, into `values (5,)`, for kind counts `own (5,)` float64:
    completing a set is worth most, then the progress it brings, then the card's fruits."""
    base = progress(own)
    for k in range(N_KINDS):
        own[k] += 1.0
        more = progress(own)
        own[k] -= 1.0
        completes = 1.0 if more >= 1.0 and base < 1.0 else 0.0
        values[k] = 10.0 * completes + 3.0 * (more - base) + 0.2 * MARKET_COUNT[k]


@inner
def argmax(row, cols) -> int:
    """The first of `row`'s columns `cols` holding their largest value (`np.argmax`)."""
    best = 0
    for j in range(1, len(cols)):
        if row[cols[j]] > row[cols[best]]:
            best = j
    return best


@inner
def whole(value) -> int:
    """An observed count as an integer (`np.rint`)."""
    return np.int64(np.rint(value))


@njit
def scores(
    obs, farm_cols, target_cols, market_cols, price_cols, drawn_cols, seed_cols, storage_col, bought_cols,
    price_weight, water_weight, out,
):  # fmt: skip
    """The heuristic's worth of every action of each row of `obs`, into zeroed `out (B, 16)`. The columns are
    the agent's: `farm_cols (6, 6)`, `market_cols (4, 11)` and `drawn_cols (2, 10)` one-hot rows, the rest
    counts. Planting is worth what its target is: 0.3 for the House, else the better of watering it and
    buying an affordable card of its fruit with the House seeds after sowing."""
    farm = np.zeros(N_POS, dtype=np.int64)  # farm type of each position, the House 0
    seeds = np.zeros(N_POS, dtype=np.int8)  # the state's seed type: `sow_one` compiles once
    sown = np.zeros(N_POS, dtype=np.int8)
    own = np.zeros(N_KINDS, dtype=np.float64)
    values = np.zeros(N_KINDS, dtype=np.float64)
    slot_type = np.zeros(MAX_SLOTS, dtype=np.int64)
    price = np.zeros(MAX_SLOTS, dtype=np.int64)
    slot_value = np.zeros(MAX_SLOTS, dtype=np.float64)
    for b in range(len(obs)):
        row, o = obs[b], out[b]
        for j in range(N_POS - 1):
            farm[j + 1] = argmax(row, farm_cols[j]) + 1
        for j in range(N_POS):
            seeds[j] = whole(row[seed_cols[j]])
        storage = whole(row[storage_col])
        for k in range(N_KINDS):
            own[k] = whole(row[bought_cols[k]])
        card_values(own, values)
        for slot in range(MAX_SLOTS):
            card = argmax(row, market_cols[slot])
            slot_type[slot] = 2 + card % N_KINDS if card < N_CODES else -1
            price[slot] = whole(row[price_cols[slot]])
            worth = values[slot_type[slot] - 2] if slot_type[slot] >= 2 else 0.0
            slot_value[slot] = worth - price_weight * price[slot]
            o[BUY_BASE + slot] = slot_value[slot]
        for position in range(1, N_POS):
            for j in range(N_POS):
                sown[j] = seeds[j]
            target = sow_one(sown, position)
            if target == HOUSE:
                o[PLANT_BASE + position - 1] = 0.3
                continue
            kind_type = farm[target]
            best = water_weight * min(FARM_COUNT[kind_type], storage)
            house = np.int64(sown[HOUSE])
            for slot in range(MAX_SLOTS):
                if slot_type[slot] == kind_type and price[slot] <= house and kind_type >= 2:
                    best = max(best, slot_value[slot])
            o[PLANT_BASE + position - 1] = best
        o[WATER] = water_weight * min(FARM_COUNT[farm[argmax(row, target_cols)]], storage)
        o[DRAW_ONE] = 1.0
        for k in range(2):
            o[KEEP_BASE + k] = values[argmax(row, drawn_cols[k]) % N_KINDS]


@njit
def rollout(
    steps, greedy, rng, done, truncated, to_move, step_count, phase, farm_order, seeds, storage, target, market,
    stack, stack_size, stack_knowers, drawn, drawn_knowers, bought, rounds, turn_steps, last_round, price_table,
    shows, umbrella, on_draw, on_place, market_operation, beginner, max_rounds, max_length, pay_scores, max_under,
    offsets, farm_cols, target_cols, market_cols, price_cols, drawn_cols, seed_cols, storage_col, bought_cols,
    price_weight, water_weight, obs_size,
):  # fmt: skip
    """Play `steps` decisions of every game in place, each seat choosing as `FruitPickingGreedy.act` does
    (`greedy`) or uniformly among its legal actions, with `rng`'s draws in the order search's Python loop
    makes them (`agents.greedy.kernels`). Its arguments: the state's arrays, the rules' constants of
    `advance` (`rules.advance_constants`), the agent's `kernel_args`, the observation's width."""
    n, num_actions = len(done), R.NUM_ACTIONS
    kept = np.ones(n, dtype=np.bool_)
    seat = np.zeros(n, dtype=np.int64)
    actions, live = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.bool_)
    mask = np.zeros((n, num_actions), dtype=np.bool_)
    worth = np.zeros((n, num_actions))
    obs = np.zeros((n, obs_size), dtype=np.float32)
    rewards, ended = np.zeros((n, seeds.shape[1]), dtype=np.float32), np.zeros(n, dtype=np.bool_)
    for _ in range(steps):
        if not keep_rows(done, kept):
            return
        for g in range(n):
            seat[g] = to_move[g]
            live[g] = not done[g]
        mask[:] = False
        legal_mask(seat, done, to_move, phase, farm_order, seeds, target, market, price_table, mask)
        if greedy:
            obs[:] = 0.0
            observe(
                seat, done, to_move, phase, farm_order, seeds, storage, target, market, stack, stack_size,
                stack_knowers, drawn, drawn_knowers, bought, rounds, last_round, price_table, max_rounds, max_under,
                offsets, obs,
            )  # fmt: skip
            worth[:] = 0.0
            scores(
                obs, farm_cols, target_cols, market_cols, price_cols, drawn_cols, seed_cols, storage_col,
                bought_cols, price_weight, water_weight, worth,
            )  # fmt: skip
        choose(worth, mask, done, kept, rng, actions)
        step(
            actions, live, done, truncated, to_move, step_count, phase, farm_order, seeds, storage, target, market,
            stack, stack_size, stack_knowers, drawn, drawn_knowers, bought, rounds, turn_steps, last_round,
            rewards, ended, price_table, shows, umbrella, on_draw, on_place, market_operation, beginner, max_rounds,
            max_length, pay_scores,
        )  # fmt: skip
