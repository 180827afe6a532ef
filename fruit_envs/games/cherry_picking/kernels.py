"""Cherry Picking's rules as compiled kernels, each a loop over the games of a batch: the one source of
dealing, stepping, scoring, masks and observations that `rules` calls (numba; see `core.kernels`).

Card ids, phases and observation blocks are `rules`' and `components`' (passed in as arguments or
constants), the state's arrays parameters named after `rules.State`'s fields (see `core.kernels`); the
comments name the rulebook steps the loops carry out.
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core.kernels import inner, njit, permutation, split
from fruit_envs.games.cherry_picking import components as C

COMMIT, CHOOSE, OVER = 0, 1, 2
NO_CARD = -1
N_CARDS = C.N_CARD_TYPES
CHOOSE_BASE = N_CARDS
N_PLANTS = C.N_PLANTS
N_SORTS = len(C.SORTS)
N_VALUES = len(C.FRUIT_VALUES)
LADDER, WILDCARD = C.LADDER, C.WILDCARD
FRUIT_BASE, BASKET_BASE = C.FRUIT_BASE, C.BASKET_BASE
SETS = C.SETS_PER_GAME
SALAD = C.BONUS_SALAD
CARD_VALUE = C.CARD_VALUE.astype(np.int64)
CARD_SORT = C.CARD_SORT.astype(np.int64)


@inner
def deal(g, keys, deck, hand, hands, piles, plants, played, aside, phase, to_move):
    """Shuffle every card in play and deal a set to game `g`: one card under each plant, `hand` cards to
    each seat, the rest (at most one) aside unseen."""
    keys[g], sub = split(keys[g])
    order = permutation(sub, len(deck))
    p = hands.shape[1]
    for k in range(N_PLANTS):
        plants[g, k] = deck[order[k]]
    hands[g] = 0
    for j in range(p * hand):
        hands[g, j // hand, deck[order[N_PLANTS + j]]] += 1
    aside[g] = deck[order[N_PLANTS + p * hand]] if len(deck) > N_PLANTS + p * hand else NO_CARD
    piles[g] = 0
    played[g] = NO_CARD
    phase[g] = COMMIT
    to_move[g] = 0


@njit
def deal_all(keys, to_move, phase, hands, piles, plants, played, aside, deck, hand):
    for g in range(len(keys)):
        deal(g, keys, deck, hand, hands, piles, plants, played, aside, phase, to_move)


@inner
def pile_parts(pile, counts):
    """What `score_pile` scores a pile by: its cards' values, ladders and wildcards (returned), its fruit per
    sort (into `counts`)."""
    total = np.int64(0)
    for c in range(N_CARDS):
        total += pile[c] * CARD_VALUE[c]
    for sort in range(N_SORTS):
        counts[sort] = 0
        for value in range(N_VALUES):
            counts[sort] += pile[FRUIT_BASE + sort * N_VALUES + value]
    return total, np.int64(pile[LADDER]), np.int64(pile[WILDCARD])


@inner
def pile_bonus(counts, wild, table, assign, n_assign) -> np.int64:
    """The salad and same-sort bonuses of fruit `counts` with `wild` wildcards, each wildcard counted as the
    fruit that scores best."""
    best = np.int64(-1)
    for k in range(n_assign[wild]):
        low = np.int64(1 << 30)
        bonus = np.int64(0)
        for sort in range(N_SORTS):
            count = counts[sort] + assign[wild, k, sort]
            low = min(low, count)
            bonus += table[count]
        best = max(best, SALAD * low + bonus)
    return best


@inner
def pile_bonuses(counts, wild, table, assign, n_assign, more) -> np.int64:
    """`pile_bonus(counts, wild)` (returned) and, into `more[sort]`, the bonus with one more fruit of each sort,
    in one pass over the wildcards' assignments (a greedy seat prices every plant's card with them); one more
    wildcard is worth `max(more)`, as a wildcard stands for exactly one fruit of any sort."""
    best = np.int64(-1)
    for sort in range(N_SORTS):
        more[sort] = -1
    for k in range(n_assign[wild]):
        bonus, low, second = np.int64(0), np.int64(1 << 30), np.int64(1 << 30)
        for sort in range(N_SORTS):
            count = counts[sort] + assign[wild, k, sort]
            bonus += table[count]
            if count < low:
                low, second = count, low
            elif count < second:
                second = count
        best = max(best, SALAD * low + bonus)
        for sort in range(N_SORTS):
            count = counts[sort] + assign[wild, k, sort]
            raised = min(count + 1, second) if count == low else low  # the lowest count with this sort's raised
            more[sort] = max(more[sort], SALAD * raised + bonus - table[count] + table[count + 1])
    return best


@inner
def score_plus(total, ladders, bonus, more, card) -> np.int64:
    """`score_pile` of the pile with these `pile_parts` and bonuses (`pile_bonuses`: `bonus`, `more`) and one more
    `card` (-1: none, and `more` is not read): card values + ladders squared + bonuses. Only a fruit or a
    wildcard changes the bonuses, so a greedy seat prices each plant's card without counting the pile again."""
    if card >= 0:
        total += CARD_VALUE[card]
        ladders += card == LADDER
        if CARD_SORT[card] >= 0:
            bonus = more[CARD_SORT[card]]
        elif card == WILDCARD:
            bonus = more.max()
    return total + ladders * ladders + bonus


@inner
def score_pile(pile, table, assign, n_assign) -> np.int64:
    """A harvest pile's points (`pile`: count per card)."""
    counts = np.zeros(N_SORTS, dtype=np.int64)
    total, ladders, wild = pile_parts(pile, counts)
    return score_plus(total, ladders, pile_bonus(counts, wild, table, assign, n_assign), counts, -1)


@njit
def score_many(piles, table, assign, n_assign, out):
    for i in range(len(piles)):
        out[i] = score_pile(piles[i], table, assign, n_assign)


@njit
def legal_mask(games, seat, done, to_move, phase, hands, played, mask):
    """Row i: seat `seat[i]` of game `games[i]`. Commit: a seat that has not committed may play any hand
    card. Choose: the chooser picks a plant."""
    for i in range(len(seat)):
        g, s = games[i], seat[i]
        if done[g]:
            continue
        if phase[g] == COMMIT and played[g, s] == NO_CARD:
            for c in range(N_CARDS):
                mask[i, c] = hands[g, s, c] > 0
        elif phase[g] == CHOOSE and to_move[g] == s:
            for k in range(N_PLANTS):
                mask[i, CHOOSE_BASE + k] = True


@inner
def _harvest_fruits(g, played, plants, piles):
    """Step 3 of the reveal: each fruit takes what the next higher card of its sort left on its plant
    (the plant's card for the highest), and the lowest card of each sort stays on the plant."""
    p = played.shape[1]
    received = np.full(p, NO_CARD, dtype=np.int64)
    lowest = np.zeros(p, dtype=np.bool_)
    for i in range(p):
        card = played[g, i]
        if card < 0 or CARD_SORT[card] < 0:
            continue
        sort, value = CARD_SORT[card], CARD_VALUE[card]
        up, up_value, is_lowest = -1, 99, True
        for j in range(p):
            other = played[g, j]
            if other < 0 or CARD_SORT[other] != sort:
                continue
            if CARD_VALUE[other] > value and CARD_VALUE[other] < up_value:
                up, up_value = j, CARD_VALUE[other]
            if CARD_VALUE[other] < value:
                is_lowest = False
        received[i] = played[g, up] if up >= 0 else plants[g, sort]
        lowest[i] = is_lowest
    for i in range(p):
        if received[i] == NO_CARD:
            continue
        piles[g, i, received[i]] += 1
        if lowest[i]:
            plants[g, CARD_SORT[played[g, i]]] = played[g, i]
    for i in range(p):
        if received[i] != NO_CARD:
            played[g, i] = NO_CARD


@inner
def _resolve(g, phase, to_move, hands, piles, plants, played) -> bool:
    """Resolve the revealed cards in rulebook order until a player must choose; True when the trick ends."""
    p = played.shape[1]
    phase[g] = CHOOSE
    for card in (LADDER, WILDCARD):  # 1 ladders, 2 wildcards: a lone one chooses, several go to the piles
        count, first = 0, -1
        for i in range(p):
            if played[g, i] == card:
                count += 1
                if first < 0:
                    first = i
        if count == 1:
            to_move[g] = first
            return False
        if count >= 2:
            for i in range(p):
                if played[g, i] == card:
                    piles[g, i, card] += 1
                    played[g, i] = NO_CARD
    _harvest_fruits(g, played, plants, piles)  # 3 fruits
    best, chooser = NO_CARD, -1  # 4 baskets: the highest chooses first
    for i in range(p):
        if played[g, i] >= BASKET_BASE and played[g, i] > best:
            best, chooser = played[g, i], i
    if chooser >= 0:
        to_move[g] = chooser
        return False
    phase[g] = COMMIT
    to_move[g] = 0
    return True


@njit
def step(
    actions, live, keys, done, to_move, step_count, phase, set_index, hands, piles, plants, played, aside,
    set_scores, scores, rewards, ended, deck, hand, pay_scores, table, assign, n_assign,
):  # fmt: skip
    """One decision in each `live` game, in place; `ended[g]` marks the games whose third set just ended
    (their outcome is paid by `rules`, from `core.spec.outcome_rewards`)."""
    p = hands.shape[1]
    for g in range(len(actions)):
        if not live[g]:
            continue
        seat = to_move[g]
        resolve = False
        if phase[g] == COMMIT:
            card = actions[g]
            played[g, seat] = card
            hands[g, seat, card] -= 1
            to_move[g] += 1
            resolve = to_move[g] == p
        elif phase[g] == CHOOSE:
            plant = actions[g] - CHOOSE_BASE
            piles[g, seat, plants[g, plant]] += 1
            plants[g, plant] = played[g, seat]
            played[g, seat] = NO_CARD
            resolve = True
        step_count[g] += 1
        if not resolve or not _resolve(g, phase, to_move, hands, piles, plants, played):
            continue
        set_over = True
        for c in range(N_CARDS):
            if hands[g, 0, c] > 0:
                set_over = False
        if not set_over:
            continue
        for k in range(p):  # the set's piles are scored and added to the totals
            points = np.int16(score_pile(piles[g, k], table, assign, n_assign))
            set_scores[g, set_index[g], k] = points
            scores[g, k] += points
            if pay_scores:
                rewards[g, k] += points
        set_index[g] += 1
        if set_index[g] == SETS:
            done[g] = True
            phase[g] = OVER
            ended[g] = True
        else:
            deal(g, keys, deck, hand, hands, piles, plants, played, aside, phase, to_move)


@njit
def observe(seat, done, to_move, phase, set_index, hands, piles, plants, played, scores, hand_size, obs):
    """Each game's observation for its `seat`, into zeroed `obs`; block offsets follow
    `rules.observation_layout` (hand, committed, plants, piles, revealed, phase, chooser, set, scores,
    tricks left), seat-relative blocks listing the observer first."""
    p = hands.shape[1]
    committed = N_CARDS
    plants_at = 2 * N_CARDS
    piles_at = plants_at + N_PLANTS * N_CARDS
    revealed_at = piles_at + p * N_CARDS
    phase_at = revealed_at + p * N_CARDS
    chooser_at = phase_at + 2
    set_at = chooser_at + p
    scores_at = set_at + SETS
    tricks_at = scores_at + p
    for g in range(len(seat)):
        s = seat[g]
        held = 0.0
        for c in range(N_CARDS):
            obs[g, c] = hands[g, s, c]
            held += hands[g, s, c]
        own = np.int64(played[g, s])  # int64: card ids plus offsets overflow int8 (NUMBA_DISABLE_JIT runs)
        if own >= 0:
            obs[g, committed + own] = 1.0
            held += 1.0
        for k in range(N_PLANTS):
            if plants[g, k] >= 0:
                obs[g, plants_at + k * N_CARDS + np.int64(plants[g, k])] = 1.0
        live = not done[g]
        for r in range(p):
            a = (s + r) % p
            for c in range(N_CARDS):
                obs[g, piles_at + r * N_CARDS + c] = piles[g, a, c]
            if phase[g] == CHOOSE and played[g, a] >= 0:
                obs[g, revealed_at + r * N_CARDS + np.int64(played[g, a])] = 1.0
            if live and phase[g] == CHOOSE and to_move[g] == a:
                obs[g, chooser_at + r] = 1.0
            obs[g, scores_at + r] = scores[g, a] / 100.0
        if live and phase[g] == COMMIT:
            obs[g, phase_at] = 1.0
        if live and phase[g] == CHOOSE:
            obs[g, phase_at + 1] = 1.0
        obs[g, set_at + min(np.int64(set_index[g]), SETS - 1)] = 1.0
        obs[g, tricks_at] = held / hand_size


@njit
def advance(
    action, keys, done, to_move, step_count, phase, set_index, hands, piles, plants, played, aside, set_scores,
    scores, rewards, ended, masks, obs, deck, hand, pay_scores, table, assign, n_assign,
):  # fmt: skip
    """`step` of one live game, then every seat's mask and the observation of the seat to move afterwards,
    in one call: what an env of one game needs after each action (each kernel call first unpacks its
    arrays, so the fewer the better)."""
    actions = np.full(1, action, dtype=np.int64)
    games, seats = np.zeros(len(masks), dtype=np.int64), np.arange(len(masks))  # every seat of the one game
    live = ~done
    step(
        actions, live, keys, done, to_move, step_count, phase, set_index, hands, piles, plants, played, aside,
        set_scores, scores, rewards, ended, deck, hand, pay_scores, table, assign, n_assign,
    )  # fmt: skip
    legal_mask(games, seats, done, to_move, phase, hands, played, masks)
    observe(to_move.astype(np.int64), done, to_move, phase, set_index, hands, piles, plants, played, scores, hand, obs)
