"""Quickity Pickity's rules as compiled kernels, each a loop over the games of a batch: the one source of
rounds, ticks (flips, places, takes), scoring, masks, what is known of the pile, the observation and its
money hints that `rules` calls (numba; see `core.kernels`). The component tables (set values and
legality, bonus fruit, attribute bits) and the observation's lookup rows come from `components` and
`rules` as arguments, so each stays written once; the state's arrays are parameters named after
`rules.State`'s fields.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core.kernels import inner, njit, permutation, split, stable_argsort, uniform
from fruit_envs.games.quickity_pickity import components as C

FLIP_ACTION, TAKE_BASE = 0, 1
PLACE_BASE = TAKE_BASE + C.N_FRUIT_TYPES
S = C.MAX_SETS
NEW_SET = PLACE_BASE + S
NUM_ACTIONS = NEW_SET + 2
FLIP, TAKE, PLACE, OVER = 0, 1, 2, 3
NO_ACTION = NO_SLOT = -1
FACE_DOWN, FACE_UP = 0, 1
HELD_BASE = 2
MAX_PLAYERS = 5
SET_BASE = HELD_BASE + MAX_PLAYERS
MONKEY = C.MONKEY
TYPES = C.N_FRUIT_TYPES
KINDS = C.N_KINDS
STOP = C.MONKEYS_TO_STOP
LARGEST = C.LARGEST_SIZE
N_CARDS = C.N_CARDS
KIND_BITS = C.KIND_BITS.astype(np.int64)
IS_BONUS = C.IS_BONUS.copy()
CARD_BONUS = C.CARD_BONUS.astype(np.int64)
SET_VALUE = C.SET_VALUE.astype(np.int64)
HELD_FEATURES, SET_FEATURES, PLAYER_FEATURES, GAIN_FEATURES = 12, 15, 5, 3


@inner
def set_value(card, size, bits, legal) -> np.int64:
    """Money of one set on `card`: the value for its size (7+ reads the last column), or -10 when illegal."""
    return SET_VALUE[card, min(size, LARGEST), np.int64(legal[bits])]


@inner
def _set_money(g, row, card, set_size, set_bits, set_bonus, legal) -> np.int64:
    size, bits = np.int64(set_size[g, row]), np.int64(set_bits[g, row])
    return set_value(card, size, bits, legal) + CARD_BONUS[card] * set_bonus[g, row]


@inner
def _zone_start(g, num_sets, k) -> np.int64:
    start = 0
    for i in range(k):
        start += num_sets[g, i]
    return start


@inner
def zone_money(g, i, card, set_size, set_bits, set_bonus, num_sets, legal) -> np.int64:
    """Seat `i`'s money this round: its sets on the current card plus the bonus fruit."""
    c = np.int64(card[g])
    row = _zone_start(g, num_sets, i)
    total = 0
    for r in range(row, row + num_sets[g, i]):
        total += _set_money(g, r, c, set_size, set_bits, set_bonus, legal)
    return total


@njit
def money_many(num_sets, set_size, set_bits, set_bonus, card, legal, out):
    for g in range(len(card)):
        for i in range(num_sets.shape[1]):
            out[g, i] = zone_money(g, i, card, set_size, set_bits, set_bonus, num_sets, legal)


@inner
def pile(g, deck, shown, deck_pos, flags) -> np.int64:
    """What everyone knows of the pile: `flags` (16,) the cards shown since the pile was last shuffled;
    returns how many cards tied winners took face down from it since."""
    pos = np.int64(deck_pos[g])
    first = pos // N_CARDS * N_CARDS
    length = deck.shape[1]
    face_down = 0
    flags[:] = False
    for i in range(N_CARDS):
        at = first + i
        drawn = at < pos
        at = min(at, length - 1)
        was_shown = shown[g, at] and drawn
        if was_shown:
            flags[deck[g, at]] = True
        face_down += drawn and not was_shown
    return face_down


@njit
def pile_many(deck, deck_pos, shown, flags, face_down):
    for g in range(len(deck_pos)):
        face_down[g] = pile(g, deck, shown, deck_pos, flags[g])


# -- rounds and ticks -----------------------------------------------------------------------------


@inner
def new_round(
    g, keys, layout, kind_slots, location, up_count, taken, held, num_sets, set_size, set_bits, set_bonus,
    seat_phase, committed, to_move, phase, deck, deck_pos, shown, card,
):  # fmt: skip
    """Shuffle every tile in play face down, clear the zones, show the next marketplace card."""
    keys[g], sub = split(keys[g])
    order = permutation(sub, layout.shape[1])
    before = layout[g].copy()
    for j in range(len(order)):
        layout[g, j] = before[order[j]]
    slots = stable_argsort(layout[g].astype(np.float64))  # one compiled sort, the float one
    for j in range(len(slots)):  # element by element (core.kernels)
        kind_slots[g, j] = slots[j]
    location[g] = FACE_DOWN
    up_count[g] = 0
    taken[g] = 0
    held[g] = NO_SLOT
    num_sets[g] = 0
    set_size[g] = 0
    set_bits[g] = 0
    set_bonus[g] = 0
    seat_phase[g] = FLIP
    committed[g] = NO_ACTION
    to_move[g] = 0
    phase[g] = FLIP
    pos = deck_pos[g]
    card[g] = deck[g, pos]
    shown[g, pos] = True
    deck_pos[g] += 1


@njit
def new_rounds(
    keys, to_move, phase, seat_phase, layout, location, up_count, taken, kind_slots, held, num_sets, set_size,
    set_bits, set_bonus, committed, deck, deck_pos, shown, card,
):  # fmt: skip
    for g in range(len(keys)):
        new_round(
            g, keys, layout, kind_slots, location, up_count, taken, held, num_sets, set_size, set_bits, set_bonus,
            seat_phase, committed, to_move, phase, deck, deck_pos, shown, card,
        )  # fmt: skip


@inner
def _open_set(g, k, num_sets, set_size, set_bits, set_bonus):
    """Start an empty set at the end of zone `k`: the rows of later zones move down one."""
    p = num_sets.shape[1]
    at, later = 0, 0
    for i in range(p):
        if i <= k:
            at += num_sets[g, i]
        else:
            later += num_sets[g, i]
    if later > 0:
        for r in range(set_size.shape[1] - 1, at, -1):
            set_size[g, r] = set_size[g, r - 1]
            set_bits[g, r] = set_bits[g, r - 1]
            set_bonus[g, r] = set_bonus[g, r - 1]
        set_size[g, at] = set_bits[g, at] = set_bonus[g, at] = 0
    num_sets[g, k] += 1


@njit
def step(
    actions, live, keys, done, to_move, step_count, phase, seat_phase, round_index, starter, in_play,
    kind_start, layout, location, up_count, taken, kind_slots, held, num_sets, set_size, set_bits, set_bonus,
    seen_most, seen_once, committed, deck, deck_pos, shown, card, cards_won, rewards, ended, legal,
    pay_scores, rounds_to_win, box_hidden,
):  # fmt: skip
    """Record one seat's choice in each `live` game; the last seat's choice resolves the tick: flips,
    then - unless the third monkey has just appeared - places and takes. `ended[g]` marks games whose
    last round was just scored (their outcome is paid by `rules`)."""
    p = committed.shape[1]
    t = layout.shape[1]
    start = np.empty(t, dtype=location.dtype)
    slots = np.empty(p, dtype=np.int64)
    rank = np.zeros(p, dtype=np.int64)
    order = np.empty(p, dtype=np.float64)
    target = np.zeros(p, dtype=np.int64)
    for g in range(len(actions)):
        if not live[g]:
            continue
        committed[g, to_move[g]] = actions[g]
        to_move[g] += 1
        step_count[g] += 1
        if to_move[g] == p:
            for j in range(len(start)):  # the table as everyone saw it when choosing, element by element
                start[j] = location[g, j]
            # A. flips: the j-th flipper turns the j-th face-down slot (players reach for different
            # tiles); only when more flip than lie face down do two turn the same tile
            flips = 0
            for i in range(p):
                flips += committed[g, i] == FLIP_ACTION
            monkeys = np.int64(up_count[g, MONKEY])
            if flips:
                found = 0
                for j in range(t):
                    if found < flips and start[j] == FACE_DOWN:
                        slots[found] = j
                        found += 1
                r = 0
                for i in range(p):
                    if committed[g, i] != FLIP_ACTION:
                        continue
                    if found > 0:
                        slot = slots[min(r, found - 1)]
                        location[g, slot] = FACE_UP
                        if r < found:
                            kind = layout[g, slot]
                            up_count[g, kind] += 1
                            monkeys += kind == MONKEY
                    seat_phase[g, i] = TAKE
                    r += 1
            if monkeys < STOP:
                c = np.int64(card[g])
                # places: the fruit held since an earlier tick goes into a set (new sets first)
                for i in range(p):
                    a = np.int64(committed[g, i])
                    target[i] = num_sets[g, i] if a == NEW_SET else a - PLACE_BASE
                for i in range(p - 1, -1, -1):
                    if committed[g, i] == NEW_SET:
                        _open_set(g, i, num_sets, set_size, set_bits, set_bonus)
                for i in range(p):
                    a = committed[g, i]
                    if a < PLACE_BASE or a > NEW_SET:
                        continue
                    slot = held[g, i]
                    kind = layout[g, slot]
                    row = _zone_start(g, num_sets, i) + target[i]
                    bonus = IS_BONUS[c, kind]
                    before = set_value(c, np.int64(set_size[g, row]), np.int64(set_bits[g, row]), legal)
                    location[g, slot] = SET_BASE + i * S + target[i]
                    set_size[g, row] += 1
                    set_bits[g, row] |= KIND_BITS[kind]
                    set_bonus[g, row] += bonus
                    held[g, i] = NO_SLOT
                    seat_phase[g, i] = FLIP
                    if pay_scores:
                        after = set_value(c, np.int64(set_size[g, row]), np.int64(set_bits[g, row]), legal)
                        rewards[g, i] += after - before + CARD_BONUS[c] * bonus
                # B. takes: the copies face up at the start of the tick go to the takers of their type,
                # in a uniformly random order when several take the same type
                contested = False
                for i in range(p):
                    rank[i] = 0
                    for j in range(i + 1, p):
                        a = committed[g, i]
                        if TAKE_BASE <= a < PLACE_BASE and committed[g, j] == a:
                            contested = True
                if contested:
                    keys[g], sub = split(keys[g])
                    uniform(sub, order)
                    for i in range(p):
                        for j in range(p):
                            a = committed[g, i]
                            if j == i or not TAKE_BASE <= a < PLACE_BASE or committed[g, j] != a:
                                continue
                            if order[j] < order[i] or (order[j] == order[i] and j < i):
                                rank[i] += 1
                for i in range(p):
                    a = np.int64(committed[g, i])
                    if not TAKE_BASE <= a < PLACE_BASE:
                        continue
                    kind = a - TAKE_BASE
                    begin = np.int64(kind_start[g, kind])  # the type's copies follow each other in kind_slots
                    copies = kind_start[g, kind + 1] - begin
                    first = kind_slots[g, min(begin, t - 1)]
                    second = kind_slots[g, min(begin + 1, t - 1)]
                    first_up = copies >= 1 and start[first] == FACE_UP
                    second_up = copies >= 2 and start[second] == FACE_UP
                    if rank[i] < np.int64(first_up) + np.int64(second_up):
                        slot = first if first_up and rank[i] == 0 else second
                        location[g, slot] = HELD_BASE + i
                        held[g, i] = slot
                        up_count[g, kind] -= 1
                        taken[g, kind] += 1
                        seat_phase[g, i] = PLACE
            committed[g] = NO_ACTION
            to_move[g] = 0
            if monkeys >= STOP:
                _end_round(
                    g, keys, done, to_move, phase, seat_phase, round_index, starter, layout, location, up_count,
                    taken, kind_slots, held, num_sets, set_size, set_bits, set_bonus, seen_most, seen_once,
                    committed, deck, deck_pos, shown, card, cards_won, ended, legal, rounds_to_win, box_hidden,
                )  # fmt: skip
        phase[g] = OVER if done[g] else seat_phase[g, min(to_move[g], p - 1)]


@inner
def _end_round(
    g, keys, done, to_move, phase, seat_phase, round_index, starter, layout, location, up_count, taken,
    kind_slots, held, num_sets, set_size, set_bits, set_bonus, seen_most, seen_once, committed, deck, deck_pos,
    shown, card, cards_won, ended, legal, rounds_to_win, box_hidden,
):  # fmt: skip
    """Score the round: the richest player (then the one with most fruit) takes the card; ties all take one."""
    p = held.shape[1]
    for i in range(p):  # fruit in hand goes back to the table unplaced
        slot = held[g, i]
        if slot >= 0:
            location[g, slot] = FACE_UP
            up_count[g, layout[g, slot]] += 1
            taken[g, layout[g, slot]] -= 1
        held[g, i] = NO_SLOT
        seat_phase[g, i] = FLIP
    earned = np.zeros(p, dtype=np.int64)
    fruit = np.zeros(p, dtype=np.int64)
    row = 0
    for i in range(p):
        earned[i] = zone_money(g, i, card, set_size, set_bits, set_bonus, num_sets, legal)
        for _ in range(num_sets[g, i]):
            fruit[i] += set_size[g, row]
            row += 1
    richest = earned.max()
    most = -1
    for i in range(p):
        if earned[i] == richest:
            most = max(most, fruit[i])
    tied, first, first_order = 0, -1, p
    for i in range(p):
        if earned[i] == richest and fruit[i] == most:
            cards_won[g, i] += 1
            tied += 1
            rel = (i - starter[g]) % p
            if rel < first_order:
                first, first_order = i, rel
    starter[g] = first
    deck_pos[g] += tied - 1  # the other tied players draw face down
    over = False
    for i in range(p):
        over |= cards_won[g, i] >= rounds_to_win
    if over:
        done[g] = True
        phase[g] = OVER
        ended[g] = True
        return
    if box_hidden:  # before the reshuffle: the copies of each type seen in play this round
        seen = np.zeros(TYPES, dtype=np.int64)
        for j in range(layout.shape[1]):
            if location[g, j] != FACE_DOWN and layout[g, j] < TYPES:
                seen[layout[g, j]] += 1
        for k in range(TYPES):
            seen_most[g, k] = max(seen_most[g, k], seen[k])
            seen_once[g, k] += seen[k] == 1
    round_index[g] += 1
    new_round(
        g, keys, layout, kind_slots, location, up_count, taken, held, num_sets, set_size, set_bits, set_bonus,
        seat_phase, committed, to_move, phase, deck, deck_pos, shown, card,
    )  # fmt: skip


@njit
def legal_mask(games, seat, done, seat_phase, up_count, num_sets, committed, f, only_undecided, mask):
    """Row i: seat `seat[i]` of game `games[i]`. Every seat that has not chosen this tick decides: flip
    (phase flip or take), take a face-up fruit type (phase take), place the held fruit into one of its
    sets or a new set (phase place). `only_undecided=False` gives a seat's choices even when it has
    already chosen (for resampling)."""
    for i in range(len(seat)):
        g, s = games[i], seat[i]
        if done[g] or (only_undecided and committed[g, s] != NO_ACTION):
            continue
        ph = seat_phase[g, s]
        if ph != PLACE:
            mask[i, FLIP_ACTION] = True  # a live round always has a face-down tile
        if ph == TAKE:
            for k in range(TYPES):
                mask[i, TAKE_BASE + k] = up_count[g, k] > 0
        elif ph == PLACE:
            for j in range(min(num_sets[g, s], f)):
                mask[i, PLACE_BASE + j] = True
            mask[i, NEW_SET] = num_sets[g, s] < f


# -- the observation -------------------------------------------------------------------------------


@inner
def _gains(g, s, done, card, layout, held, num_sets, set_size, set_bits, legal, out):
    """`out` (99, 3): per action of seat `s`, the money its zone gains and loses now (/ 10) and whether all
    its sets stay legal. A place: the held fruit into that set, or a new set; a take: the fruit's best
    immediate placement; flip and wait: nothing."""
    c = np.int64(card[g])
    count = np.int64(num_sets[g, s])
    start = _zone_start(g, num_sets, s)
    holding = held[g, s] >= 0 and not done[g]
    held_kind = min(np.int64(layout[g, held[g, s]]), TYPES - 1) if holding else 0
    for ty in range(TYPES):
        bonus = np.int64(IS_BONUS[c, ty]) * CARD_BONUS[c]
        alone = set_value(c, np.int64(1), KIND_BITS[ty], legal) + bonus
        best = alone
        fits = False
        for j in range(count):
            row = start + j
            size, bits = np.int64(set_size[g, row]), np.int64(set_bits[g, row])
            grown = bits | KIND_BITS[ty]
            into = set_value(c, size + 1, grown, legal) - set_value(c, size, bits, legal) + bonus
            best = max(best, into)
            stays = legal[grown]
            fits |= stays and legal[bits]
            if holding and ty == held_kind:
                out[PLACE_BASE + j, 0] = max(into, 0) * 0.1
                out[PLACE_BASE + j, 1] = max(-into, 0) * 0.1
                out[PLACE_BASE + j, 2] = stays
        out[TAKE_BASE + ty, 0] = max(best, 0) * 0.1
        out[TAKE_BASE + ty, 1] = max(-best, 0) * 0.1
        out[TAKE_BASE + ty, 2] = fits
        if holding and ty == held_kind:
            out[NEW_SET, 0] = max(alone, 0) * 0.1
            out[NEW_SET, 1] = max(-alone, 0) * 0.1
            out[NEW_SET, 2] = True


@njit
def gains_many(seat, done, layout, held, num_sets, set_size, set_bits, card, legal, out):
    for g in range(len(seat)):
        _gains(g, seat[g], done, card, layout, held, num_sets, set_size, set_bits, legal, out[g])


@njit
def observe(
    seat, done, seat_phase, starter, layout, location, up_count, taken, held, num_sets, set_size, set_bits,
    set_bonus, seen_most, seen_once, committed, deck, deck_pos, shown, card, cards_won, legal, box_hidden,
    offsets, card_table, held_rows, set_rows, value_pos, value_neg, options, obs,
):  # fmt: skip
    """Each game's observation for its `seat`, into zeroed `obs`; `offsets` are the starts of
    `rules.observation_layout`'s blocks in their order, seat blocks listing the observer first."""
    p = num_sets.shape[1]
    t = layout.shape[1]
    width = p + SET_FEATURES
    flags = np.zeros(N_CARDS, dtype=np.bool_)
    earned = np.zeros(p, dtype=np.int64)
    fruit = np.zeros(p, dtype=np.int64)
    for g in range(len(seat)):
        s = seat[g]
        o = obs[g]
        live = not done[g]
        c = np.int64(card[g])
        for k in range(card_table.shape[1]):
            o[offsets[0] + k] = card_table[c, k]
        face_down = pile(g, deck, shown, deck_pos, flags)
        for k in range(N_CARDS):
            o[offsets[1] + k] = flags[k]
        o[offsets[1] + N_CARDS] = face_down
        for k in range(TYPES):
            o[offsets[2] + k] = up_count[g, k]
            o[offsets[3] + k] = taken[g, k]
        monkeys = min(np.int64(up_count[g, MONKEY]), STOP) if live else STOP
        if monkeys < STOP:
            o[offsets[4] + monkeys] = 1.0
        down = 0
        for j in range(t):
            down += location[g, j] == FACE_DOWN
        o[offsets[5]] = down / t
        if box_hidden:
            for k in range(TYPES):
                o[offsets[6] + 2 * k] = seen_most[g, k]
                o[offsets[6] + 2 * k + 1] = seen_once[g, k]
        for r in range(p):
            a = (s + r) % p
            ph = seat_phase[g, a] if live else OVER
            if ph < OVER:
                o[offsets[7] + 3 * r + ph] = 1.0
            slot = held[g, a]
            kind = np.int64(layout[g, slot]) if slot >= 0 else KINDS
            for k in range(HELD_FEATURES):
                o[offsets[8] + HELD_FEATURES * r + k] = held_rows[c * (KINDS + 1) + kind, k]
            earned[r] = fruit[r] = 0
        # sets: one row per set, the observer's first (row j is its set j), then each other seat's in turn
        total = 0
        for i in range(p):
            total += num_sets[g, i]
        mine = _zone_start(g, num_sets, s)
        row = np.int64(0)
        for owner in range(p):
            rel = (owner - s) % p
            for _ in range(num_sets[g, owner]):
                at = (row - mine) % max(total, 1)
                base = offsets[9] + width * at
                size, bits = np.int64(set_size[g, row]), np.int64(set_bits[g, row])
                o[base + rel] = 1.0
                for k in range(SET_FEATURES):
                    o[base + p + k] = set_rows[bits, k]
                o[base + p] = size
                o[base + p + 1] = set_bonus[g, row]
                value_at = (c * (LARGEST + 1) + min(size, LARGEST)) * 2 + np.int64(legal[bits])
                o[base + p + 3] = value_pos[value_at]
                o[base + p + 4] = value_neg[value_at]
                earned[rel] += _set_money(g, row, c, set_size, set_bits, set_bonus, legal)
                fruit[rel] += size
                row += 1
        for r in range(p):
            a = (s + r) % p
            base = offsets[10] + PLAYER_FEATURES * r
            o[base] = num_sets[g, a]
            o[base + 1] = fruit[r]
            o[base + 2] = max(earned[r], 0) * 0.1
            o[base + 3] = max(-earned[r], 0) * 0.1
            o[base + 4] = cards_won[g, a]
        o[offsets[11] + (starter[g] - s) % p] = 1.0
        own = np.int64(committed[g, s])
        o[offsets[12]] = own != NO_ACTION
        o[offsets[12] + 1] = (own + 1) / NUM_ACTIONS
        for k in range(len(options)):
            o[offsets[13] + k] = options[k]
        _gains(g, s, done, card, layout, held, num_sets, set_size, set_bits, legal, o[offsets[14] :].reshape(-1, 3))


@njit
def advance(
    action, keys, done, to_move, step_count, phase, seat_phase, round_index, starter, in_play, kind_start, layout,
    location, up_count, taken, kind_slots, held, num_sets, set_size, set_bits, set_bonus, seen_most, seen_once,
    committed, deck, deck_pos, shown, card, cards_won, rewards, ended, legal, pay_scores, rounds_to_win, box_hidden,
    games, seats, masks, offsets, card_table, held_rows, set_rows, value_pos, value_neg, options, obs,
):  # fmt: skip
    """`step` of one live game, then every seat's mask (`games`, `seats`: every seat of it) and the
    observation of the seat to move afterwards, in one call: what an env of one game needs after each
    action (each kernel call first unpacks its arrays)."""
    actions = np.full(1, action, dtype=np.int64)
    step(
        actions, ~done, keys, done, to_move, step_count, phase, seat_phase, round_index, starter, in_play,
        kind_start, layout, location, up_count, taken, kind_slots, held, num_sets, set_size, set_bits, set_bonus,
        seen_most, seen_once, committed, deck, deck_pos, shown, card, cards_won, rewards, ended, legal,
        pay_scores, rounds_to_win, box_hidden,
    )  # fmt: skip
    legal_mask(games, seats, done, seat_phase, up_count, num_sets, committed, set_size.shape[1], np.bool_(True), masks)
    observe(
        to_move.astype(np.int64), done, seat_phase, starter, layout, location, up_count, taken, held, num_sets,
        set_size, set_bits, set_bonus, seen_most, seen_once, committed, deck, deck_pos, shown, card, cards_won,
        legal, box_hidden, offsets, card_table, held_rows, set_rows, value_pos, value_neg, options, obs,
    )  # fmt: skip
