"""Juicy Fruits' rules as compiled kernels, each a loop over the games of a batch: the one source of setup,
the turn's steps (move, harvest, produce, supply or claim, place, the juice factory), the end of a turn and
of the game (stalls, cut-offs, the score attack's rival and refill), masks, the observation and its action
hints that `rules` calls (numba; see `core.kernels`). Tables come from `components`, `geometry` and `rules`;
the turn's kernels take the state's arrays as one tuple `st`, read by named slots (`st[PHASE]`).
"""

from __future__ import annotations

import numpy as np

from fruit_envs.core.kernels import inner, njit, permutation, split, stable_argsort, uniform
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import geometry as G
from fruit_envs.games.juicy_fruits import rules as R

EMPTY, BLOCKED, SHIP, COLLECTOR, TOKEN, NO = R.EMPTY, R.BLOCKED, R.SHIP, R.COLLECTOR, R.TOKEN, R.NO
CELL, CLAIM, PASS, ROTATE, SPLIT = R.CELL, R.CLAIM, R.PASS, R.ROTATE, R.SPLIT
PRODUCE, MILKSHAKE = R.PRODUCE, R.MILKSHAKE
ARROW, NUM_ACTIONS, MAX_SPLIT = R.ARROW, R.NUM_ACTIONS, R.MAX_SPLIT
MOVE_TOKEN, MOVE_TO, HARVEST_SPLIT, PRODUCE_PHASE = R.MOVE_TOKEN, R.MOVE_TO, R.HARVEST_SPLIT, R.PRODUCE_PHASE
SUPPLY_OR_CLAIM, ROTATE_PHASE, PLACE, CLAIM_FRUIT, FACTORY, OVER = (
    R.SUPPLY_OR_CLAIM, R.ROTATE_PHASE, R.PLACE, R.CLAIM_FRUIT, R.FACTORY, R.OVER,
)  # fmt: skip
SHIPS_PTS, CLAIMS_PTS, VENUES_PTS, MARKERS_PTS, STALLS_PTS, FACTORY_PTS = range(len(R.SOURCES))
N_CELLS, OFF, N_ROT = G.N_CELLS, G.OFF, G.MAX_ROTATIONS
FRUITS, ROWS, ROW_SLOTS, N_SLOTS, N_TOKENS = C.N_FRUITS, C.N_ROWS, C.ROW_SLOTS, R.N_SLOTS, C.N_TOKENS
N_SHIPS, N_ICE, SHAKE, SHAKE_FRUITS = C.N_SHIPS_PER_ISLAND, C.N_ICE_CREAM_STACKS, C.MILKSHAKE, C.MILKSHAKE_FRUITS
N_ARROWS, N_NODES, N_DISCS = C.N_ARROWS, C.N_NODES, C.FACTORY_DISCS
N_HINTS, N_CHANNELS, N_SHIP_FEATURES = R.N_HINTS, R.N_CHANNELS, R.N_SHIP_FEATURES
H_LEGAL, H_GAINED, H_PAID, H_POINTS, H_SPACES = (
    R.HINT[k].start for k in ("legal", "fruit_gained", "fruit_paid", "points", "spaces")
)
H_SHIP_MISSING, H_SHIPS_READY, H_ROW_MISSING, H_ROWS_READY = (
    R.HINT[k].start for k in ("ship_missing", "ships_ready", "row_missing", "rows_ready")
)
H_MOVERS_FREE = R.HINT["movers_free"].start  # then mover_room and own_run

RAYS, DISTANCE = G.RAYS, G.DISTANCE.astype(np.int64)
BEACH_CELLS, POND_CELLS, CORNER_CELLS, BEACH_OF_CELL = G.BEACH_CELLS, G.POND_CELLS, G.CORNER_CELLS, G.BEACH_OF_CELL
PLACEMENT_CELLS, PLACEMENT_BITS, N_ROTATIONS = G.PLACEMENT_CELLS, G.PLACEMENT_BITS, G.N_ROTATIONS
_ON_ISLAND = PLACEMENT_BITS != G.IMPOSSIBLE  # every placement of each shape on the island, flattened
SHAPE_PLACEMENTS = np.concatenate([PLACEMENT_BITS[s][_ON_ISLAND[s]] for s in range(len(C.SHAPES))])
SHAPE_START = np.cumsum([0] + [int(_ON_ISLAND[s].sum()) for s in range(len(C.SHAPES))]).astype(np.int64)
BEACH_OF_POSITION = np.zeros(N_SHIPS, dtype=np.int64)  # which of the four beaches each beach position is on
for _b, _positions in enumerate(C.BEACHES.values()):
    BEACH_OF_POSITION[list(_positions)] = _b
N_BEACHES = len(C.BEACHES)
FIRST_POSITIONS = np.array(C.FIRST_BAG_POSITIONS, dtype=np.int64)
SECOND_POSITIONS = np.setdiff1d(np.arange(N_SHIPS), FIRST_POSITIONS).astype(np.int64)
PER_BAG = len(C.GREEN_BAG)

CODE_IS_MOBILE = R.CODE_IS_MOBILE.copy()
CODE_FEATURES_T = R.CODE_FEATURES_T.astype(np.float64)
CODE_FRUIT, CODE_BONUS = R.CODE_FRUIT.astype(np.float64), R.CODE_BONUS.astype(np.float64)
SHIP_FEATURES = R.SHIP_FEATURES.copy()
BOTTLE_OF_NODE = R.BOTTLE_OF_NODE.copy()
SHIP_COST, SHIP_POINTS = C.SHIP_COST.astype(np.int64), C.SHIP_POINTS.astype(np.int64)
ROW_COST, ROW_POINTS = C.ROW_COST.astype(np.int64), C.ROW_POINTS.astype(np.int64)
STACK_COST, STACK_VALUE = C.STACK_COST.astype(np.int64), C.STACK_VALUE.astype(np.int64)
STACK_COLOUR, STACK_SIZE = C.STACK_COLOUR.astype(np.int64), C.STACK_SIZE.astype(np.int64)
TOKEN_KIND, TOKEN_SHAPE = C.TOKEN_KIND.astype(np.int64), C.TOKEN_SHAPE.astype(np.int64)
TOKEN_POINTS, TOKEN_FRUITS = C.TOKEN_POINTS.astype(np.int64), C.TOKEN_FRUITS.astype(np.int64)
TOKEN_COLOUR, TOKEN_STALL = C.TOKEN_COLOUR.astype(np.int64), C.TOKEN_STALL.astype(np.int64)
TOKEN_STARS, TOKEN_CATERING = C.TOKEN_STARS.astype(np.int64), C.TOKEN_CATERING.copy()
IS_MOBILE, IS_VENUE, ADVANCED_COLLECTOR = C.IS_MOBILE.copy(), C.IS_VENUE.copy(), C.ADVANCED_COLLECTOR
STALL_CHAIRS, STALL_CATERING, STALL_INFO, STALL_LEMONADE = (
    C.STALL_CHAIRS, C.STALL_CATERING, C.STALL_INFO, C.STALL_LEMONADE,
)  # fmt: skip
PER_BEACH, PER_CATERING, PER_STAR = C.STALL_POINTS_PER_BEACH, C.STALL_POINTS_PER_CATERING, C.STALL_POINTS_PER_STAR
ARROW_FROM, ARROW_TO, ARROW_COST = C.ARROW_FROM.copy(), C.ARROW_TO.copy(), C.ARROW_COST.astype(np.int64)
NODE_IS_TANK, NODE_IS_FINAL, NODE_POINTS = C.NODE_IS_TANK.copy(), C.NODE_IS_FINAL.copy(), C.NODE_POINTS.astype(np.int64)
FINAL_NODES = np.flatnonzero(C.NODE_IS_FINAL).astype(np.int64)
MAX_BOTTLES, RUN_SCALE = float(R.MAX_BOTTLES), float(R.HINT_SCALE_RUN)

# Observation blocks, in the order `rules` lists their starts (-1: not in this configuration's layout).
BLOCKS = (
    "phase", "to_move", "seat", "round", "license_left", "final_round", "stacks", "board", "pending_cell",
    "pending_token", "pending_amount", "pending_rotation", "fruit", "scores", "ships", "islands", "hints",
    "factory_discs", "finals_taken", "bottles", "pending_arrow", "pile", "rival_row",
)  # fmt: skip
(
    O_PHASE, O_TO_MOVE, O_SEAT, O_ROUND, O_LICENSE, O_FINAL, O_STACKS, O_BOARD, O_CELL, O_TOKEN, O_AMOUNT,
    O_ROTATION, O_FRUIT, O_SCORES, O_SHIPS, O_ISLANDS, O_HINTS, O_DISCS, O_FINALS, O_BOTTLES, O_ARROW, O_PILE,
    O_RIVAL,
) = range(len(BLOCKS))  # fmt: skip


# -- the island ------------------------------------------------------------------------------------


@inner
def free_bits(row) -> np.int64:
    """25-bit mask of the empty cells of one island `row (25,)`."""
    out = np.int64(0)
    for c in range(N_CELLS):
        if row[c] == EMPTY:
            out |= np.int64(1) << np.int64(c)
    return out


@inner
def fits(free, table) -> bool:
    """Whether a placement's cells `table` are all free (off-island placements never are)."""
    return (free & table) == table


@inner
def shape_fits(free, shape) -> bool:
    """Whether `shape` fits somewhere, any rotation, on an island with free cells `free`."""
    for k in range(SHAPE_START[shape], SHAPE_START[shape + 1]):
        if fits(free, SHAPE_PLACEMENTS[k]):
            return True
    return False


@inner
def shapes_fit(free, out):
    """`out (5,)`: whether each shape fits somewhere, any rotation, on an island with free cells `free`."""
    for s in range(PLACEMENT_BITS.shape[0]):
        out[s] = shape_fits(free, s)


@njit
def shapes_fit_many(free, out):
    for i in range(len(free)):
        shapes_fit(free[i], out[i])


@inner
def is_free(row, c) -> bool:
    return c != OFF and row[c] == EMPTY


@inner
def movable(row, out) -> bool:
    """`out (25,)`: cells holding a collector or mobile business token with a free neighbour; any of them."""
    found = False
    for c in range(N_CELLS):
        ok = False
        if CODE_IS_MOBILE[row[c]]:
            for d in range(4):
                if is_free(row, RAYS[c, d, 0]):
                    ok = True
        out[c] = ok
        found |= ok
    return found


@inner
def any_movable(row) -> bool:
    for c in range(N_CELLS):
        if CODE_IS_MOBILE[row[c]]:
            for d in range(4):
                if is_free(row, RAYS[c, d, 0]):
                    return True
    return False


@inner
def anyone_can_move(islands) -> bool:
    """Whether a token of any of one game's `islands (P, 25)` can move."""
    for k in range(islands.shape[0]):
        if any_movable(islands[k]):
            return True
    return False


@inner
def destinations(row, start, out) -> bool:
    """`out (25,)`: cells reachable from `start` in a straight orthogonal line over free cells; any."""
    out[:] = False
    found = False
    for d in range(4):
        for k in range(RAYS.shape[2]):
            c = RAYS[start, d, k]
            if not is_free(row, c):
                break
            out[c] = found = True
    return found


@inner
def free_run(free, c) -> np.int64:
    """Longest straight run of free cells next to cell `c` (over its 4 directions); `free (25,)` bool."""
    best = 0
    for d in range(4):
        run = 0
        for k in range(RAYS.shape[2]):
            cc = RAYS[c, d, k]
            if cc == OFF or not free[cc]:
                break
            run += 1
        best = max(best, run)
    return best


@inner
def covers(have, cost) -> bool:
    """Whether a reserve `have (5,)` pays for `cost (5,)`."""
    for f in range(FRUITS):
        if have[f] < cost[f]:
            return False
    return True


@inner
def producible(have, stacks, colour, out) -> bool:
    """`out (10,)`: ice cream stacks 0..4 of the cart's `colour` and milkshakes of fruit 0..4 paid for now."""
    found = False
    for j in range(N_ICE):
        out[j] = STACK_COLOUR[j] == colour and stacks[j] > 0 and covers(have, STACK_COST[j])
        found |= out[j]
    for f in range(FRUITS):
        out[N_ICE + f] = stacks[SHAKE] > 0 and have[f] >= SHAKE_FRUITS
        found |= out[N_ICE + f]
    return found


@inner
def suppliable(have, ships, present, out) -> bool:
    """`out (12,)`: ships still waiting whose order the reserve covers."""
    found = False
    for k in range(N_SHIPS):
        out[k] = present[k] and covers(have, SHIP_COST[ships[k]])
        found |= out[k]
    return found


@inner
def claimable(have, board, row, out) -> bool:
    """`out (20,)`: waiting business tokens whose row the reserve pays for and that fit on island `row`."""
    free = free_bits(row)
    known = fitting = 0  # bits of the shapes tested so far, and of those that fit
    found = False
    for r in range(ROWS):
        paid = covers(have, ROW_COST[r])
        for k in range(ROW_SLOTS):
            t = np.int64(board[r, k])
            ok = paid and t >= 0
            if ok:
                bit = 1 << TOKEN_SHAPE[t]
                if not known & bit:
                    known |= bit
                    if shape_fits(free, TOKEN_SHAPE[t]):
                        fitting |= bit
                ok = (fitting & bit) != 0
            out[r * ROW_SLOTS + k] = ok
            found |= ok
    return found


@inner
def factory_moves(discs, seat, pending_disc, pending_arrow, have, out) -> bool:
    """`out (14,)`: arrows `seat` may advance a disc along now (step 3), from one game's `discs (P, 2)`.

    An arrow starts where a disc of the seat that has not moved this turn stands; it leads to a tank
    (always room), a single circle free or holding the seat's other disc, or a final circle nobody has
    reached; its fruit is in the reserve, unless it is the arrow the other disc just took.
    """
    found = False
    for a in range(N_ARROWS):
        to = ARROW_TO[a]
        at_source = False
        for d in range(N_DISCS):
            if d != pending_disc and discs[seat, d] == ARROW_FROM[a]:
                at_source = True
        total = own = 0
        for i in range(discs.shape[0]):
            for d in range(N_DISCS):
                if discs[i, d] == to:
                    total += 1
                    own += i == seat
        blocked = (not NODE_IS_TANK[to] and total > own) or (NODE_IS_FINAL[to] and total > 0)
        ok = at_source and not blocked and (a == pending_arrow or covers(have, ARROW_COST[a]))
        out[a] = ok
        found |= ok
    return found


@inner
def bottles(discs) -> np.int64:
    """Bottles beneath one player's factory discs `(2,)` (-1: no disc, no bottle)."""
    total = 0
    for d in range(discs.shape[0]):
        total += BOTTLE_OF_NODE[discs[d]]
    return total


@njit
def bottles_many(discs, out):
    for i in range(discs.shape[0]):
        out[i] = bottles(discs[i])


@inner
def stall_points(row, present, discs, factory) -> np.int64:
    """End-of-game stall points of one island: beach chairs 4 per beach cleared, catering 4 per own mobile
    token with the symbol, info booth 1 per star on own venues, lemonade stand the bottles under own discs."""
    owned = np.zeros(N_TOKENS, dtype=np.bool_)
    for c in range(N_CELLS):
        if row[c] >= TOKEN:
            owned[row[c] - TOKEN] = True
    stall = np.zeros(4, dtype=np.bool_)
    catering = stars = 0
    for t in range(N_TOKENS):
        if TOKEN_STALL[t] >= 0:
            stall[TOKEN_STALL[t]] = owned[t]
        catering += owned[t] and TOKEN_CATERING[t]
        stars += owned[t] * TOKEN_STARS[t]
    waiting = np.zeros(N_BEACHES, dtype=np.bool_)
    for k in range(N_SHIPS):
        waiting[BEACH_OF_POSITION[k]] |= present[k]
    cleared = 0
    for b in range(N_BEACHES):
        cleared += not waiting[b]
    total = stall[STALL_CHAIRS] * PER_BEACH * cleared + stall[STALL_CATERING] * PER_CATERING * catering
    total += stall[STALL_INFO] * PER_STAR * stars
    if factory:
        total += stall[STALL_LEMONADE] * bottles(discs)
    return total


@njit
def stall_points_many(island, present, discs, factory, out):
    for i in range(island.shape[0]):
        out[i] = stall_points(island[i], present[i], discs[i], factory)


# -- setup -----------------------------------------------------------------------------------------


@njit
def init(
    keys, island, ships, board, pile, start_island, tokens, per_row, mixed, solo,
):  # fmt: skip
    """Set up each game from its key: collectors on the ponds, ships dealt, the business board drawn."""
    p = island.shape[1]
    half = N_SHIPS // 2
    for g in range(len(keys)):
        keys[g], k_ponds = split(keys[g])
        keys[g], k_ships = split(keys[g])
        keys[g], k_bags = split(keys[g])
        keys[g], k_board = split(keys[g])
        u = np.empty(p * FRUITS, dtype=np.float64)
        uniform(k_ponds, u)
        for i in range(p):
            for c in range(len(start_island)):  # element by element (core.kernels)
                island[g, i, c] = start_island[c]
            ponds = stable_argsort(u[i * FRUITS : (i + 1) * FRUITS])
            for j in range(FRUITS):
                island[g, i, POND_CELLS[j]] = COLLECTOR + ponds[j]
            for c in BEACH_CELLS:
                island[g, i, c] = SHIP
        order = np.empty(2 * PER_BAG, dtype=np.float64)
        uniform(k_ships, order)
        if mixed:
            drawn = stable_argsort(order)
            for i in range(p):
                for k in range(N_SHIPS):
                    ships[g, i, k] = drawn[i * N_SHIPS + k]
        else:
            green = stable_argsort(order[:PER_BAG])
            orange = PER_BAG + stable_argsort(order[PER_BAG:])
            bag = np.empty(p, dtype=np.float64)
            uniform(k_bags, bag)
            for i in range(p):
                green_first = bag[i] < 0.5
                for k in range(half):
                    first, second = green[i * half + k], orange[i * half + k]
                    if not green_first:
                        first, second = second, first
                    ships[g, i, FIRST_POSITIONS[k]] = first
                    ships[g, i, SECOND_POSITIONS[k]] = second
        shuffled = tokens[permutation(k_board, len(tokens))]
        board[g] = NO
        for r in range(ROWS):
            for k in range(per_row):
                board[g, r, k] = shuffled[r * per_row + k]
        if solo:
            for j in range(ROWS * per_row, len(shuffled)):
                pile[g, shuffled[j]] = True


# -- the turn --------------------------------------------------------------------------------------
# `st` is the state's arrays in `rules.State`'s field order, as `rules._kernels` passes them
# (`core.lazy.StateKernels`); a kernel reads each by its field's slot, `st[PHASE]`, never by a number.
_SLOT = {name: i for i, name in enumerate(R.State.array_names())}


def _slots(names: str) -> tuple[int, ...]:
    """The slots in `st` of the fields `names` (space-separated)."""
    return tuple(_SLOT[name] for name in names.split())


KEYS, DONE, TRUNCATED, TO_MOVE, STEP_COUNT, PHASE = _slots("keys done truncated to_move step_count phase")
ROUND, ISLAND, SHIPS, SHIP_PRESENT, FRUIT, FRUIT_GAINED = _slots("round island ships ship_present fruit fruit_gained")
BOARD, STACKS, MARKERS, MILKSHAKE_PAID, CLAIMS, POINTS = _slots("board stacks markers milkshake_paid claims points")
LICENSE_LEFT, PENDING_CELL, PENDING_TOKEN = _slots("license_left pending_cell pending_token")
PENDING_AMOUNT, PENDING_ROTATION, DISCS, ARROWS_PAID = _slots("pending_amount pending_rotation discs arrows_paid")
CIRCLES_SCORED, PENDING_ARROW, PENDING_DISC, PILE = _slots("circles_scored pending_arrow pending_disc pile")


@inner
def license_step(license_left, g):
    """Move the license marker one step towards X (further movement is ignored)."""
    license_left[g] = max(np.int64(license_left[g]) - 1, 0)


@inner
def _clear_token_choices(st, g):
    """Forget game `g`'s pending cell, token, amount and rotation (steps 1 and 2)."""
    st[PENDING_CELL][g] = NO
    st[PENDING_TOKEN][g] = NO
    st[PENDING_AMOUNT][g] = 0
    st[PENDING_ROTATION][g] = NO


@inner
def clear_pending(st, g):
    """Forget every half-made decision of game `g` (cell, token, amount, rotation, arrow, disc)."""
    _clear_token_choices(st, g)
    st[PENDING_ARROW][g] = NO
    st[PENDING_DISC][g] = NO


@inner
def begin_turn(st, g):
    """Step 1 if some token can move, else it is forfeited and step 2 begins."""
    _clear_token_choices(st, g)
    island, to_move = st[ISLAND], st[TO_MOVE]
    st[PHASE][g] = MOVE_TOKEN if any_movable(island[g, np.int64(to_move[g])]) else SUPPLY_OR_CLAIM


@njit
def begin_turns(st, games):
    for g in games:
        begin_turn(st, g)


@inner
def _gain(st, g, p, f, amount):
    st[FRUIT][g, p, f] += amount
    st[FRUIT_GAINED][g, p, f] += amount


@inner
def _split(st, g, p, k):
    """An advanced collector's fruit: `k` of its first type, the rest of the second."""
    token = np.int64(st[PENDING_TOKEN][g])
    rest = np.int64(st[PENDING_AMOUNT][g]) - k
    _gain(st, g, p, TOKEN_FRUITS[token, 0], k)
    _gain(st, g, p, TOKEN_FRUITS[token, 1], rest)
    st[PENDING_AMOUNT][g] = 0


@inner
def _stop_production_if_nothing_left(st, g, p, scratch):
    """Production ends when the cart's spaces are used up or no marker can be paid for."""
    colour = TOKEN_COLOUR[np.int64(st[PENDING_TOKEN][g])]
    more = st[PENDING_AMOUNT][g] > 0 and producible(st[FRUIT][g, p], st[STACKS][g], colour, scratch)
    if not more:
        st[PHASE][g] = SUPPLY_OR_CLAIM
        st[PENDING_AMOUNT][g] = 0


@inner
def _move_to(st, g, p, dst, scratch):
    island = st[ISLAND]
    src = np.int64(st[PENDING_CELL][g])
    code = np.int64(island[g, p, src])
    distance = DISTANCE[src, dst]
    island[g, p, dst] = code
    island[g, p, src] = EMPTY
    st[PENDING_CELL][g] = dst
    if code < TOKEN:  # a collector: one fruit of its type per space
        _gain(st, g, p, code - COLLECTOR, distance)
        st[PHASE][g] = SUPPLY_OR_CLAIM
        return
    token = code - TOKEN
    st[PENDING_TOKEN][g] = token
    if TOKEN_KIND[token] == ADVANCED_COLLECTOR:
        st[PENDING_AMOUNT][g] = distance + 1  # one fruit per space, then one more
        st[PHASE][g] = HARVEST_SPLIT
    else:  # an ice cream cart: one marker per space
        st[PENDING_AMOUNT][g] = distance
        st[PHASE][g] = PRODUCE_PHASE
        _stop_production_if_nothing_left(st, g, p, scratch)


@inner
def _produce(st, g, p, a, scratch):
    if a == PASS:
        st[PHASE][g] = SUPPLY_OR_CLAIM
        st[PENDING_AMOUNT][g] = 0
        return
    fruit, stacks = st[FRUIT], st[STACKS]
    if a >= MILKSHAKE:
        stack = SHAKE
        fruit[g, p, a - MILKSHAKE] -= SHAKE_FRUITS
        st[MILKSHAKE_PAID][g, p, a - MILKSHAKE] += 1
    else:
        stack = a - PRODUCE
        for f in range(FRUITS):
            fruit[g, p, f] -= STACK_COST[stack, f]
    st[MARKERS][g, p, stack] += 1
    stacks[g, stack] -= 1
    st[POINTS][g, p, MARKERS_PTS] += STACK_VALUE[stack]
    if stacks[g, stack] == 0:
        license_step(st[LICENSE_LEFT], g)  # the last marker reveals a license icon
    st[PENDING_AMOUNT][g] -= 1
    _stop_production_if_nothing_left(st, g, p, scratch)


@inner
def _supply_or_claim(st, g, p, a) -> bool:
    """Supply a ship, claim a business token or pass; True when step 2 is over."""
    if a == PASS:
        return True
    fruit, points = st[FRUIT], st[POINTS]
    if a < CLAIM:
        cell = a - CELL
        pos = BEACH_OF_CELL[cell]
        ship = np.int64(st[SHIPS][g, p, pos])
        for f in range(FRUITS):
            fruit[g, p, f] -= SHIP_COST[ship, f]
        points[g, p, SHIPS_PTS] += SHIP_POINTS[ship]
        st[SHIP_PRESENT][g, p, pos] = False
        st[ISLAND][g, p, cell] = EMPTY
        return True
    row, slot = divmod(a - CLAIM, ROW_SLOTS)
    token = np.int64(st[BOARD][g, row, slot])
    for f in range(FRUITS):
        fruit[g, p, f] -= ROW_COST[row, f]
    points[g, p, CLAIMS_PTS] += ROW_POINTS[row]
    st[CLAIMS][g, p, row] += 1
    license_step(st[LICENSE_LEFT], g)
    st[BOARD][g, row, slot] = NO
    st[PENDING_TOKEN][g] = token
    turns = N_ROTATIONS[TOKEN_SHAPE[token]] > 1
    st[PHASE][g] = ROTATE_PHASE if turns else PLACE
    st[PENDING_ROTATION][g] = NO if turns else 0
    return False


@inner
def _place(st, g, p, a) -> bool:
    """Lay the claimed token with its anchor on cell `a`; True when step 2 is over."""
    token = np.int64(st[PENDING_TOKEN][g])
    shape = TOKEN_SHAPE[token]
    rotation = np.int64(st[PENDING_ROTATION][g])
    for k in range(PLACEMENT_CELLS.shape[3]):
        c = PLACEMENT_CELLS[shape, rotation, a - CELL, k]
        if c >= 0:
            st[ISLAND][g, p, c] = TOKEN + token
    if IS_VENUE[token]:
        st[POINTS][g, p, VENUES_PTS] += TOKEN_POINTS[token]
    st[PENDING_ROTATION][g] = NO
    if TOKEN_KIND[token] == ADVANCED_COLLECTOR:
        st[PHASE][g] = CLAIM_FRUIT  # "immediately gain 1 fruit of either type shown on it"
        st[PENDING_AMOUNT][g] = 1
        st[PENDING_CELL][g] = a - CELL
        return False
    return True


@inner
def _factory(st, g, p, a, arrows) -> bool:
    """Advance one factory disc along arrow `a`, or pass (step 3); True when step 3 is over."""
    over = a == PASS
    if not over:
        discs, fruit = st[DISCS], st[FRUIT]
        arrow = a - ARROW
        source, target = ARROW_FROM[arrow], ARROW_TO[arrow]
        disc = 0 if discs[g, p, 0] == source and st[PENDING_DISC][g] != 0 else 1
        other = 1 - disc
        # "if both of your discs start the turn on the same circle and you decide to advance them along
        # the same arrow, pay the fruit cost only once"
        if arrow != st[PENDING_ARROW][g]:
            for f in range(FRUITS):
                fruit[g, p, f] -= ARROW_COST[arrow, f]
            st[ARROWS_PAID][g, p, arrow] += 1
        # "Whenever you move to a free circle, gain any points you cover. You don't get points when you
        # move your disc onto your other one."
        if discs[g, p, other] != target:
            st[POINTS][g, p, FACTORY_PTS] += NODE_POINTS[target]
            st[CIRCLES_SCORED][g, p, target] += 1
        discs[g, p, disc] = target
        if NODE_IS_FINAL[target]:
            license_step(st[LICENSE_LEFT], g)  # a final circle's license icon
        first = st[PENDING_DISC][g] == NO
        st[PENDING_DISC][g] = disc
        if first:
            st[PENDING_ARROW][g] = arrow
            over = not factory_moves(
                discs[g], p, np.int64(st[PENDING_DISC][g]), np.int64(st[PENDING_ARROW][g]), fruit[g, p], arrows
            )
        else:
            over = True
    if over:
        st[PENDING_ARROW][g] = NO
        st[PENDING_DISC][g] = NO
    return over


@inner
def _begin_factory(st, g, arrows) -> bool:
    """Step 3 once step 2 is over; True when no disc can advance (the turn is over)."""
    clear_pending(st, g)
    p = np.int64(st[TO_MOVE][g])
    if factory_moves(st[DISCS][g], p, np.int64(NO), np.int64(NO), st[FRUIT][g, p], arrows):
        st[PHASE][g] = FACTORY
        return False
    return True


@inner
def frozen(st, g, factory, scratch) -> bool:
    """Whether, between turns, no seat of game `g` can do anything on its turn but pass: no token can move,
    no waiting ship's order is covered, no waiting business token is paid for and has room, and (with the
    factory) no disc can advance. A pass changes none of that: the game could only reach the round cap."""
    island, fruit = st[ISLAND], st[FRUIT]
    for k in range(island.shape[1]):
        if any_movable(island[g, k]):
            return False
        if suppliable(fruit[g, k], st[SHIPS][g, k], st[SHIP_PRESENT][g, k], scratch):
            return False
        if claimable(fruit[g, k], st[BOARD][g], island[g, k], scratch):
            return False
        if factory and factory_moves(
            st[DISCS][g], k, np.int64(st[PENDING_DISC][g]), np.int64(st[PENDING_ARROW][g]), fruit[g, k], scratch
        ):
            return False
    return True


@njit
def frozen_many(st, games, factory, out):
    scratch = np.zeros(N_SLOTS, dtype=np.bool_)
    for i in range(len(games)):
        out[i] = frozen(st, games[i], factory, scratch)


@njit
def rival_row(rounds_completed):
    """Score attack: the business row (0-based) the rival empties a slot of at the end of the current round."""
    return rounds_completed % ROWS


@inner
def _rival_and_refill(st, g, per_row):
    """Score attack, end of a round: the rival returns the leftmost token of the round's row to the box,
    then the empty waiting spaces of the display (row 1 first, left to right) are refilled from the
    face-down pile while it lasts."""
    board, pile, keys = st[BOARD], st[PILE], st[KEYS]
    row = rival_row(np.int64(st[ROUND][g]) - 1)  # the round just completed
    for k in range(ROW_SLOTS):
        if board[g, row, k] >= 0:
            board[g, row, k] = NO
            break
    keys[g], draw = split(keys[g])
    u = np.empty(N_TOKENS, dtype=np.float64)
    uniform(draw, u)
    left = 0
    for t in range(N_TOKENS):
        if pile[g, t]:
            left += 1
        else:
            u[t] = 2.0
    order = stable_argsort(u)
    k = 0
    for r in range(ROWS):
        for j in range(per_row):
            if board[g, r, j] < 0:
                if k < left:
                    board[g, r, j] = order[k]
                    pile[g, order[k]] = False
                k += 1


@inner
def _finish(st, g, factory):
    """The rules end game `g`: stalls are scored (the outcome is paid by `rules`)."""
    for i in range(st[ISLAND].shape[1]):
        st[POINTS][g, i, STALLS_PTS] = stall_points(st[ISLAND][g, i], st[SHIP_PRESENT][g, i], st[DISCS][g, i], factory)
    st[DONE][g] = True
    st[PHASE][g] = OVER
    clear_pending(st, g)


@inner
def _cut_off(st, g):
    """The engine cuts game `g` off (not a rule): truncated, no end-of-game scoring, no outcome."""
    st[DONE][g] = True
    st[TRUNCATED][g] = True
    st[PHASE][g] = OVER
    clear_pending(st, g)


@inner
def end_turn(st, g, factory, solo, cap, per_row, scratch) -> bool:
    """Pass the turn to the left; after the last seat a round ends, and perhaps the game (True when the
    rules ended it). A game the rules have not ended is cut off at the round cap, or when `frozen`; the
    score attack's round limit is its own end."""
    p = st[ISLAND].shape[1]
    st[TO_MOVE][g] = (np.int64(st[TO_MOVE][g]) + 1) % p
    wrapped = st[TO_MOVE][g] == 0
    if wrapped:
        st[ROUND][g] += 1
        rounds, left = np.int64(st[ROUND][g]), st[LICENSE_LEFT][g]
        if left == 0 or (solo and rounds >= cap):
            _finish(st, g, factory)
            return True
        doubt = not solo and not anyone_can_move(st[ISLAND][g])  # cheap first (almost always a token can move)
        if rounds >= cap or (doubt and frozen(st, g, factory, scratch)):
            _cut_off(st, g)
            return False
        if solo:
            _rival_and_refill(st, g, per_row)
    begin_turn(st, g)
    return False


@njit
def step(actions, live, st, rewards, ended, phase_actions, factory, solo, cap, per_row, pay_scores) -> np.int64:
    """Apply one legal action in each `live` game; `ended[g]` marks games the rules just ended (their
    outcome is paid by `rules`), `rewards` gains the points scored when `pay_scores`. Returns the first
    game whose action is not of its phase's kind (`rules.PHASE_ACTIONS`), changing nothing, else -1."""
    for g in range(len(actions)):
        if live[g] and not (0 <= actions[g] < NUM_ACTIONS and phase_actions[st[PHASE][g], actions[g]]):
            return g
    scratch = np.zeros(N_SLOTS, dtype=np.bool_)
    points = st[POINTS]
    n_players = points.shape[1]
    before = np.zeros(n_players, dtype=np.int64)
    for g in range(len(actions)):
        if not live[g]:
            continue
        if pay_scores:
            for i in range(n_players):
                before[i] = 0
                for k in range(points.shape[2]):
                    before[i] += points[g, i, k]
        st[STEP_COUNT][g] += 1
        a = np.int64(actions[g])
        p = np.int64(st[TO_MOVE][g])
        ph = st[PHASE][g]
        step_two_over = turn_over = False
        if ph == MOVE_TOKEN:
            st[PENDING_CELL][g] = a - CELL
            st[PHASE][g] = MOVE_TO
        elif ph == MOVE_TO:
            _move_to(st, g, p, a - CELL, scratch)
        elif ph == HARVEST_SPLIT:
            _split(st, g, p, a - SPLIT)
            st[PENDING_TOKEN][g] = NO
            st[PHASE][g] = SUPPLY_OR_CLAIM
        elif ph == PRODUCE_PHASE:
            _produce(st, g, p, a, scratch)
        elif ph == SUPPLY_OR_CLAIM:
            step_two_over = _supply_or_claim(st, g, p, a)
        elif ph == ROTATE_PHASE:
            st[PENDING_ROTATION][g] = a - ROTATE
            st[PHASE][g] = PLACE
        elif ph == PLACE:
            step_two_over = _place(st, g, p, a)
        elif ph == CLAIM_FRUIT:
            _split(st, g, p, a - SPLIT)
            step_two_over = True
        elif ph == FACTORY:
            turn_over = _factory(st, g, p, a, scratch)
        if step_two_over:
            turn_over = _begin_factory(st, g, scratch) if factory else True
        if turn_over:
            ended[g] = end_turn(st, g, factory, solo, cap, per_row, scratch)
        if pay_scores:
            for i in range(n_players):
                after = 0
                for k in range(points.shape[2]):
                    after += points[g, i, k]
                rewards[g, i] += after - before[i]
    return -1


# -- masks -----------------------------------------------------------------------------------------


@inner
def mask_one(st, g, seat, out, scratch) -> bool:
    """`out (66,)`: the legal actions of `seat` in game `g` (none unless it is the seat to move); any."""
    out[:] = False
    if st[DONE][g] or seat != st[TO_MOVE][g]:
        return False
    ph = st[PHASE][g]
    row = st[ISLAND][g, seat]
    have = st[FRUIT][g, seat]
    if ph == MOVE_TOKEN:
        return movable(row, out[CELL:CLAIM])
    if ph == MOVE_TO:
        return destinations(row, np.int64(st[PENDING_CELL][g]), out[CELL:CLAIM])
    if ph == HARVEST_SPLIT or ph == CLAIM_FRUIT:
        for k in range(MAX_SPLIT + 1):
            out[SPLIT + k] = k <= st[PENDING_AMOUNT][g]
    elif ph == PRODUCE_PHASE:
        producible(have, st[STACKS][g], TOKEN_COLOUR[np.int64(st[PENDING_TOKEN][g])], out[PRODUCE:NUM_ACTIONS])
        out[PASS] = True
    elif ph == SUPPLY_OR_CLAIM:
        suppliable(have, st[SHIPS][g, seat], st[SHIP_PRESENT][g, seat], scratch)
        for k in range(N_SHIPS):
            out[CELL + BEACH_CELLS[k]] = scratch[k]
        claimable(have, st[BOARD][g], row, out[CLAIM:PASS])
        out[PASS] = True
    elif ph == FACTORY:
        pending_disc, pending_arrow = np.int64(st[PENDING_DISC][g]), np.int64(st[PENDING_ARROW][g])
        factory_moves(st[DISCS][g], seat, pending_disc, pending_arrow, have, out[ARROW : ARROW + N_ARROWS])
        out[PASS] = True
    elif ph == ROTATE_PHASE:
        free = free_bits(row)
        shape = TOKEN_SHAPE[np.int64(st[PENDING_TOKEN][g])]
        found = False
        for r in range(N_ROT):
            for c in range(N_CELLS):
                if fits(free, PLACEMENT_BITS[shape, r, c]):
                    out[ROTATE + r] = found = True
                    break
        return found
    elif ph == PLACE:
        free = free_bits(row)
        shape = TOKEN_SHAPE[np.int64(st[PENDING_TOKEN][g])]
        rotation = max(np.int64(st[PENDING_ROTATION][g]), 0)
        found = False
        for c in range(N_CELLS):
            out[CELL + c] = fits(free, PLACEMENT_BITS[shape, rotation, c])
            found |= out[CELL + c]
        return found
    return ph != OVER  # the others can always pass (and a split of 0 is always there)


@njit
def legal_mask(st, seats, out):
    scratch = np.zeros(N_SLOTS, dtype=np.bool_)
    for g in range(len(seats)):
        mask_one(st, g, seats[g], out[g], scratch)


# -- observation -----------------------------------------------------------------------------------


@inner
def _after_hints(h, a, after, ships, present, supplied, tokens_open):
    """What the cheapest waiting ship and the cheapest row with a fitting token still lack once action `a`
    leaves the reserve `after (5,)` (float), and how many of them it pays for."""
    ship_missing, ships_ready = 5.0, 0
    for k in range(N_SHIPS):
        if not present[k] or k == supplied:
            continue
        lack = 0.0
        for f in range(FRUITS):
            lack += max(SHIP_COST[ships[k], f] - after[f], 0.0)
        ship_missing = min(ship_missing, min(lack, 5.0))
        if lack == 0:
            ships_ready += 1
    row_missing, rows_ready = 5.0, 0
    for r in range(ROWS):
        if not tokens_open[r]:
            continue
        lack = 0.0
        for f in range(FRUITS):
            lack += max(ROW_COST[r, f] - after[f], 0.0)
        row_missing = min(row_missing, min(lack, 5.0))
        if lack == 0:
            rows_ready += 1
    base = a * N_HINTS
    h[base + H_SHIP_MISSING] = ship_missing / 5.0
    h[base + H_SHIPS_READY] = ships_ready / 4.0
    h[base + H_ROW_MISSING] = row_missing / 5.0
    h[base + H_ROWS_READY] = rows_ready / 5.0


@inner
def _placement_values(row, placed, free, mobile, anchor, after, values):
    """`values (3,)`: own movers still free, their room and the placed token's own run once the cells
    `placed` (bits) are covered; -1 each when the placement does not fit."""
    if not fits(free, placed):
        values[:] = -1.0
        return
    left = free & ~placed
    for c in range(N_CELLS):
        after[c] = ((left >> np.int64(c)) & np.int64(1)) != 0
    movers_free = room = 0
    for c in range(N_CELLS):
        if CODE_IS_MOBILE[row[c]]:
            run = free_run(after, c)
            if run > 0:
                movers_free += 1
            room += run
    values[0] = movers_free / 5.0
    values[1] = room / 20.0
    values[2] = free_run(after, anchor) / RUN_SCALE if mobile else 0.0


@inner
def hints_one(st, g, seat, legal, h, delta, values, scratch, factory):
    """Fill `h (66 * 20,)` with what each legal action of `seat` would do now (`rules.HINTS`); the rows of
    illegal actions stay zero (minus zero where the placement hints marked them unfit, as numpy's product)."""
    ph = st[PHASE][g]
    row = st[ISLAND][g, seat]
    ships, present, have = st[SHIPS][g, seat], st[SHIP_PRESENT][g, seat], st[FRUIT][g, seat]
    delta[:] = 0.0
    points = np.zeros(NUM_ACTIONS, dtype=np.float64)
    spaces = np.zeros(NUM_ACTIONS, dtype=np.float64)
    if ph == MOVE_TOKEN:
        free = np.zeros(N_CELLS, dtype=np.bool_)
        for c in range(N_CELLS):
            free[c] = row[c] == EMPTY
        for c in range(N_CELLS):
            code = np.int64(row[c])
            longest = free_run(free, c) if CODE_IS_MOBILE[code] else 0
            gained = longest + CODE_BONUS[code] * (longest > 0)
            for f in range(FRUITS):
                delta[CELL + c, f] = CODE_FRUIT[code, f] * gained
            spaces[CELL + c] = longest
    elif ph == MOVE_TO:
        src = np.int64(st[PENDING_CELL][g])
        code = np.int64(row[src])
        for c in range(N_CELLS):
            gained = DISTANCE[src, c] + CODE_BONUS[code]
            for f in range(FRUITS):
                delta[CELL + c, f] = CODE_FRUIT[code, f] * gained
            spaces[CELL + c] = DISTANCE[src, c]
    elif ph == HARVEST_SPLIT or ph == CLAIM_FRUIT:
        token = np.int64(st[PENDING_TOKEN][g])
        first, second = TOKEN_FRUITS[token, 0], TOKEN_FRUITS[token, 1]
        for k in range(MAX_SPLIT + 1):
            delta[SPLIT + k, first] += k
            delta[SPLIT + k, second] += np.int64(st[PENDING_AMOUNT][g]) - k
    elif ph == PRODUCE_PHASE:
        for j in range(N_ICE):
            for f in range(FRUITS):
                delta[PRODUCE + j, f] = -STACK_COST[j, f]
            points[PRODUCE + j] = STACK_VALUE[j]
        for f in range(FRUITS):
            delta[MILKSHAKE + f, f] = -SHAKE_FRUITS
            points[MILKSHAKE + f] = STACK_VALUE[SHAKE]
    elif ph == SUPPLY_OR_CLAIM:
        for k in range(N_SHIPS):
            a = CELL + BEACH_CELLS[k]
            for f in range(FRUITS):
                delta[a, f] = -SHIP_COST[ships[k], f]
            points[a] = SHIP_POINTS[ships[k]]
        for slot in range(N_SLOTS):
            r = slot // ROW_SLOTS
            t = max(np.int64(st[BOARD][g, r, slot % ROW_SLOTS]), 0)
            for f in range(FRUITS):
                delta[CLAIM + slot, f] = -ROW_COST[r, f]
            points[CLAIM + slot] = ROW_POINTS[r] + (TOKEN_POINTS[t] if IS_VENUE[t] else 0)
    elif ph == FACTORY and factory:
        discs = st[DISCS][g, seat]
        for arrow in range(N_ARROWS):
            if arrow != st[PENDING_ARROW][g]:
                for f in range(FRUITS):
                    delta[ARROW + arrow, f] = -ARROW_COST[arrow, f]
            to = ARROW_TO[arrow]
            own = discs[0] == to or discs[1] == to
            points[ARROW + arrow] = 0 if own else NODE_POINTS[to]
    # afterwards: the rows with a waiting token that fits the island now
    free = free_bits(row)
    shapes_fit(free, scratch[:5])
    tokens_open = scratch[5:10]
    for r in range(ROWS):
        tokens_open[r] = False
        for k in range(ROW_SLOTS):
            t = np.int64(st[BOARD][g, r, k])
            if t >= 0 and scratch[TOKEN_SHAPE[t]]:
                tokens_open[r] = True
    after = np.empty(FRUITS, dtype=np.float64)
    for a in range(NUM_ACTIONS):
        if not legal[a]:
            continue
        base = a * N_HINTS
        h[base + H_LEGAL] = 1.0
        for f in range(FRUITS):
            d = delta[a, f]
            h[base + H_GAINED + f] = (d if d > 0 else 0.0) / 5.0
            h[base + H_PAID + f] = (-d if -d > 0 else 0.0) / 5.0
            after[f] = max(have[f] + d, 0.0)
        h[base + H_POINTS] = points[a] / 10.0
        h[base + H_SPACES] = spaces[a] / RUN_SCALE
        supplied = BEACH_OF_CELL[a - CELL] if ph == SUPPLY_OR_CLAIM and a < CLAIM else -1
        _after_hints(h, a, after, ships, present, supplied, tokens_open)
    if ph == PLACE or ph == ROTATE_PHASE:
        token = np.int64(st[PENDING_TOKEN][g])
        shape = TOKEN_SHAPE[token]
        best = np.empty(3, dtype=np.float64)
        after_free = np.zeros(N_CELLS, dtype=np.bool_)
        for r in range(N_ROT):
            if ph == ROTATE_PHASE:
                best[:] = -np.inf
            elif r != max(np.int64(st[PENDING_ROTATION][g]), 0):
                continue
            for c in range(N_CELLS):
                _placement_values(row, PLACEMENT_BITS[shape, r, c], free, IS_MOBILE[token], c, after_free, values)
                if ph == ROTATE_PHASE:
                    for j in range(3):
                        best[j] = max(best[j], values[j])
                else:
                    a = CELL + c
                    for j in range(3):  # numpy's product with the mask: -1 x 0 is -0
                        h[a * N_HINTS + H_MOVERS_FREE + j] = values[j] if legal[a] else (-0.0 if values[j] < 0 else 0.0)
            if ph == ROTATE_PHASE:
                a = ROTATE + r
                for j in range(3):
                    h[a * N_HINTS + H_MOVERS_FREE + j] = best[j] if legal[a] else (-0.0 if best[j] < 0 else 0.0)


@njit
def action_hints(st, seats, factory, out):
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    delta = np.zeros((NUM_ACTIONS, FRUITS), dtype=np.float64)
    values = np.zeros(3, dtype=np.float64)
    scratch = np.zeros(N_SLOTS, dtype=np.bool_)
    for g in range(len(seats)):
        if mask_one(st, g, seats[g], mask, scratch):
            hints_one(st, g, seats[g], mask, out[g], delta, values, scratch, factory)


@inner
def _one_hot(obs, g, start, index, on):
    if on and index >= 0:
        obs[g, start + index] = 1.0


@njit
def observe(seats, st, offsets, phase_size, cap, steps, solo, factory, obs):
    """Fill `obs (n, O)` (zeros) with the whole public state of each game seen from `seats[g]`; blocks over
    players list the observer first, then in turn order (`rules.observation_layout`)."""
    done, to_move, phase, rounds, island = st[DONE], st[TO_MOVE], st[PHASE], st[ROUND], st[ISLAND]
    p = island.shape[1]
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    delta = np.zeros((NUM_ACTIONS, FRUITS), dtype=np.float64)
    values = np.zeros(3, dtype=np.float64)
    scratch = np.zeros(N_SLOTS, dtype=np.bool_)
    yes = np.bool_(True)  # not the constant True (core.kernels)
    for g in range(len(seats)):
        seat = np.int64(seats[g])
        live = not done[g]
        _one_hot(obs, g, offsets[O_PHASE], np.int64(phase[g]), live and phase[g] < phase_size)
        _one_hot(obs, g, offsets[O_TO_MOVE], (np.int64(to_move[g]) - seat) % p, live)
        _one_hot(obs, g, offsets[O_SEAT], seat, yes)
        obs[g, offsets[O_ROUND]] = np.int64(rounds[g]) / cap
        obs[g, offsets[O_LICENSE]] = np.int64(st[LICENSE_LEFT][g]) / steps
        final = st[LICENSE_LEFT][g] == 0 or (solo and rounds[g] == cap - 1)
        obs[g, offsets[O_FINAL]] = 1.0 if final else 0.0
        for j in range(STACK_SIZE.shape[0]):
            obs[g, offsets[O_STACKS] + j] = np.int64(st[STACKS][g, j]) / STACK_SIZE[j]
        for slot in range(N_SLOTS):
            token = np.int64(st[BOARD][g, slot // ROW_SLOTS, slot % ROW_SLOTS])
            _one_hot(obs, g, offsets[O_BOARD] + slot * N_TOKENS, token, yes)
        _one_hot(obs, g, offsets[O_CELL], np.int64(st[PENDING_CELL][g]), yes)
        _one_hot(obs, g, offsets[O_TOKEN], np.int64(st[PENDING_TOKEN][g]), yes)
        obs[g, offsets[O_AMOUNT]] = np.int64(st[PENDING_AMOUNT][g]) / MAX_SPLIT
        _one_hot(obs, g, offsets[O_ROTATION], np.int64(st[PENDING_ROTATION][g]), yes)
        for k in range(p):
            i = (seat + k) % p
            for f in range(FRUITS):
                obs[g, offsets[O_FRUIT] + k * FRUITS + f] = np.int64(st[FRUIT][g, i, f]) / 10.0
            total = 0
            for j in range(st[POINTS].shape[2]):
                total += st[POINTS][g, i, j]
            obs[g, offsets[O_SCORES] + k] = total / 100.0
            for pos in range(N_SHIPS):
                if st[SHIP_PRESENT][g, i, pos]:
                    at = offsets[O_SHIPS] + (k * N_SHIPS + pos) * N_SHIP_FEATURES
                    for j in range(N_SHIP_FEATURES):
                        obs[g, at + j] = SHIP_FEATURES[st[SHIPS][g, i, pos], j]
            at = offsets[O_ISLANDS] + k * N_CHANNELS * N_CELLS
            for ch in range(N_CHANNELS):
                for c in range(N_CELLS):
                    obs[g, at + ch * N_CELLS + c] = CODE_FEATURES_T[ch, island[g, i, c]]
        if mask_one(st, g, seat, mask, scratch):
            start = offsets[O_HINTS]
            hints_one(st, g, seat, mask, obs[g, start : start + NUM_ACTIONS * N_HINTS], delta, values, scratch, factory)
        if factory:
            discs = st[DISCS]
            finals = 0
            for node in FINAL_NODES:
                taken = False
                for i in range(p):
                    for d in range(N_DISCS):
                        taken |= discs[g, i, d] == node
                obs[g, offsets[O_FINALS] + finals] = 1.0 if taken else 0.0
                finals += 1
            for k in range(p):
                i = (seat + k) % p
                for d in range(N_DISCS):
                    node = np.int64(discs[g, i, d])
                    if node >= 0:
                        obs[g, offsets[O_DISCS] + k * N_NODES + node] += 1.0 / N_DISCS
                obs[g, offsets[O_BOTTLES] + k] = bottles(discs[g, i]) / MAX_BOTTLES
            _one_hot(obs, g, offsets[O_ARROW], np.int64(st[PENDING_ARROW][g]), yes)
        if solo:
            for t in range(N_TOKENS):
                obs[g, offsets[O_PILE] + t] = 1.0 if st[PILE][g, t] else 0.0
            _one_hot(obs, g, offsets[O_RIVAL], np.int64(rounds[g]) % ROWS, live)


# -- one AEC step ----------------------------------------------------------------------------------


@njit
def advance(action, st, rewards, ended, masks, obs, phase_actions, factory, solo, cap, per_row, pay_scores, offsets,
            phase_size, steps) -> np.int64:  # fmt: skip
    """`step` of one live game, then the mask of the seat to move afterwards (`masks (P, 66)`, False for
    the others: turn-based) and its observation, in one call: what an env of one game needs after each
    action (each kernel call first unpacks every state array). Returns what `step` returns; on an action
    of the wrong kind nothing changes."""
    actions = np.full(1, action, dtype=np.int64)
    live = ~st[DONE]
    g = step(actions, live, st, rewards, ended, phase_actions, factory, solo, cap, per_row, pay_scores)
    if g >= 0:
        return g
    seats = st[TO_MOVE][:1].astype(np.int64)
    mask_one(st, np.int64(0), seats[0], masks[seats[0]], np.zeros(N_SLOTS, dtype=np.bool_))  # not a literal 0:
    # `legal_mask`'s compiled `mask_one` serves (a literal would compile a second one)
    observe(seats, st, offsets, phase_size, cap, steps, solo, factory, obs)
    return -1
