"""Cherry Picking component data (COMPONENTS.md §2) and the assumptions we made where it is silent.

FOUND = stated by the rulebook or a public source; ASSUMED = our reconstruction. A user who owns the
game and finds a difference corrects it here, in one place.

Gaps this module fills, each an ASSUMED reading:

* 5-6 players: the rulebook lists removals for 2-4 players only; the game box says 2-6. We play 5-6
  with no cards removed (COMPONENTS.md §2).
* Cards under the plants at the end of a set are not scored; all cards are reshuffled for the next
  set (COMPONENTS.md §2).
* Same-sort bonus beyond five of a sort: the rulebook says a bonus fulfilled more than once "with
  different cards" pays more than once. We read this per sort too: a pile's cards of one sort are
  split into groups of four (10) and five (20) to maximise the bonus, so 9 cherries pay 5 + 4 = 30.
  Option `same_sort_bonus="once"` pays at most one same-sort bonus per sort (4 -> 10, 5+ -> 20).
* Commitment order: cards are chosen simultaneously. Environments that take one decision at a time
  (AEC, single-agent, vector) collect them seat by seat, 0, 1, ..., and nobody sees another's choice
  before the reveal, so the order has no effect on play.
* Ties for the highest total after three sets: every tied player wins (shared win).
"""

from __future__ import annotations

from functools import cache

import numpy as np

SORTS = ("pineapple", "pear", "banana", "cherry", "orange", "grape")  # FOUND
FRUIT_VALUES = tuple(range(7))  # FOUND: each sort 0..6
BASKET_VALUES = (0, 2, 3, 4, 5, 6, 7, 8, 9)  # FOUND: no basket of value 1
N_LADDERS, N_WILDCARDS = 11, 5  # FOUND
N_PLANTS = 6  # FOUND
SETS_PER_GAME = 3  # FOUND
BONUS_SALAD, BONUS_FOUR, BONUS_FIVE = 10, 10, 20  # FOUND

# players -> (ladders removed, wildcards removed, fruit values removed, basket values removed)
REMOVE = {
    2: (11, 2, (5, 6), (8, 9)),  # FOUND
    3: (2, 2, (5, 6), (8, 9)),  # FOUND
    4: (1, 1, (6,), (9,)),  # FOUND
    5: (0, 0, (), ()),  # ASSUMED
    6: (0, 0, (), ()),  # ASSUMED
}

# Card types: one id per distinct card. Ladders and wildcards are interchangeable copies.
LADDER = 0
WILDCARD = 1
FRUIT_BASE = 2  # fruit id = FRUIT_BASE + sort * 7 + value
BASKET_BASE = FRUIT_BASE + len(SORTS) * len(FRUIT_VALUES)  # 44; basket id = BASKET_BASE + index
N_CARD_TYPES = BASKET_BASE + len(BASKET_VALUES)  # 53


def fruit_id(sort: str, value: int) -> int:
    return FRUIT_BASE + SORTS.index(sort) * len(FRUIT_VALUES) + value


def basket_id(value: int) -> int:
    return BASKET_BASE + BASKET_VALUES.index(value)


def card_name(card: int) -> str:
    if card == LADDER:
        return "ladder"
    if card == WILDCARD:
        return "wildcard"
    if FRUIT_BASE <= card < BASKET_BASE:
        sort, value = divmod(card - FRUIT_BASE, len(FRUIT_VALUES))
        return f"{SORTS[sort]} {value}"
    if BASKET_BASE <= card < N_CARD_TYPES:
        return f"basket {BASKET_VALUES[card - BASKET_BASE]}"
    raise ValueError(f"no Cherry Picking card has id {card}; ids are 0..{N_CARD_TYPES - 1}")


CARD_NAMES = tuple(card_name(c) for c in range(N_CARD_TYPES))


def card_from_name(name: str) -> int:
    try:
        return CARD_NAMES.index(name.strip().lower())
    except ValueError:
        raise ValueError(
            f"unknown Cherry Picking card {name!r}; cards are named like 'ladder', 'wildcard', 'cherry 4', 'basket 7'"
        ) from None


CARD_VALUE = np.zeros(N_CARD_TYPES, dtype=np.int16)
CARD_SORT = np.full(N_CARD_TYPES, -1, dtype=np.int8)
for _sort in range(len(SORTS)):
    for _value in FRUIT_VALUES:
        CARD_VALUE[FRUIT_BASE + _sort * 7 + _value] = _value
        CARD_SORT[FRUIT_BASE + _sort * 7 + _value] = _sort
for _j, _value in enumerate(BASKET_VALUES):
    CARD_VALUE[BASKET_BASE + _j] = _value
IS_FRUIT = CARD_SORT >= 0
IS_BASKET = np.arange(N_CARD_TYPES) >= BASKET_BASE


@cache
def _deck_counts(num_players: int) -> np.ndarray:
    ladders_out, wild_out, fruit_values_out, basket_values_out = REMOVE[num_players]
    counts = np.zeros(N_CARD_TYPES, dtype=np.int8)
    counts[LADDER] = N_LADDERS - ladders_out
    counts[WILDCARD] = N_WILDCARDS - wild_out
    for sort in SORTS:
        for value in FRUIT_VALUES:
            counts[fruit_id(sort, value)] = value not in fruit_values_out
    for value in BASKET_VALUES:
        counts[basket_id(value)] = value not in basket_values_out
    counts.setflags(write=False)
    return counts


def deck_counts(num_players: int) -> np.ndarray:
    """`(53,) int8` copies of each card type in play for this player count."""
    if num_players not in REMOVE:
        raise ValueError(f"Cherry Picking has card removals for {sorted(REMOVE)} players, not {num_players}")
    return _deck_counts(num_players)


@cache
def hand_size(num_players: int) -> int:
    """Cards per hand: what is in play minus one under each plant, dealt evenly (FOUND arithmetic)."""
    return (int(deck_counts(num_players).sum()) - N_PLANTS) // num_players
