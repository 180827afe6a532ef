"""Juicy Fruits component data (COMPONENTS.md §4) and the assumptions we made where the rulebook is silent.

FOUND = stated by the Juicy Fruits rulebook or a public source listed in
COMPONENTS.md; ASSUMED = our reconstruction. The board, the token list, the ship orders and the
business rows are pictures we do not have: a user who owns the game corrects them here, in one place.

Gaps this module fills, each an ASSUMED reading (options name the ones where both readings are plausible):

* Island: 5 x 5, ponds at the centre and the four corners of the inner 3 x 3, 12 ships on the
  non-corner edge cells, 3 per beach. Outer corners are ordinary free spaces; option
  `corners_playable=False` makes them unusable (one reviewer's "3 x 3 inner grid" reading).
* Buoys: A-F on alternating beach cells starting at the north beach's west cell, G-L between them,
  both clockwise ("G starts beside A").
* Ships: 50 orders reconstructed from the constraints found (25 per bag, two fruit types per order,
  2 bananas + 1 orange = 2 points). Which bag a player draws first (A-F) is a free choice that
  changes nothing of substance; we flip a coin per player. Option `ship_setup="mixed"` is the
  rulebook's "more random setup" (one bag of 50, any order).
* Business rows: costs and points of rows 1-4 (row 5 FOUND: 3 oranges + 3 bananas for 5 points).
  Tokens do not slide along a row when one is claimed (the slots are just waiting spaces).
* Business tokens: 3 small venues + 6 placeholders + 4 stalls + 5 advanced collectors + 6 ice cream
  carts = 24 (the rulebook's list lost a line break; the crocodile farm is FOUND to be a placeholder).
  Shapes, points, stars of all but the crocodile farm, which tokens bear the catering symbol, the
  third cart colour (pink) and the advanced collectors' fruit pairs are ASSUMED.
* Large venues may be rotated (FOUND), never mirrored (ASSUMED).
* Ice cream stacks grouped by colour: green 8 x3 (FOUND) and 7 x3, blue 6 x2 and 5 x2, pink 4 x3; costs
  of blue and pink ASSUMED (green = 1 lime + 1 orange FOUND). A milkshake costs 2 fruits of any one
  type, the player's choice (FOUND "2 fruits of one type"; "any" ASSUMED).
* License track: 8 / 10 / 12 steps to X for 2 / 3 / 4 players.
* Movement: straight and orthogonal over empty spaces only; every token (ship, collector, business
  token, large venue) blocks, and a move ends on an empty space; a move of 0 spaces is no move.
* Advanced collector: it yields exactly one fruit per space (either of its two types) - taking none
  is never better, as fruit has no cost and no limit - so a move of d spaces yields d + 1 fruits in
  any split between its two types.
* Ice cream production: the markers are produced during the cart's move, at most one per space
  moved, each paid separately; their order does not matter, so the player names the markers one by
  one and stops when it likes.
* A supplied ship leaves its beach space: the space it covered becomes a free island space
  ("the ship lies on the beach and the adjacent island space is covered").
* A claim needs room: a free space for a 1-space token, a free area of the large venue's shape for
  a placeholder. A claim that empties a business row does not move the license marker beyond the
  claim's own step. Emptying an ice cream stack and claiming in one turn are two steps.
* Start player: seat 0 (the rulebook's "most recently ate a fruit"); the tie-break favours the
  player who took their turn last, so seat n-1 wins a tie with anyone.
* Round cap (engine safety net, not a rule): nothing forces anyone to move the license marker, so a
  game can go on for ever within the rules (players may shuttle collectors, or an island can block
  itself so that nothing moves and nothing can be claimed). After `ROUND_CAP` = 100 rounds a game the
  rules have not ended is cut off: `truncated=True`, no outcome paid, stalls not scored (the
  end-of-game scoring belongs to the rules' end). At the end of a round a *frozen* game (no seat can
  do anything on its turn but pass: nothing movable, no ship paid for, no token paid for with room
  for it, no factory disc able to advance) is cut off the same way at once, as it could only reach the
  cap. 100 rounds, not 40 (v0): random 2-player games end by the rules around round 47 (99% by 68).
* Lemonade stand: part of the 24, used only with the juice factory; in the basic game it never
  reaches the board ("just replace it with another random token" = draw from the other 23).

Juice factory (option `score_board="juicy"`, COMPONENTS.md §4.8), ASSUMED where the rulebook's
pictures would tell:

* The graph (`FACTORY_NODES`, `FACTORY_ARROWS`): the start tank S, singles A1-A3, tank T1, singles
  B1-B2, tank T2, singles C1-C2, finals X1-X2; costs, points and bottles as listed. Every circle of a
  tank shows the same points and bottle.
* Tanks have no circle positions: a player's discs in the same tank always stack ("you must place
  your arriving disc on top of it"), so a tank holds at most one circle per colour and its 4 circles
  are never all taken with 4 players or fewer; a tank never blocks.
* A final circle, once reached, is blocked for everybody, the reaching player's other disc included
  ("For the rest of the game, that circle is blocked" read over "... or your second factory disc").
* "Pay the fruit cost only once": the second disc rides free exactly when it takes the arrow the
  first disc took this turn (it then necessarily started on the same circle); it lands on its own
  disc, so it scores nothing, as the rulebook's parenthesis says.
* The license track of the juicy side has the same lengths as the basic side's (8 / 10 / 12).
* Factory circle points are a score source of their own ("factory"); the lemonade stand is a stall.
* The rulebook's factory examples name circles in pictures we do not have; the tests replay each on
  the nearest situation of this graph.

Score attack (game id `juicy_fruits_solo`): OUR OWN single-player mode for single-agent RL, NOT
the official solo mode (a supplementary sheet we do not have, with solo boards and solo-boat values;
COMPONENTS.md §4.9). Every rule of it is ASSUMED:

* One island, set up as in the basic game; the license marker on the 2-player space (8 steps); the
  business display of a 2-player game (the 2 leftmost waiting spaces of each row, 10 tokens); the
  game's other tokens (13, or 14 with the factory) form a face-down pile whose contents are public.
* At the end of every round (after the player's turn) a rival empties one slot: the leftmost token
  of row 1, 2, 3, 4, 5, 1, ... in turn (row = rounds completed before this one, mod 5) returns to the
  box without moving the license marker; then every empty one of the 10 display spaces is refilled
  from the pile, row 1 first and left to right, while the pile lasts.
* The game ends at the end of the round in which the license marker reaches X (as in the rulebook)
  or after `rounds` rounds (option, default `SOLO_ROUNDS` = 15, the limit COMPONENTS.md §4.9
  suggests); the round limit is the mode's own end, not a truncation. Stalls are scored as usual.
* Reward = the points scored (per-step score deltas); with one player there is no terminal +1/-1.
* Turns are the basic game's (and step 3 with `score_board="juicy"`).
"""

from __future__ import annotations

import numpy as np

# ----------------------------------------------------------------------------------------------
# Fruit (FOUND: five types, treated as unlimited)

FRUITS = ("banana", "lime", "pomegranate", "orange", "mangosteen")  # FOUND
FRUIT_LETTERS = "BLPOM"  # one letter per fruit, used in ship orders and island pictures
N_FRUITS = len(FRUITS)


def fruit_counts(letters: str) -> np.ndarray:
    """`(5,) int` fruit counts of an order written in letters, e.g. "BBO" = 2 bananas + 1 orange."""
    counts = np.zeros(N_FRUITS, dtype=np.int64)
    for ch in letters:
        if ch not in FRUIT_LETTERS:
            raise ValueError(f"fruit letters are {list(FRUIT_LETTERS)} ({', '.join(FRUITS)}), got {ch!r}")
        counts[FRUIT_LETTERS.index(ch)] += 1
    return counts


def fruit_dict_counts(d: dict) -> np.ndarray:
    """`(5,) int` counts from a dict {fruit name: count}."""
    counts = np.zeros(N_FRUITS, dtype=np.int64)
    for name, count in d.items():
        if name not in FRUITS:
            raise ValueError(f"fruits are {list(FRUITS)}, got {name!r}")
        counts[FRUITS.index(name)] = count
    return counts


# ----------------------------------------------------------------------------------------------
# Island (COMPONENTS.md §4.2). Cells are numbered row-major, 0..24; columns a-e, rows 1-5 from the top.
#
#         a    b    c    d    e
#    1    .    A    G    B    .      north beach = A G B
#    2    L    p    .    p    H      east  beach = H C I
#    3    F    .    p    .    C      south beach = D J E
#    4    K    p    .    p    I      west  beach = K F L
#    5    .    E    J    D    .      p = pond (collector start), . = free island space

SIZE = 5  # FOUND
N_CELLS = SIZE * SIZE
PONDS = ((1, 1), (1, 3), (2, 2), (3, 1), (3, 3))  # FOUND (boardseyeview)
BEACH_CLOCKWISE = (  # FOUND: the 12 non-corner edge cells hold the ships; ASSUMED: clockwise from A
    (0, 1), (0, 2), (0, 3), (1, 4), (2, 4), (3, 4), (4, 3), (4, 2), (4, 1), (3, 0), (2, 0), (1, 0),
)  # fmt: skip
BUOY_LETTERS = "AGBHCIDJEKFL"  # ASSUMED: letter of each beach position above (A-F alternate with G-L)
FIRST_BAG_POSITIONS = (0, 2, 4, 6, 8, 10)  # ASSUMED: buoys A-F take the first bag, G-L the other
BEACHES = {"north": (0, 1, 2), "east": (3, 4, 5), "south": (6, 7, 8), "west": (9, 10, 11)}  # FOUND: 4 x 3
CORNERS = ((0, 0), (0, 4), (4, 0), (4, 4))  # ASSUMED playable (option corners_playable)
N_SHIPS_PER_ISLAND = len(BEACH_CLOCKWISE)

# ----------------------------------------------------------------------------------------------
# Ships (COMPONENTS.md §4.3): (order, points). ASSUMED orders; FOUND: 25 per bag, two fruit types
# per order, "BBO" = 2 points, 50 in all.

GREEN_BAG = (  # ASSUMED: light orders
    ("BBL", 2), ("BBP", 2), ("BBO", 2), ("BBM", 2), ("LLB", 2),
    ("LLP", 2), ("LLO", 2), ("LLM", 2), ("PPB", 2), ("PPL", 2),
    ("PPO", 2), ("PPM", 2), ("OOB", 2), ("OOL", 2), ("OOP", 2),
    ("OOM", 2), ("MMB", 2), ("MML", 2), ("MMP", 2), ("MMO", 2),
    ("BP", 1), ("LO", 1), ("PM", 1), ("OB", 1), ("ML", 1),
)  # fmt: skip
ORANGE_BAG = (  # ASSUMED: heavy orders
    ("BBLL", 3), ("BBPP", 3), ("BBOO", 3), ("BBMM", 3), ("LLPP", 3),
    ("LLOO", 3), ("LLMM", 3), ("PPOO", 3), ("PPMM", 3), ("OOMM", 3),
    ("BBBL", 3), ("BBBP", 3), ("LLLP", 3), ("LLLO", 3), ("PPPO", 3),
    ("PPPM", 3), ("OOOM", 3), ("OOOB", 3), ("MMMB", 3), ("MMML", 3),
    ("BBBLL", 4), ("LLLPP", 4), ("PPPOO", 4), ("OOOMM", 4), ("MMMBB", 4),
)  # fmt: skip
SHIPS = GREEN_BAG + ORANGE_BAG  # ship id = index: 0..24 green bag, 25..49 orange bag
N_SHIP_TYPES = len(SHIPS)
SHIP_NAMES = tuple(f"{order}/{points}" for order, points in SHIPS)  # e.g. "BBO/2"
SHIP_COST = np.array([fruit_counts(order) for order, _ in SHIPS], dtype=np.int16)  # (50, 5)
SHIP_POINTS = np.array([points for _, points in SHIPS], dtype=np.int16)  # (50,)

# ----------------------------------------------------------------------------------------------
# Business board (COMPONENTS.md §4.4): 5 rows of 4 waiting spaces; each row's clerk asks one price.

N_ROWS, ROW_SLOTS = 5, 4  # FOUND
ROWS = (  # (cost, points)
    ({"orange": 1, "lime": 1}, 1),  # ASSUMED
    ({"pomegranate": 2, "banana": 1}, 2),  # ASSUMED
    ({"mangosteen": 2, "lime": 2}, 3),  # ASSUMED
    ({"pomegranate": 2, "mangosteen": 2, "lime": 1}, 4),  # ASSUMED
    ({"orange": 3, "banana": 3}, 5),  # FOUND (rulebook example: the blue ice cream cart's row)
)
ROW_COST = np.array([fruit_dict_counts(cost) for cost, _ in ROWS], dtype=np.int16)  # (5, 5)
ROW_POINTS = np.array([points for _, points in ROWS], dtype=np.int16)  # (5,)
TOKENS_PER_ROW = {2: 2, 3: 3, 4: 4}  # FOUND: the leftmost 2 / 3 / all 4 waiting spaces of each row

# ----------------------------------------------------------------------------------------------
# Business tokens (COMPONENTS.md §4.5)

SMALL_VENUE, PLACEHOLDER, STALL, ADVANCED_COLLECTOR, ICE_CREAM_CART = range(5)
KIND_NAMES = ("small venue", "placeholder", "stall", "advanced collector", "ice cream cart")

# Shapes of what a token covers once placed (cells at rotation 0, (row, col)); rotations allowed.
SINGLE, SQUARE, BAR3, CORNER3, BAR2 = range(5)
SHAPES = (
    ((0, 0),),  # every 1-space token
    ((0, 0), (0, 1), (1, 0), (1, 1)),  # 2 x 2 (crocodile farm: FOUND)
    ((0, 0), (0, 1), (0, 2)),  # 1 x 3, ASSUMED
    ((0, 0), (1, 0), (1, 1)),  # 3-space L, ASSUMED
    ((0, 0), (0, 1)),  # 1 x 2, ASSUMED
)
SHAPE_NAMES = ("1 space", "2x2", "1x3", "L of 3", "1x2")

COLOURS = ("green", "blue", "pink")  # FOUND: three cart colours, 2 carts each; "pink" ASSUMED
STALL_CHAIRS, STALL_CATERING, STALL_INFO, STALL_LEMONADE = range(4)

# (code, name, kind, shape, points, stars, catering symbol, fruit pair or stall type or colour)
# code: the short word shown on island pictures and accepted by from_description ("BL+": the advanced
# collector of bananas and limes, whose token shows "+1").
TOKENS = (
    ("tower", "Viewing tower", SMALL_VENUE, SINGLE, 3, 1, False, None),  # ASSUMED points and stars
    ("museum", "Museum", SMALL_VENUE, SINGLE, 2, 2, False, None),  # ASSUMED
    ("observatory", "Observatory", SMALL_VENUE, SINGLE, 1, 3, False, None),  # ASSUMED
    ("croc", "Crocodile farm", PLACEHOLDER, SQUARE, 12, 1, False, None),  # FOUND 2x2 for 12; stars ASSUMED
    ("spa", "Thermal spa", PLACEHOLDER, SQUARE, 12, 1, False, None),  # ASSUMED
    ("climbing", "Climbing park", PLACEHOLDER, BAR3, 8, 1, False, None),  # ASSUMED
    ("diving", "Diving school", PLACEHOLDER, CORNER3, 8, 2, False, None),  # ASSUMED
    ("birds", "Bird sanctuary", PLACEHOLDER, BAR2, 5, 2, False, None),  # ASSUMED
    ("eco", "Eco-hotel", PLACEHOLDER, BAR2, 4, 3, False, None),  # ASSUMED
    ("chairs", "Beach chair rental", STALL, SINGLE, 0, 0, False, STALL_CHAIRS),  # FOUND
    ("catering", "Catering service", STALL, SINGLE, 0, 0, False, STALL_CATERING),  # FOUND
    ("info", "Info booth", STALL, SINGLE, 0, 0, False, STALL_INFO),  # FOUND
    ("lemonade", "Lemonade stand", STALL, SINGLE, 0, 0, False, STALL_LEMONADE),  # FOUND: factory only
    ("BL+", "Advanced collector banana/lime", ADVANCED_COLLECTOR, SINGLE, 0, 0, True, (0, 1)),  # ASSUMED pairs
    ("LP+", "Advanced collector lime/pomegranate", ADVANCED_COLLECTOR, SINGLE, 0, 0, False, (1, 2)),
    ("PO+", "Advanced collector pomegranate/orange", ADVANCED_COLLECTOR, SINGLE, 0, 0, True, (2, 3)),
    ("OM+", "Advanced collector orange/mangosteen", ADVANCED_COLLECTOR, SINGLE, 0, 0, False, (3, 4)),
    ("MB+", "Advanced collector mangosteen/banana", ADVANCED_COLLECTOR, SINGLE, 0, 0, True, (4, 0)),
    ("green1", "Green ice cream cart 1", ICE_CREAM_CART, SINGLE, 0, 0, True, 0),  # FOUND 2 per colour
    ("green2", "Green ice cream cart 2", ICE_CREAM_CART, SINGLE, 0, 0, False, 0),  # ASSUMED catering marks
    ("blue1", "Blue ice cream cart 1", ICE_CREAM_CART, SINGLE, 0, 0, True, 1),
    ("blue2", "Blue ice cream cart 2", ICE_CREAM_CART, SINGLE, 0, 0, False, 1),
    ("pink1", "Pink ice cream cart 1", ICE_CREAM_CART, SINGLE, 0, 0, True, 2),
    ("pink2", "Pink ice cream cart 2", ICE_CREAM_CART, SINGLE, 0, 0, False, 2),
)
N_TOKENS = len(TOKENS)  # FOUND: 24
LEMONADE = 12
TOKEN_CODES = tuple(t[0] for t in TOKENS)
TOKEN_NAMES = tuple(t[1] for t in TOKENS)
TOKEN_KIND = np.array([t[2] for t in TOKENS], dtype=np.int8)
TOKEN_SHAPE = np.array([t[3] for t in TOKENS], dtype=np.int8)
TOKEN_POINTS = np.array([t[4] for t in TOKENS], dtype=np.int16)  # venues: points on placement
TOKEN_STARS = np.array([t[5] for t in TOKENS], dtype=np.int16)  # venues: stars for the info booth
TOKEN_CATERING = np.array([t[6] for t in TOKENS], dtype=bool)  # mobile tokens with the catering symbol
TOKEN_FRUITS = np.array([t[7] if t[2] == ADVANCED_COLLECTOR else (-1, -1) for t in TOKENS], dtype=np.int8)
TOKEN_COLOUR = np.array([t[7] if t[2] == ICE_CREAM_CART else -1 for t in TOKENS], dtype=np.int8)
TOKEN_STALL = np.array([t[7] if t[2] == STALL else -1 for t in TOKENS], dtype=np.int8)
IS_MOBILE = np.isin(TOKEN_KIND, (ADVANCED_COLLECTOR, ICE_CREAM_CART))
IS_VENUE = np.isin(TOKEN_KIND, (SMALL_VENUE, PLACEHOLDER))
BASIC_GAME_TOKENS = tuple(t for t in range(N_TOKENS) if t != LEMONADE)  # FOUND: lemonade replaced

STALL_POINTS_PER_BEACH = 4  # FOUND: beach chair rental, per beach cleared of all its ships
STALL_POINTS_PER_CATERING = 4  # FOUND: catering service, per own mobile token with the symbol
STALL_POINTS_PER_STAR = 1  # FOUND: info booth

# ----------------------------------------------------------------------------------------------
# Ice cream and milkshake markers (COMPONENTS.md §4.6): stacks on the business board.

STACKS = (  # (name, colour index or -1 for milkshake, value, markers, cost per marker)
    ("green 8", 0, 8, 3, {"lime": 1, "orange": 1}),  # FOUND (value 8, 3 markers, cost)
    ("green 7", 0, 7, 3, {"lime": 1, "orange": 1}),  # FOUND value; count ASSUMED from "3, 3, 2, 2, 3"
    ("blue 6", 1, 6, 2, {"banana": 1, "mangosteen": 1}),  # ASSUMED
    ("blue 5", 1, 5, 2, {"banana": 1, "mangosteen": 1}),  # ASSUMED
    ("pink 4", 2, 4, 3, {"pomegranate": 1}),  # ASSUMED
    ("milkshake", -1, 3, 4, {}),  # FOUND: 3 points, 4 markers; cost 2 fruits of one type (any, ASSUMED)
)
N_STACKS = len(STACKS)
N_ICE_CREAM_STACKS = N_STACKS - 1
MILKSHAKE = N_STACKS - 1
MILKSHAKE_FRUITS = 2  # FOUND: "milkshake markers require 2 fruits of one type"
STACK_NAMES = tuple(s[0] for s in STACKS)
STACK_COLOUR = np.array([s[1] for s in STACKS], dtype=np.int8)
STACK_VALUE = np.array([s[2] for s in STACKS], dtype=np.int16)
STACK_SIZE = np.array([s[3] for s in STACKS], dtype=np.int8)
STACK_COST = np.array([fruit_dict_counts(s[4]) for s in STACKS], dtype=np.int16)  # (6, 5); milkshake row 0

# ----------------------------------------------------------------------------------------------
# License track (COMPONENTS.md §4.7)

LICENSE_STEPS = {2: 8, 3: 10, 4: 12}  # ASSUMED steps from the start space to X
ROUND_CAP = 100  # ASSUMED engine safety net: truncate after this many rounds (see the module docstring)

# ----------------------------------------------------------------------------------------------
# Juice factory (COMPONENTS.md §4.8): the juicy side of the score board, option score_board="juicy".
# FOUND: a start tank of 4 circles holding both factory discs of each player; single circles and tanks
# of 4 circles; a fruit cost on every arrow; points on circles; two final single circles with a
# license icon; bottles (lemonade stand) under the track. ASSUMED: the whole graph below (nodes,
# arrows, costs, points, bottles) - replace it here if you own the board. Every circle of a tank shows
# the same points and bottle (ASSUMED), so which free circle of a tank a disc takes never matters.
#
#   points in brackets; arrows show their cost in fruit letters (B L P O M)
#
#   S tank -B-> A1 (2) -P-+
#          -L-> A2 (1) -M-+-> T1 tank (1) -L--> B1 (2) -M-+-> T2 tank (2) -P--> C1 (3) -OB-> X1 (5, license)
#          -O-> A3 (2) -B-+               -OP-> B2 (3) -B-+               -LM-> C2 (4) -PO-> X2 (7, license)

FACTORY_NODES = (  # (name, tank of 4 circles?, points on each circle, bottle under it), ASSUMED
    ("S", True, 0, 0),  # FOUND: the start tank
    ("A1", False, 2, 1),
    ("A2", False, 1, 1),
    ("A3", False, 2, 1),
    ("T1", True, 1, 2),
    ("B1", False, 2, 3),
    ("B2", False, 3, 3),
    ("T2", True, 2, 4),
    ("C1", False, 3, 5),
    ("C2", False, 4, 5),
    ("X1", False, 5, 6),  # FOUND: two final circles with a license icon; points ASSUMED
    ("X2", False, 7, 6),
)
FACTORY_ARROWS = (  # (from, to, fruit cost), ASSUMED
    ("S", "A1", {"banana": 1}),
    ("S", "A2", {"lime": 1}),
    ("S", "A3", {"orange": 1}),
    ("A1", "T1", {"pomegranate": 1}),
    ("A2", "T1", {"mangosteen": 1}),
    ("A3", "T1", {"banana": 1}),
    ("T1", "B1", {"lime": 1}),
    ("T1", "B2", {"orange": 1, "pomegranate": 1}),
    ("B1", "T2", {"mangosteen": 1}),
    ("B2", "T2", {"banana": 1}),
    ("T2", "C1", {"pomegranate": 1}),
    ("T2", "C2", {"lime": 1, "mangosteen": 1}),
    ("C1", "X1", {"orange": 1, "banana": 1}),
    ("C2", "X2", {"pomegranate": 1, "orange": 1}),
)
FACTORY_START = "S"  # FOUND: both factory discs start stacked on a circle of the start tank
FACTORY_FINALS = ("X1", "X2")  # FOUND: license icon; blocked for the rest of the game once reached
FACTORY_DISCS = 2  # FOUND: the 2 spare player discs of each colour
TANK_CIRCLES = 4  # FOUND

N_NODES = len(FACTORY_NODES)
NODE_NAMES = tuple(node[0] for node in FACTORY_NODES)
NODE_IS_TANK = np.array([node[1] for node in FACTORY_NODES], dtype=bool)
NODE_POINTS = np.array([node[2] for node in FACTORY_NODES], dtype=np.int16)
NODE_BOTTLE = np.array([node[3] for node in FACTORY_NODES], dtype=np.int16)
NODE_IS_FINAL = np.isin(NODE_NAMES, FACTORY_FINALS)
START_NODE = NODE_NAMES.index(FACTORY_START)
N_ARROWS = len(FACTORY_ARROWS)
ARROW_NAMES = tuple(f"{a}-{b}" for a, b, _ in FACTORY_ARROWS)  # e.g. "S-A1"
ARROW_FROM = np.array([NODE_NAMES.index(a) for a, _, _ in FACTORY_ARROWS], dtype=np.int64)
ARROW_TO = np.array([NODE_NAMES.index(b) for _, b, _ in FACTORY_ARROWS], dtype=np.int64)
ARROW_COST = np.array([fruit_dict_counts(cost) for _, _, cost in FACTORY_ARROWS], dtype=np.int16)  # (14, 5)


def _node_depth() -> np.ndarray:
    """Arrows from the start tank to each node (the graph only leads forward)."""
    depth = np.full(N_NODES, -1, dtype=np.int64)
    depth[START_NODE] = 0
    for _ in range(N_NODES):
        for a in range(N_ARROWS):
            if depth[ARROW_FROM[a]] >= 0:
                depth[ARROW_TO[a]] = max(depth[ARROW_TO[a]], depth[ARROW_FROM[a]] + 1)
    return depth


NODE_DEPTH = _node_depth()  # S 0, A* 1, T1 2, B* 3, T2 4, C* 5, X* 6


def _check_factory() -> None:
    """The graph must be a forward graph from the start tank whose finals are dead ends."""
    if len(set(NODE_NAMES)) != N_NODES or not NODE_IS_TANK[START_NODE]:
        raise ValueError("factory nodes must have distinct names and the start must be a tank")
    if (NODE_DEPTH < 0).any():
        raise ValueError(f"factory nodes unreachable from the start: {np.array(NODE_NAMES)[NODE_DEPTH < 0].tolist()}")
    backward = NODE_DEPTH[ARROW_TO] <= NODE_DEPTH[ARROW_FROM]
    if backward.any() or NODE_IS_FINAL[ARROW_FROM].any():
        raise ValueError("factory arrows must lead forward and the final circles must be dead ends")
    if (NODE_IS_TANK & NODE_IS_FINAL).any():
        raise ValueError("the final circles are single circles")


_check_factory()

# ----------------------------------------------------------------------------------------------
# Score attack: OUR OWN single-player mode (game id "juicy_fruits_solo"), NOT the official solo rules,
# which are on a supplementary sheet we do not have (COMPONENTS.md §4.9). Every value is ASSUMED.

SOLO_TOKENS_PER_ROW = TOKENS_PER_ROW[2]  # the 2-player business display: the 2 leftmost waiting spaces
SOLO_LICENSE_STEPS = LICENSE_STEPS[2]  # the 2-player space of the license track
SOLO_ROUNDS = 15  # default round limit (option `rounds`), as COMPONENTS.md §4.9 suggests
SOLO_ROUND_CHOICES = (10, 15, 20, 30)
