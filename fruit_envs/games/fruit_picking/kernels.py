"""Fruit Picking's rules as compiled kernels, each a loop over the games of a batch: the one source of
setup, sowing, sets, masks, steps and observations that `rules` and `components` call (numba; see
`core.kernels`). Tables that are rules too (prices, which umbrellas show themselves) come from `rules`
as arguments, so each stays written once; the state's arrays are parameters named after `rules.State`'s
fields.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core.kernels import inner, njit, permutation, split
from fruit_envs.games.fruit_picking import components as C

PLANT_BASE, REFILL, WATER, BUY_BASE = 0, 6, 7, 8
DRAW_ONE, DRAW_TWO, KEEP_BASE = 12, 13, 14
MAX_SLOTS = 4
PLANT, TARGET, DRAW, KEEP, OVER = 0, 1, 2, 3, 4
NO_CARD = C.NO_CARD
HOUSE = 0
N_POS = C.N_POSITIONS
N_KINDS = len(C.KINDS)
N_CODES = C.N_CODES
FARM_COUNT = C.FARM_COUNT.astype(np.int64)
MARKET_COUNT = C.MARKET_COUNT.astype(np.int64)
BEGINNER_END = C.BEGINNER_CARDS_TO_END
FEE = C.MARKET_OPERATION_FEE
INITIAL = C.INITIAL_SEEDS[0]
N_INITIAL = len(C.INITIAL_SEEDS)
STORAGE0 = C.SEEDS_PER_PLAYER - sum(C.INITIAL_SEEDS)
REFILL_RETURN, REFILL_SOW = C.REFILL_HOUSE_RETURN, C.REFILL_SOW


# -- pure helpers: the one source of sowing and of the sets --------------------------------------


@inner
def sow_one(row, position) -> int:
    """Plant the seeds of `position` of one player's farm `row` (7,) clockwise, in place; returns the
    target (the card that receives the last seed). Seeds pass the House; the origin is reached last."""
    taken = np.int64(row[position])
    row[position] = 0
    for j in range(N_POS):
        offset = (j - position) % N_POS
        if offset == 0:
            offset = N_POS
        if taken >= offset:
            row[j] += (taken - offset) // N_POS + 1
    return (position + taken) % N_POS


@njit
def sow_many(seeds, positions, target):
    for i in range(len(seeds)):
        target[i] = sow_one(seeds[i], positions[i])


@inner
def sets_of(counts, out):
    """The four sets from counts per kind (5,): Variety (5 kinds), Greedy (4 identical), Smiley (three
    distinct pairs), Family (three of a kind and a pair of another kind)."""
    pairs, kinds, four, three = 0, 0, False, False
    for k in range(N_KINDS):
        pairs += counts[k] >= 2
        kinds += counts[k] >= 1
        four |= counts[k] >= 4
        three |= counts[k] >= 3
    out[0] = kinds == N_KINDS
    out[1] = four
    out[2] = pairs >= 3
    out[3] = three and pairs >= 2


@njit
def sets_many(counts, out):
    for i in range(len(counts)):
        sets_of(counts[i], out[i])


@inner
def completes(counts, beginner) -> bool:
    """A player's kind counts (5,) end the game: a set (beginner rules: 5 cards owned)."""
    if beginner:
        return counts.sum() >= BEGINNER_END
    flags = np.zeros(4, dtype=np.bool_)
    sets_of(counts, flags)
    return flags.any()


@njit
def completes_many(counts, beginner, out):
    for i in range(len(counts)):
        out[i] = completes(counts[i], beginner)


@inner
def _kinds(bought_row) -> np.ndarray:
    counts = np.zeros(N_KINDS, dtype=np.int64)
    for k in range(N_KINDS):
        counts[k] = bought_row[k] + bought_row[k + N_KINDS]
    return counts


@inner
def _price(price_table, card, slot) -> int:
    return price_table[card + 1, slot]


# -- the table ------------------------------------------------------------------------------------


@inner
def _draw_top(g, stack, stack_knowers, stack_size):
    """Take the top card of the stack (-1 if empty) and who knew it; the rest move up one."""
    top, knew = stack[g, 0], stack_knowers[g, 0]
    last = stack.shape[1] - 1
    for j in range(last):
        stack[g, j] = stack[g, j + 1]
        stack_knowers[g, j] = stack_knowers[g, j + 1]
    stack[g, last] = NO_CARD
    stack_knowers[g, last] = 0
    stack_size[g] = max(stack_size[g] - 1, 0)
    return top, knew


@inner
def _umbrella(g, card, umbrella, farm_order, seeds, storage):
    """An umbrella card: every player adds min(fruits on that farm card, storage) seeds to their card of
    the umbrella's fruit."""
    if not umbrella or card < N_KINDS:
        return
    farm_type = 2 + card % N_KINDS
    position = 0
    for j in range(N_POS):
        if farm_order[g, j] == farm_type:
            position = j
            break
    for seat in range(seeds.shape[1]):
        amount = min(FARM_COUNT[farm_type], storage[g, seat])
        seeds[g, seat, position] += amount
        storage[g, seat] -= amount


@njit
def setup(keys, farm_order, seeds, storage, market, stack, stack_size, stack_knowers, slots, umbrella, deck):
    """Shuffle the farm cards (rain and the five fruits) and the market stack, put the first seeds out and
    turn up the market cards (umbrellas count at setup). Arrays arrive allocated with their empty values."""
    for g in range(len(keys)):
        keys[g], sub_farm = split(keys[g])
        keys[g], sub_deck = split(keys[g])
        order = permutation(sub_farm, N_POS - 1)
        for j in range(N_POS - 1):
            farm_order[g, j + 1] = 1 + order[j]
        shuffle = permutation(sub_deck, len(deck))
        for j in range(len(deck)):
            stack[g, j] = deck[shuffle[j]]
        for seat in range(seeds.shape[1]):
            for j in range(N_INITIAL):
                seeds[g, seat, 1 + j] = INITIAL
            storage[g, seat] = STORAGE0
        for slot in range(slots):
            card, _ = _draw_top(g, stack, stack_knowers, stack_size)
            market[g, slot] = card
            _umbrella(g, card, umbrella, farm_order, seeds, storage)


@njit
def legal_mask(seat, done, to_move, phase, farm_order, seeds, target, market, price_table, mask):
    for g in range(len(seat)):
        s = seat[g]
        if done[g] or to_move[g] != s:
            continue
        if phase[g] == PLANT:
            sown = False
            for k in range(1, N_POS):
                if seeds[g, s, k] > 0:
                    mask[g, PLANT_BASE + k - 1] = True
                    sown = True
            mask[g, REFILL] = not sown
        elif phase[g] == TARGET:
            mask[g, WATER] = True
            kind = farm_order[g, max(target[g], 0)]
            if kind >= 2:
                for slot in range(MAX_SLOTS):
                    card = np.int64(market[g, slot])
                    fits = card >= 0 and 2 + card % N_KINDS == kind
                    if fits and _price(price_table, card, slot) <= seeds[g, s, HOUSE]:
                        mask[g, BUY_BASE + slot] = True
        elif phase[g] == DRAW:
            mask[g, DRAW_ONE] = True
            mask[g, DRAW_TWO] = True
        elif phase[g] == KEEP:
            mask[g, KEEP_BASE] = True
            mask[g, KEEP_BASE + 1] = True


@inner
def _refill_slot(g, stack, stack_knowers, stack_size, market, last_round, umbrella, farm_order, seeds, storage):
    """Turn the top card of the stack face up into slot 0 (the slot next to the stack)."""
    if stack_size[g] <= 0:
        return
    card, _ = _draw_top(g, stack, stack_knowers, stack_size)
    market[g, 0] = card
    _umbrella(g, card, umbrella, farm_order, seeds, storage)
    if stack_size[g] == 0:
        last_round[g] = True  # the last card was drawn


@njit
def step(
    actions, live, done, truncated, to_move, step_count, phase, farm_order, seeds, storage, target, market,
    stack, stack_size, stack_knowers, drawn, drawn_knowers, bought, rounds, turn_steps, last_round,
    rewards, ended, price_table, shows, umbrella, on_draw, on_place, market_operation, beginner, max_rounds,
    max_length, pay_scores,
):  # fmt: skip
    """One decision in each `live` game, in place; `ended[g]` marks games the rules just ended (their
    outcome is paid by `rules`)."""
    p = seeds.shape[1]
    everyone = (1 << p) - 1
    for g in range(len(actions)):
        if not live[g]:
            continue
        seat, a = to_move[g], actions[g]
        step_count[g] += 1
        turn_steps[g] += 1
        ends_turn = False
        if a < REFILL and phase[g] == PLANT:  # plant: sow, then the target decides what follows
            landed = sow_one(seeds[g, seat], a - PLANT_BASE + 1)
            target[g] = -1 if landed == HOUSE else landed
            phase[g] = PLANT if landed == HOUSE else TARGET  # the House: plant again
        elif a == REFILL:  # no seeds on the farm: return up to 3 House seeds, 1 on each of the first three
            back = min(seeds[g, seat, HOUSE], REFILL_RETURN)
            seeds[g, seat, HOUSE] -= back
            storage[g, seat] += back
            for j in range(REFILL_SOW):
                seeds[g, seat, 1 + j] += 1
            storage[g, seat] -= REFILL_SOW
            ends_turn = True
        elif a == WATER:  # take the card's fruits (or raindrops) from storage, all that is left if fewer
            t = target[g]
            amount = min(FARM_COUNT[farm_order[g, t]], storage[g, seat])
            seeds[g, seat, t] += amount
            storage[g, seat] -= amount
            ends_turn = True
        elif BUY_BASE <= a < DRAW_ONE:  # pay from the House, return the target's seeds, take the card
            slot = a - BUY_BASE
            card = np.int64(market[g, slot])
            price = _price(price_table, card, slot)
            t = target[g]
            seeds[g, seat, HOUSE] -= price
            storage[g, seat] += price + seeds[g, seat, t]
            seeds[g, seat, t] = 0
            bought[g, seat, card] += 1
            if pay_scores:
                rewards[g, seat] += MARKET_COUNT[card % N_KINDS]
            for j in range(slot, 0, -1):  # cards between the stack and the bought one move one slot away
                market[g, j] = market[g, j - 1]
            market[g, 0] = NO_CARD
            if market_operation and stack_size[g] >= 2 and seeds[g, seat, HOUSE] >= FEE:
                phase[g] = DRAW  # a real choice only when two cards and the fee are there
            else:
                _refill_slot(
                    g, stack, stack_knowers, stack_size, market, last_round, umbrella, farm_order, seeds, storage
                )
                ends_turn = True
        elif a == DRAW_ONE:
            _refill_slot(g, stack, stack_knowers, stack_size, market, last_round, umbrella, farm_order, seeds, storage)
            ends_turn = True
        elif a == DRAW_TWO:  # pay a seed, draw two; the drawer (and earlier knowers) see them
            seeds[g, seat, HOUSE] -= FEE
            storage[g, seat] += FEE
            for k in range(2):
                card, knew = _draw_top(g, stack, stack_knowers, stack_size)
                drawn[g, k] = card
                drawn_knowers[g, k] = everyone if card >= 0 and shows[card] else knew | (1 << seat)
                if on_draw:
                    _umbrella(g, card, umbrella, farm_order, seeds, storage)
            if stack_size[g] == 0:
                last_round[g] = True
            phase[g] = KEEP
        elif a >= KEEP_BASE:  # keep one face up in slot 0, the other goes under the stack
            keep = a - KEEP_BASE
            kept = drawn[g, keep]
            market[g, 0] = kept
            bottom = stack_size[g]
            stack[g, bottom] = drawn[g, 1 - keep]
            stack_knowers[g, bottom] = drawn_knowers[g, 1 - keep]  # who saw it keeps knowing it
            stack_size[g] += 1
            drawn[g, 0] = drawn[g, 1] = NO_CARD
            drawn_knowers[g, 0] = drawn_knowers[g, 1] = 0
            if on_place:
                _umbrella(g, kept, umbrella, farm_order, seeds, storage)
            ends_turn = True
        if ends_turn:
            if completes(_kinds(bought[g, seat]), beginner):
                last_round[g] = True
            phase[g] = PLANT
            target[g] = -1
            turn_steps[g] = 0
            round_over = seat == p - 1
            if round_over:
                rounds[g] += 1
            to_move[g] = (seat + 1) % p
            if round_over and last_round[g]:
                done[g] = True
                phase[g] = OVER
                ended[g] = True
            elif round_over and rounds[g] >= max_rounds:
                done[g] = truncated[g] = True
                phase[g] = OVER
        if not done[g] and step_count[g] >= max_length:
            done[g] = truncated[g] = True
            phase[g] = OVER


@njit
def observe(
    seat, done, to_move, phase, farm_order, seeds, storage, target, market, stack, stack_size, stack_knowers,
    drawn, drawn_knowers, bought, rounds, last_round, price_table, max_rounds, max_under, offsets, obs,
):  # fmt: skip
    """Each game's observation for its `seat`, into zeroed `obs`; `offsets` are the starts of
    `rules.observation_layout`'s blocks in their order, seat blocks listing the observer first."""
    p = seeds.shape[1]
    deck = stack.shape[1]
    flags = np.zeros(4, dtype=np.bool_)
    for g in range(len(seat)):
        s = seat[g]
        o = obs[g]
        o[offsets[0] + s] = 1.0
        if not done[g]:
            o[offsets[1] + (to_move[g] - s) % p] = 1.0
            o[offsets[2] + p - 1 - to_move[g]] = 1.0
            o[offsets[3] + phase[g]] = 1.0
        if target[g] >= 0:
            o[offsets[4] + target[g]] = 1.0
        o[offsets[5]] = last_round[g]
        o[offsets[6]] = rounds[g] / max_rounds
        for k in range(N_POS - 1):
            o[offsets[7] + 6 * k + farm_order[g, k + 1] - 1] = 1.0
        for r in range(p):
            a = (s + r) % p
            for j in range(N_POS):
                o[offsets[8] + N_POS * r + j] = seeds[g, a, j]
            o[offsets[9] + r] = storage[g, a]
            counts = _kinds(bought[g, a])
            sets_of(counts, flags)
            for k in range(N_KINDS):
                o[offsets[10] + N_KINDS * r + k] = counts[k]
            for k in range(4):
                o[offsets[11] + 4 * r + k] = flags[k]
        for slot in range(MAX_SLOTS):
            card = np.int64(market[g, slot])
            o[offsets[12] + (N_CODES + 1) * slot + (card if card >= 0 else N_CODES)] = 1.0
            o[offsets[13] + slot] = _price(price_table, card, slot)
        size = np.int64(stack_size[g])
        o[offsets[14]] = size / deck
        under = 0
        for j in range(deck):
            if stack[g, j] >= 0:
                o[offsets[15] + stack[g, j]] += 1.0
            under += stack_knowers[g, j] != 0
        for k in range(2):
            if drawn[g, k] >= 0:
                o[offsets[15] + drawn[g, k]] += 1.0
        first = size - under  # the cards put under lie at the bottom, in order
        o[offsets[16]] = first / deck
        for i in range(max_under):
            index = min(first + i, deck - 1)
            card = np.int64(stack[g, index])
            knew = np.int64(stack_knowers[g, index]) if i < under else 0
            if (knew >> s) & 1 and card >= 0:
                o[offsets[17] + N_CODES * i + card] = 1.0
            for r in range(p):
                o[offsets[18] + p * i + r] = (knew >> ((s + r) % p)) & 1
        for k in range(2):
            card = np.int64(drawn[g, k])
            knew = np.int64(drawn_knowers[g, k])
            if (knew >> s) & 1 and card >= 0:
                o[offsets[19] + N_CODES * k + card] = 1.0
            for r in range(p):
                o[offsets[20] + p * k + r] = (knew >> ((s + r) % p)) & 1
        for k in range(N_POS - 1):  # public arithmetic, spelled out: the last of n seeds sown lands n on
            own = np.int64(seeds[g, s, k + 1])
            if own > 0:
                o[offsets[21] + N_POS * k + (k + 1 + own) % N_POS] = 1.0


@njit
def advance(
    action, done, truncated, to_move, step_count, phase, farm_order, seeds, storage, target, market, stack,
    stack_size, stack_knowers, drawn, drawn_knowers, bought, rounds, turn_steps, last_round, rewards, ended,
    price_table, shows, umbrella, on_draw, on_place, market_operation, beginner, max_rounds, max_length, pay_scores,
    max_under, offsets, masks, obs,
):  # fmt: skip
    """`step` of one live game, then the mask of the seat to move afterwards (`masks (P, 16)`, False for
    the others: turn-based) and its observation, in one call: what an env of one game needs after each
    action (each kernel call first unpacks its arrays)."""
    actions = np.full(1, action, dtype=np.int64)
    step(
        actions, ~done, done, truncated, to_move, step_count, phase, farm_order, seeds, storage, target, market,
        stack, stack_size, stack_knowers, drawn, drawn_knowers, bought, rounds, turn_steps, last_round, rewards,
        ended, price_table, shows, umbrella, on_draw, on_place, market_operation, beginner, max_rounds, max_length,
        pay_scores,
    )  # fmt: skip
    seat = to_move.astype(np.int64)
    legal_mask(seat, done, to_move, phase, farm_order, seeds, target, market, price_table, masks[seat[0] : seat[0] + 1])
    observe(
        seat, done, to_move, phase, farm_order, seeds, storage, target, market, stack, stack_size, stack_knowers,
        drawn, drawn_knowers, bought, rounds, last_round, price_table, max_rounds, max_under, offsets, obs,
    )  # fmt: skip
