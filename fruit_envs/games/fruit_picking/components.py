"""Fruit Picking component data (COMPONENTS.md §1) and the assumptions we made where the rulebook is silent.

FOUND = stated by the rulebook or a public source; ASSUMED = our reconstruction. A user who owns the
game and finds a difference corrects it here, in one place.

Gaps this module fills, each an ASSUMED reading:

* Market cards show the same number of fruits as the farm card of their kind (COMPONENTS.md §1).
* Umbrella effect: each player moves min(fruits on that farm card, own storage) seeds from storage
  onto their own farm card of the umbrella's fruit. With market operation, option
  `umbrella_trigger` says which draws count: "drawn" (default, COMPONENTS.md: every card taken from
  the stack, so both cards of a two-card draw) or "placed" (only the card put face up in the market,
  which keeps the other card secret).
* Market operation: the drawer pays 1 seed from the House card to storage (seeds are money), and may
  only do so when the House holds a seed and the stack holds at least two cards. The two cards are
  seen by the drawer only and the card put under the stack goes face down; everyone sees who drew
  and that the card went under, and players remember (perfect recall): whoever saw a card knows it
  wherever it lies in the stack, and who knows which card is public. An umbrella shown by a
  two-card draw (`umbrella_trigger="drawn"`) identifies the card to everyone (one umbrella per kind).
* The "no seeds" procedure also applies when a House target sends a player back to planting and no
  farm card (other than the House) has a seed: the repeated turn starts in that situation.
* "When the last card is drawn from the stack" ends the game at the end of the round even if a card
  later returns to the bottom of the stack through market operation.
* Nobody completed a set (the stack ran out): the tie-breaks decide among all players (most fruits
  on market cards, then most seeds on farm cards including the House, else shared).
* Beginner rules: the game ends when a player owns 5 market cards (this replaces the set
  condition); the owners of 5 cards are the set completers for the winner rule.
* The initial player is seat 0; a round ends after seat n-1; 2-4 players use the same setup.
* A round cap (option `max_rounds`) truncates games that could otherwise go on for ever (players may
  water for ever), and a decision cap of `DECISIONS_PER_TURN_CAP` per turn on average bounds House
  replanting loops; both end the game as truncated.
"""

from __future__ import annotations

import numpy as np

KINDS = ("pineapple", "grapes", "cherry", "banana", "strawberry")  # FOUND: market kinds
FARM_TYPES = ("house", "rain") + KINDS  # FOUND: the 7 farm cards of a set
HOUSE, RAIN = 0, 1
FARM_COUNT = np.array([0, 2, 1, 1, 2, 2, 3], dtype=np.int8)  # FOUND: fruits/raindrops by FARM_TYPES
MARKET_COUNT = FARM_COUNT[2:].copy()  # ASSUMED: fruits on a market card, by KINDS
MARKET_COPIES = 6  # FOUND: 6 cards of each kind, 30 in all
UMBRELLAS_PER_KIND = 1  # FOUND: one card of each kind carries an umbrella
SLOT_SURCHARGE = (3, 2, 1, 0)  # FOUND: slot 0 is next to the stack
SLOT_SURCHARGE_BEGINNER = (0, 0, 0)  # FOUND: 3 slots, no added price
SEEDS_PER_PLAYER = 18  # FOUND
INITIAL_SEEDS = (2, 2, 2)  # FOUND: on the first three cards clockwise from the House
N_POSITIONS = 7  # the House at position 0, then six cards clockwise
REFILL_HOUSE_RETURN = 3  # FOUND: "takes 3 seeds from the House card"
REFILL_SOW = 3  # FOUND: 1 seed on each of the first three cards
MARKET_OPERATION_FEE = 1  # FOUND: "pay 1 seed"
BEGINNER_CARDS_TO_END = 5  # FOUND
DECISIONS_PER_TURN_CAP = 12  # ASSUMED engine bound, see the module docstring

# A market card's code: kind index + 5 if it carries an umbrella (0..9); -1 = no card.
N_CODES = 2 * len(KINDS)
NO_CARD = -1


def code(kind: str, umbrella: bool = False) -> int:
    return KINDS.index(kind) + len(KINDS) * int(umbrella)


def code_kind(card) -> np.ndarray:
    return np.asarray(card) % len(KINDS)


def card_name(card: int) -> str:
    if card < 0:
        return "empty"
    kind, umbrella = KINDS[card % len(KINDS)], card >= len(KINDS)
    return f"{kind} (umbrella)" if umbrella else kind


def card_from_name(name: str) -> int:
    text = name.strip().lower()
    umbrella = text.endswith("(umbrella)")
    kind = text.removesuffix("(umbrella)").strip()
    if kind not in KINDS:
        raise ValueError(f"unknown market card {name!r}; cards are a kind {list(KINDS)}, optionally 'KIND (umbrella)'")
    return code(kind, umbrella)


def deck_counts() -> np.ndarray:
    """`(10,)` copies of each card code: 5 plain and 1 umbrella card per kind."""
    counts = np.zeros(N_CODES, dtype=np.int8)
    counts[: len(KINDS)] = MARKET_COPIES - UMBRELLAS_PER_KIND
    counts[len(KINDS) :] = UMBRELLAS_PER_KIND
    return counts


SETS = ("variety", "greedy", "smiley", "family")  # FOUND


def completed_sets(kind_counts: np.ndarray) -> np.ndarray:
    """`(..., 4)` bool: Variety (5 kinds), Greedy (4 identical), Smiley (three distinct pairs),
    Family (three of a kind and a pair of another kind) from counts per kind `(..., 5)` (computed by the
    rules' kernel `kernels.sets_of`, their one source)."""
    from fruit_envs.core.lazy import kernels_of

    c = np.asarray(kind_counts, dtype=np.int64)
    flat = np.ascontiguousarray(c.reshape(-1, len(KINDS)))
    out = np.zeros((len(flat), len(SETS)), dtype=bool)
    kernels_of(__package__)().sets_many(flat, out)
    return out.reshape(c.shape[:-1] + (len(SETS),))
