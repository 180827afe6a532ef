"""Juicy Fruits greedy's heuristic as compiled kernels over the batch: the one source of its scores
(`JuicyFruitsGreedy.scores` calls `scores`, compiled or as its interpreted twin, as `core.lazy` chooses).
Island geometry is the rules' own kernels (`shapes_fit`, `fits`, `free_run`); the observation columns and the
token worth table come from the agent. `rollout` plays search's playouts (this heuristic or uniform) in one call.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.agents.greedy.juicy_fruits import FACTORY_PROGRESS, FRUIT_CHARGE
from fruit_envs.agents.greedy.kernels import choose, keep_rows
from fruit_envs.core.kernels import inner, njit
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import geometry as G
from fruit_envs.games.juicy_fruits import rules as R
from fruit_envs.games.juicy_fruits.kernels import (
    DONE,
    ISLAND,
    TO_MOVE,
    fits,
    free_run,
    legal_mask,
    observe,
    shapes_fit,
    step,
)

CELL, CLAIM, PASS, ROTATE, SPLIT = R.CELL, R.CLAIM, R.PASS, R.ROTATE, R.SPLIT
PRODUCE, MILKSHAKE, ARROW, NUM_ACTIONS, MAX_SPLIT = R.PRODUCE, R.MILKSHAKE, R.ARROW, R.NUM_ACTIONS, R.MAX_SPLIT
MOVE_TOKEN, MOVE_TO, HARVEST_SPLIT, PRODUCE_PHASE = R.MOVE_TOKEN, R.MOVE_TO, R.HARVEST_SPLIT, R.PRODUCE_PHASE
SUPPLY_OR_CLAIM, ROTATE_PHASE, PLACE, CLAIM_FRUIT, FACTORY = (
    R.SUPPLY_OR_CLAIM, R.ROTATE_PHASE, R.PLACE, R.CLAIM_FRUIT, R.FACTORY,
)  # fmt: skip
N_CELLS, N_ROT, FRUITS, N_SHIPS = G.N_CELLS, G.MAX_ROTATIONS, C.N_FRUITS, C.N_SHIPS_PER_ISLAND
ROWS, ROW_SLOTS, N_SLOTS, N_COLOURS = C.N_ROWS, C.ROW_SLOTS, R.N_SLOTS, len(C.COLOURS)
N_ICE, SHAKE, SHAKE_FRUITS, N_ARROWS = C.N_ICE_CREAM_STACKS, C.MILKSHAKE, C.MILKSHAKE_FRUITS, C.N_ARROWS
N_SHAPES = len(C.SHAPES)

DISTANCE, BEACH_CELLS, PLACEMENT_BITS = G.DISTANCE.astype(np.int64), G.BEACH_CELLS, G.PLACEMENT_BITS
ROW_COST, ROW_POINTS = C.ROW_COST.astype(np.int64), C.ROW_POINTS.astype(np.int64)
ROW_COST_TOTAL = C.ROW_COST.sum(axis=1).astype(np.int64)
STACK_VALUE, STACK_COLOUR = C.STACK_VALUE.astype(np.int64), C.STACK_COLOUR.astype(np.int64)
TOKEN_SHAPE, TOKEN_FRUITS, IS_MOBILE = C.TOKEN_SHAPE.astype(np.int64), C.TOKEN_FRUITS.astype(np.int64), C.IS_MOBILE
ARROW_FROM, ARROW_TO = C.ARROW_FROM.astype(np.int64), C.ARROW_TO.astype(np.int64)
ARROW_COST, NODE_POINTS, NODE_BOTTLE = (
    table.astype(np.int64) for table in (C.ARROW_COST, C.NODE_POINTS, C.NODE_BOTTLE)
)
# each ice cream colour's price (its first stack's) and its stacks' mean value
COLOUR_COST = np.array([C.STACK_COST[np.flatnonzero(C.STACK_COLOUR == k)[0]] for k in range(N_COLOURS)], dtype=np.int64)
COLOUR_VALUE = np.array([C.STACK_VALUE[C.STACK_COLOUR == k].mean() for k in range(N_COLOURS)])
# the observation's scales, in its float32 (reserves / 10, ship costs / 3 and points / 4, stacks / size, discs / 2)
FRUIT_SCALE, COST_SCALE, POINTS_SCALE = np.float32(10), np.float32(3), np.float32(4)
STACK_SCALE, DISC_SCALE = C.STACK_SIZE.astype(np.float32), np.float32(C.FACTORY_DISCS)
HALF = np.float32(0.5)
UNFIT = -1e9  # a placement that does not fit
NO_LIMIT = np.iinfo(np.int64).max


@inner
def one_hot_index(obs, b, cols, none) -> np.int64:
    """The first largest of the columns `cols` of row `b` (`argmax`), or `none` when they are all zero."""
    best, top = 0, obs[b, cols[0]]
    found = top != 0
    for i in range(1, len(cols)):
        x = obs[b, cols[i]]
        found |= x != 0
        if x > top:
            best, top = i, x
    return best if found else none


@inner
def bits_of(free) -> np.int64:
    """25-bit mask of the cells where `free (25,)` is True (`geometry.bits`)."""
    bits = np.int64(0)
    for c in range(N_CELLS):
        if free[c]:
            bits |= np.int64(1) << np.int64(c)
    return bits


@inner
def fruit_weights(fruit, present, ship_cost, ship_value, tokens, free, token_worth, room, missing, demand, weights):
    """`weights (5,)`: worth of one more fruit of each type. The best target (ship or row with a claimable token,
    by value per missing fruit) lacks counts most, any fruit the targets demand beyond the reserve a little."""
    shapes_fit(bits_of(free), room)
    for f in range(FRUITS):
        demand[f] = 0
    best, best_rate = -1, -np.inf
    for k in range(N_SHIPS + ROWS):
        if k < N_SHIPS:
            value = ship_value[k] if present[k] else 0.0
        else:
            r = k - N_SHIPS
            worth = -np.inf
            for j in range(ROW_SLOTS):
                t = tokens[r * ROW_SLOTS + j]
                if t >= 0 and room[TOKEN_SHAPE[t]]:
                    worth = max(worth, token_worth[t])
            value = max(ROW_POINTS[r] + worth, 0.1) if np.isfinite(worth) else 0.0
        lack = 0
        for f in range(FRUITS):
            if k < N_SHIPS:
                cost = ship_cost[k, f] if present[k] else 0
            else:
                cost = ROW_COST[k - N_SHIPS, f] if value > 0 else 0
            missing[k, f] = max(cost - fruit[f], 0)
            lack += missing[k, f]
            if value > 0:
                demand[f] += cost
        rate = value / (1.0 + lack) if value > 0 else -1.0
        if rate > best_rate:
            best, best_rate = k, rate
    excess = 0
    for f in range(FRUITS):
        excess += max(demand[f] - fruit[f], 0)
    for f in range(FRUITS):
        share = max(demand[f] - fruit[f], 0) / (1.0 + excess)
        weights[f] = 1.0 + (3.0 if missing[best, f] > 0 else 0.0) + 2.0 * share


@inner
def cart_worth(colour, spaces, ice_count, shakes) -> float:
    """Points a cart of `colour` produces over `spaces` with today's fruit (`ice_count` per colour, `shakes`)."""
    n_ice = min(spaces, ice_count[colour])
    n_shake = min(spaces - n_ice, shakes)
    return n_ice * COLOUR_VALUE[colour] + n_shake * 3.0 - FRUIT_CHARGE * 2 * (n_ice + n_shake)


@inner
def placement_worth(table, free, movers, anchor, mobile, after) -> float:
    """Worth of covering the cells `table` (bits): the own movers that can still go somewhere and their room,
    and a mobile token's own free run from `anchor`; `UNFIT` where it does not fit on `free` (bits)."""
    if not fits(free, table):
        return UNFIT
    left = free & ~table
    for c in range(N_CELLS):
        after[c] = ((left >> np.int64(c)) & np.int64(1)) != 0
    room = total = 0
    for c in range(N_CELLS):
        if movers[c]:
            run = free_run(after, c)
            room += min(run, 2)
            total += run
    return room + 0.1 * total + (0.5 * free_run(after, anchor) if mobile else 0.0)


@njit
def scores(
    obs, phase_cols, final_round_col, fruit_cols, empty_cols, collector_cols, advanced_cols, cart_cols, lemonade_cols,
    ship_present_cols, ship_cost_cols, ship_points_cols, board_cols, stacks_cols, pending_cell_cols, pending_token_cols,
    pending_rotation_cols, discs_cols, pending_arrow_cols, token_worth, factory, out,
):  # fmt: skip
    """Fill `out (B, 66)` (zeros) with the heuristic's worth of each action for the observations `obs (B, O)`
    (float32), read at the columns named after their blocks (`*_cols`; the island's by plane: `empty_cols (25,)`,
    `collector_cols (5, 25)`, ...; `board_cols (20, 24)` one-hot per slot); `token_worth (24,)` is the fixed worth
    of each token."""
    have = np.zeros(FRUITS, dtype=np.int64)
    free = np.zeros(N_CELLS, dtype=np.bool_)
    after = np.zeros(N_CELLS, dtype=np.bool_)
    movers = np.zeros(N_CELLS, dtype=np.bool_)
    present = np.zeros(N_SHIPS, dtype=np.bool_)
    costs = np.zeros((N_SHIPS, FRUITS), dtype=np.int64)
    ship_worth = np.zeros(N_SHIPS, dtype=np.float64)
    tokens = np.zeros(N_SLOTS, dtype=np.int64)
    left = np.zeros(len(stacks_cols), dtype=np.int64)
    room = np.zeros(N_SHAPES, dtype=np.bool_)
    missing = np.zeros((N_SHIPS + ROWS, FRUITS), dtype=np.int64)
    demand = np.zeros(FRUITS, dtype=np.int64)
    weights = np.zeros(FRUITS, dtype=np.float64)
    ice_count = np.zeros(N_COLOURS, dtype=np.int64)
    zero, no = np.int64(0), np.int64(-1)  # not literals: each inner kernel compiles once (core.kernels)
    for b in range(len(obs)):
        ph = one_hot_index(obs, b, phase_cols, zero)
        charge = 0.0 if obs[b, final_round_col] > 0.5 else FRUIT_CHARGE  # leftover fruit scores nothing
        row = out[b]
        if ph == MOVE_TO:  # as far as possible
            src = one_hot_index(obs, b, pending_cell_cols, zero)
            for c in range(N_CELLS):
                row[CELL + c] = DISTANCE[src, c]
            continue
        for c in range(N_CELLS):
            free[c] = obs[b, empty_cols[c]] > 0.5
        if ph != PLACE and ph != ROTATE_PHASE:  # the ships and the board: what supplying or claiming earns
            for k in range(N_SHIPS):
                present[k] = obs[b, ship_present_cols[k]] > 0.5
                for f in range(FRUITS):
                    costs[k, f] = np.int64(np.rint(obs[b, ship_cost_cols[k, f]] * COST_SCALE))
                ship_worth[k] = np.float32(obs[b, ship_points_cols[k]] * POINTS_SCALE) + HALF  # its points + 0.5
            for slot in range(N_SLOTS):
                tokens[slot] = one_hot_index(obs, b, board_cols[slot], no)
        if ph != SUPPLY_OR_CLAIM and ph != PLACE and ph != ROTATE_PHASE:  # the others need no fruit weights
            for f in range(FRUITS):
                have[f] = np.int64(np.rint(obs[b, fruit_cols[f]] * FRUIT_SCALE))
            fruit_weights(have, present, costs, ship_worth, tokens, free, token_worth, room, missing, demand, weights)

        if ph == MOVE_TOKEN:  # which token: collectors by weighted fruit, advanced (d + 1) fruits, carts points
            for j in range(len(stacks_cols)):
                left[j] = np.int64(np.rint(obs[b, stacks_cols[j]] * STACK_SCALE[j]))
            for k in range(N_COLOURS):
                payable, count = NO_LIMIT, 0
                for f in range(FRUITS):
                    if COLOUR_COST[k, f] > 0:
                        payable = min(payable, have[f] // COLOUR_COST[k, f])
                for j in range(len(left)):
                    if STACK_COLOUR[j] == k:
                        count += left[j]
                ice_count[k] = min(payable, count)
            shakes = 0
            for f in range(FRUITS):
                shakes += have[f] // SHAKE_FRUITS
            shakes = min(shakes, left[SHAKE])
            for c in range(N_CELLS):
                fruit_gain = 0.0
                for f in range(FRUITS):
                    if obs[b, collector_cols[f, c]] > 0.5:
                        fruit_gain += weights[f]
                adv_weight = 0.0
                for f in range(FRUITS):
                    if obs[b, advanced_cols[f, c]] > 0.5:
                        adv_weight = max(adv_weight, weights[f])
                colour = no
                for k in range(N_COLOURS - 1, -1, -1):
                    if obs[b, cart_cols[k, c]] > 0.5:
                        colour = k
                if colour >= 0:
                    row[CELL + c] = cart_worth(colour, free_run(free, c), ice_count, shakes)
                elif fruit_gain != 0.0 or adv_weight != 0.0:  # no mover here: its 0 stands
                    run = free_run(free, c)
                    row[CELL + c] = fruit_gain * run + adv_weight * (run + 1)

        elif ph == HARVEST_SPLIT or ph == CLAIM_FRUIT:  # all of the more useful of the two fruits
            token = one_hot_index(obs, b, pending_token_cols, zero)
            first_better = weights[TOKEN_FRUITS[token, 0]] >= weights[TOKEN_FRUITS[token, 1]]
            for k in range(MAX_SPLIT + 1):
                row[SPLIT + k] = k if first_better else -k

        elif ph == PRODUCE_PHASE:  # the most valuable marker; milkshakes paid with the least useful fruit
            for j in range(N_ICE):
                row[PRODUCE + j] = STACK_VALUE[j]
            for f in range(NUM_ACTIONS - MILKSHAKE):
                row[MILKSHAKE + f] = STACK_VALUE[SHAKE] - 0.1 * weights[f]
            row[PASS] = 0.0

        elif ph == SUPPLY_OR_CLAIM:  # supply a ship, claim a token or pass, less a charge per fruit paid
            for k in range(N_SHIPS):
                paid = 0
                for f in range(FRUITS):
                    paid += costs[k, f]
                row[CELL + BEACH_CELLS[k]] = ship_worth[k] - charge * paid
            for slot in range(N_SLOTS):
                r = slot // ROW_SLOTS
                row[CLAIM + slot] = ROW_POINTS[r] + token_worth[max(tokens[slot], 0)] - charge * ROW_COST_TOTAL[r]
            row[PASS] = 0.0

        elif ph == PLACE or ph == ROTATE_PHASE:  # stationary tokens out of the way, mobile ones on long runs
            for c in range(N_CELLS):
                moving = np.float32(0.0)
                for f in range(FRUITS):
                    moving += obs[b, collector_cols[f, c]]
                tokens_moving = np.float32(0.0)
                for f in range(FRUITS):
                    tokens_moving += obs[b, advanced_cols[f, c]]
                for k in range(N_COLOURS):
                    tokens_moving += obs[b, cart_cols[k, c]]
                movers[c] = moving > 0.5 or tokens_moving > 0.5
            bits = bits_of(free)
            token = one_hot_index(obs, b, pending_token_cols, zero)
            shape, mobile = TOKEN_SHAPE[token], IS_MOBILE[token]
            if ph == ROTATE_PHASE:
                for r in range(N_ROT):
                    best = -np.inf
                    for c in range(N_CELLS):
                        best = max(best, placement_worth(PLACEMENT_BITS[shape, r, c], bits, movers, c, mobile, after))
                    row[ROTATE + r] = best
            else:
                r = one_hot_index(obs, b, pending_rotation_cols, zero)
                for c in range(N_CELLS):
                    row[CELL + c] = placement_worth(PLACEMENT_BITS[shape, r, c], bits, movers, c, mobile, after)

        elif ph == FACTORY and factory:  # an arrow whose circle, progress and bottle beat the fruit it costs
            lemonade_stand = False
            for c in range(N_CELLS):
                lemonade_stand |= obs[b, lemonade_cols[c]] != 0
            for a in range(N_ARROWS):
                to = ARROW_TO[a]
                onto_own = np.rint(obs[b, discs_cols[to]] * DISC_SCALE) > 0
                gain = (0.0 if onto_own else np.float64(NODE_POINTS[to])) + FACTORY_PROGRESS
                gain = gain + ((NODE_BOTTLE[to] - NODE_BOTTLE[ARROW_FROM[a]]) if lemonade_stand else 0)
                cost = 0.0
                for f in range(FRUITS):
                    cost += ARROW_COST[a, f] * weights[f]
                cost = cost * charge
                row[ARROW + a] = gain - (0.0 if obs[b, pending_arrow_cols[a]] > 0.5 else cost)  # the free ride is free
            row[PASS] = 0.0


@njit
def rollout(
    steps, greedy, rng, st, phase_actions, factory, solo, cap, per_row, pay_scores, offsets, phase_size, license_steps,
    phase_cols, final_round_col, fruit_cols, empty_cols, collector_cols, advanced_cols, cart_cols, lemonade_cols,
    ship_present_cols, ship_cost_cols, ship_points_cols, board_cols, stacks_cols, pending_cell_cols, pending_token_cols,
    pending_rotation_cols, discs_cols, pending_arrow_cols, token_worth, own_factory, obs_size,
):  # fmt: skip
    """Play `steps` decisions of every game of the state `st` in place, each seat choosing as `JuicyFruitsGreedy.act`
    does (`greedy`) or uniformly among its legal actions, with `rng`'s draws in the order search's Python loop
    makes them (`agents.greedy.kernels`). Its arguments: the state's arrays, the rules' constants of `step` and
    `observe` (`rules.advance_constants`, the round cap, `PHASE_ACTIONS`), the agent's `kernel_args`, the
    observation's width."""
    done, to_move = st[DONE], st[TO_MOVE]
    n, p = len(done), st[ISLAND].shape[1]
    kept = np.ones(n, dtype=np.bool_)
    seat = np.zeros(n, dtype=np.int64)
    actions, live = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.bool_)
    mask = np.zeros((n, NUM_ACTIONS), dtype=np.bool_)
    worth = np.zeros((n, NUM_ACTIONS))
    obs = np.zeros((n, obs_size), dtype=np.float32)
    rewards, ended = np.zeros((n, p), dtype=np.float32), np.zeros(n, dtype=np.bool_)
    for _ in range(steps):
        if not keep_rows(done, kept):
            return
        for g in range(n):
            seat[g] = to_move[g]
            live[g] = not done[g]
        mask[:] = False
        legal_mask(st, seat, mask)
        if greedy:
            obs[:] = 0.0
            observe(seat, st, offsets, phase_size, cap, license_steps, solo, factory, obs)
            worth[:] = 0.0
            scores(
                obs, phase_cols, final_round_col, fruit_cols, empty_cols, collector_cols, advanced_cols, cart_cols,
                lemonade_cols, ship_present_cols, ship_cost_cols, ship_points_cols, board_cols, stacks_cols,
                pending_cell_cols, pending_token_cols, pending_rotation_cols, discs_cols, pending_arrow_cols,
                token_worth, own_factory, worth,
            )  # fmt: skip
        choose(worth, mask, done, kept, rng, actions)
        step(actions, live, st, rewards, ended, phase_actions, factory, solo, cap, per_row, pay_scores)
