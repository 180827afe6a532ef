"""Quickity Pickity component data (COMPONENTS.md §3) and every assumption we made where it is silent.

FOUND = stated by the rulebook or a public source; ASSUMED = our reconstruction. A user who owns the
game and finds a difference corrects it here, in one place.

Gaps this module fills, each an ASSUMED reading:

* Fruit types: 32 types = 2 expressions x 4 colours x 4 shapes, 2 copies each (COMPONENTS.md §3;
  the only factorisation giving 16 colour/shape pairs, one bonus fruit per card). Colour and shape
  names are placeholders; only the ids matter.
* Marketplace cards: one card is FOUND (the rulebook example), one partly; the rest are COMPONENTS.md
  §3's reconstruction. Every colour x shape pair is the bonus fruit of exactly one card.
* Bonus fruit in an illegal (-10) set still earns its bonus (the rulebook says so for negative sets;
  we read an illegal set as one more negative set).
* Two players: "Once only 2 players remain (not counting the monkeys), return about half the fruit
  tiles to the box." is read as: at setup a uniformly random half of the 64 fruit tiles (32) goes back
  to the box unseen by every player and stays there for the whole game; the 3 monkeys stay, 35 tiles
  in play (option `two_player_tiles="random_half"`, the default). Which fruit are in play is then
  hidden information, learned by flipping: tiles are reshuffled every round, so a seat knows per fruit
  type the most copies it saw in play in one round and in how many rounds it saw one copy (each such
  round doubles the odds that both copies are in play; `rules.redeal_hidden` draws the box from that
  exact posterior). Options: `"one_of_each"` plays one copy of each of the 32 types (a known half: sets
  of 5 or more fruit cannot be built), `"all"` all 67 tiles.
* Player counts: the box says 2-5 players (COMPONENTS.md §3); the rulebook itself names no count.
* Sets: "You can build any number of sets." A zone never holds more sets than fruit in play, so the
  action space has a place action for each of `MAX_SETS` = 64 set slots (the fruit of the full game)
  and "new set" is legal whenever a player holds a fruit; the observation has a row per fruit in play
  (32 or 64) for each zone.
* Taking is optional: "A. Flip ... B. Take any face-up tile" gives the order, not a duty to take a
  fruit one does not want; a player who has flipped may flip another tile instead of taking (as at
  the table). A player must flip before taking again after placing.
* Real time (the rulebook's race) is modelled as simultaneous ticks, one step of the cycle per player
  per tick (the rules module and the environment page give the details). Within a tick flips come
  first: when they bring the third monkey up, the tick's takes and places do not happen ("all
  players stop moving ... If you are holding any fruit in your hand at this time, you cannot add it
  to any of your sets"). The tile a player flips is the next face-down tile of the shuffled layout
  (which tile is flipped carries no information); players flipping together turn different tiles
  unless fewer lie face down. Several players taking the same type: the copies face up go to
  takers drawn uniformly at random; the other takes fail.
* Round winner tie after "most fruit": fruit counted are the fruit in the player's sets (a fruit held
  in hand when play stops is not in the zone). The tied players take cards in seat order starting
  from the round's starting player; the first of them takes the current card, becomes the next
  starting player, and the others draw from the pile. The starting player changes nothing else in
  the tick model (everyone starts together).
* Tied round winners after the first take a card from the pile face down, unseen by every player: a
  won card's face never matters again, so nobody looks at it; what the other players know of the pile
  is the cards shown as round cards and how many were taken face down.
* Several players reaching 3 cards in the same round: COMPONENTS.md's tie-break (most cards, then
  most fruit this round) can never separate them - they reach 3 only as tied round winners, who
  have equal money and fruit and one card each - so they share the win.
* Marketplace pile running out (possible only when players x `rounds_to_win` exceeds 16, i.e. with
  `rounds_to_win` above 3): the 16 card faces are shuffled into a new pile; a won card still counts.
"""

from __future__ import annotations

import numpy as np

EXPRESSIONS = ("sweet", "sour")  # FOUND (rulebook: "2 kinds of facial expression: sweet and sour")
COLOURS = ("red", "yellow", "green", "purple")  # ASSUMED names (COMPONENTS.md §3)
SHAPES = ("round", "long", "bunch", "drop")  # ASSUMED names (COMPONENTS.md §3)
COPIES = 2  # FOUND: "32 types, 2 of each"
N_MONKEYS = 3  # FOUND
MONKEYS_TO_STOP = 3  # FOUND: "When 3 monkeys are face up, all players stop moving"
ILLEGAL_SET = -10  # FOUND
CARDS_TO_WIN = 3  # FOUND: "whoever collects 3 marketplace cards first"
TWO_PLAYER_FRUIT = 32  # ASSUMED: "about half" = exactly half of the 64 fruit tiles stay in play with 2 players
LARGEST_SIZE = 7  # FOUND: the card's last column is "7+"

N_FRUIT_TYPES = len(EXPRESSIONS) * len(COLOURS) * len(SHAPES)  # 32
MONKEY = N_FRUIT_TYPES  # tile kind 32; fruit kind = 16 * expression + 4 * colour + shape
N_KINDS = N_FRUIT_TYPES + 1  # 33
N_FRUIT = N_FRUIT_TYPES * COPIES  # 64 fruit tiles in the box
MAX_SETS = N_FRUIT  # "You can build any number of sets": a zone never holds more sets than fruit in play
TWO_PLAYER_TILES = ("random_half", "one_of_each", "all")  # option values (the first is the default)

# Marketplace cards: values for set sizes 1..6 and 7+, (colour, shape) of the bonus fruit, bonus.
CARDS = (
    ((-2, -1, 1, 1, 2, 2, 4), ("red", "round"), 1),  # FOUND (rulebook example)
    ((-2, -1, 1, 3, 6, -3, 9), ("yellow", "long"), 1),  # sizes 5/6/7+ FOUND (boardseyeview), rest ASSUMED
    ((-1, 0, 1, 2, 3, 4, 5), ("green", "bunch"), 1),  # ASSUMED from here on (COMPONENTS.md §3)
    ((-3, -2, 0, 2, 4, 6, 8), ("purple", "drop"), 1),
    ((-1, 2, -1, 3, -1, 5, 0), ("red", "long"), 2),  # even sizes pay
    ((-2, 0, 3, 5, 2, 0, -2), ("yellow", "bunch"), 1),  # medium sets best, big sets punished
    ((-4, -3, -2, 0, 3, 6, 10), ("green", "drop"), 1),  # big-set gamble
    ((0, 1, 1, 2, 2, 2, 2), ("purple", "round"), 2),  # flat
    ((-1, -1, 3, -1, -1, 6, 0), ("red", "bunch"), 1),  # multiples of three
    ((-3, -1, 1, 3, 5, 3, 1), ("yellow", "drop"), 1),  # peak at 5
    ((-2, -2, 2, 2, 2, 2, 2), ("green", "round"), 3),  # bonus-heavy
    ((-5, -3, 0, 2, 4, 6, 8), ("purple", "long"), 2),  # harsh small-set penalty
    ((1, -1, -2, 0, 3, 5, 7), ("red", "drop"), 1),
    ((-2, -1, 0, 2, 2, 4, 4), ("yellow", "round"), 2),
    ((-1, 0, 2, 2, -4, 4, 6), ("green", "long"), 1),  # size-5 trap
    ((-2, 0, 1, 4, 1, 4, 7), ("purple", "bunch"), 1),
)
N_CARDS = len(CARDS)  # 16


def kind_of(expression: str, colour: str, shape: str) -> int:
    return 16 * EXPRESSIONS.index(expression) + 4 * COLOURS.index(colour) + SHAPES.index(shape)


def tile_name(kind: int) -> str:
    kind = int(kind)
    if kind == MONKEY:
        return "monkey"
    if not 0 <= kind < N_FRUIT_TYPES:
        raise ValueError(f"no Quickity Pickity tile has kind {kind}; kinds are 0..{N_KINDS - 1}")
    e, rest = divmod(kind, 16)
    c, s = divmod(rest, 4)
    return f"{EXPRESSIONS[e]} {COLOURS[c]} {SHAPES[s]}"


TILE_NAMES = tuple(tile_name(k) for k in range(N_KINDS))


def tile_from_name(name: str) -> int:
    try:
        return TILE_NAMES.index(" ".join(str(name).lower().split()))
    except ValueError:
        raise ValueError(
            f"unknown Quickity Pickity tile {name!r}; tiles are 'monkey' or '<expression> <colour> <shape>' "
            f"with expression in {EXPRESSIONS}, colour in {COLOURS}, shape in {SHAPES}"
        ) from None


KIND_EXPRESSION = np.array([k // 16 if k < MONKEY else -1 for k in range(N_KINDS)], dtype=np.int8)
KIND_COLOUR = np.array([(k % 16) // 4 if k < MONKEY else -1 for k in range(N_KINDS)], dtype=np.int8)
KIND_SHAPE = np.array([k % 4 if k < MONKEY else -1 for k in range(N_KINDS)], dtype=np.int8)

# Attribute bits of a tile: bit e (expression), 2 + c (colour), 6 + s (shape); a set's bits are the
# OR of its tiles' bits, so legality is a lookup in a 1,024-entry table.
N_BITS = 10
KIND_BITS = np.zeros(N_KINDS, dtype=np.int16)
for _k in range(N_FRUIT_TYPES):
    KIND_BITS[_k] = (
        (1 << int(KIND_EXPRESSION[_k])) | (1 << (2 + int(KIND_COLOUR[_k]))) | (1 << (6 + int(KIND_SHAPE[_k])))
    )


def _legal_table(ignore_expression: bool) -> np.ndarray:
    bits = np.arange(1 << N_BITS)

    def present(shift: int, width: int) -> np.ndarray:
        return sum((bits >> (shift + i)) & 1 for i in range(width))

    same_expression = present(0, 2) <= 1
    same_colour = present(2, 4) <= 1
    same_shape = present(6, 4) <= 1
    legal = same_colour | same_shape
    return legal if ignore_expression else legal & same_expression


SET_LEGAL = _legal_table(False)  # (1024,) bool: all one expression and (one colour or one shape)
SET_LEGAL_FAMILY = _legal_table(True)  # family rule: expression ignored

# Card tables: value by set size 0..7 (size 0 = no set = 0; size >= 7 reads column 7), bonus.
CARD_VALUES = np.zeros((N_CARDS, LARGEST_SIZE + 1), dtype=np.int16)
CARD_BONUS_KIND = np.zeros((N_CARDS, 2), dtype=np.int8)  # (colour, shape)
CARD_BONUS = np.zeros(N_CARDS, dtype=np.int16)
for _c, (_values, (_colour, _shape), _bonus) in enumerate(CARDS):
    CARD_VALUES[_c, 1:] = _values
    CARD_BONUS_KIND[_c] = (COLOURS.index(_colour), SHAPES.index(_shape))
    CARD_BONUS[_c] = _bonus
# SET_VALUE[card, min(size, 7), legal]: money of a set (0 for size 0, -10 when illegal)
SET_VALUE = np.full((N_CARDS, LARGEST_SIZE + 1, 2), ILLEGAL_SET, dtype=np.int16)
SET_VALUE[:, :, 1] = CARD_VALUES
SET_VALUE[:, 0] = 0
# IS_BONUS[card, kind]: the tile is that card's bonus fruit (colour and shape; any expression)
IS_BONUS = (KIND_COLOUR[None, :] == CARD_BONUS_KIND[:, :1]) & (KIND_SHAPE[None, :] == CARD_BONUS_KIND[:, 1:])


def card_text(card: int) -> str:
    values, (colour, shape), bonus = CARDS[int(card)]
    return f"card {int(card)}: sizes 1..7+ pay {' '.join(f'{v:+d}' for v in values)}; bonus {colour} {shape} +{bonus}"


def box_is_hidden(num_players: int, two_player_tiles: str = "random_half") -> bool:
    """Whether a random half of the fruit lies in the box unseen (2 players, option `random_half`)."""
    return num_players == 2 and two_player_tiles == "random_half"


def fruit_in_play(num_players: int, two_player_tiles: str = "random_half") -> int:
    """Fruit tiles on the table: 32 with 2 players (unless option `all`), else all 64."""
    return TWO_PLAYER_FRUIT if num_players == 2 and two_player_tiles != "all" else N_FRUIT


def tile_counts(num_players: int, two_player_tiles: str = "random_half") -> np.ndarray:
    """`(33,) int8` copies of each tile kind in play where that is fixed (not for a hidden random half)."""
    if two_player_tiles not in TWO_PLAYER_TILES:
        raise ValueError(f"two_player_tiles must be one of {list(TWO_PLAYER_TILES)}, got {two_player_tiles!r}")
    if box_is_hidden(num_players, two_player_tiles):
        raise ValueError(
            "with 2 players and two_player_tiles='random_half' the fruit in play are a random half drawn per "
            "game (State.in_play); no fixed tile counts exist"
        )
    copies = 1 if num_players == 2 and two_player_tiles == "one_of_each" else COPIES
    counts = np.full(N_KINDS, copies, dtype=np.int8)
    counts[MONKEY] = N_MONKEYS
    return counts


def tiles(num_players: int, two_player_tiles: str = "random_half") -> np.ndarray:
    """The tiles in play where fixed, one kind per tile, sorted: `(T,) int8` (T = 67, or 35 with one of each)."""
    return np.repeat(np.arange(N_KINDS, dtype=np.int8), tile_counts(num_players, two_player_tiles))


def box_prior_tiles() -> np.ndarray:
    """`(64,) int8` the 64 fruit tiles, sorted: the random half in play is drawn from these."""
    return np.repeat(np.arange(N_FRUIT_TYPES, dtype=np.int8), COPIES)
