"""Juicy Fruits (basic game) rules as batched functions over a struct-of-arrays state; setup, step, masks
and the observation run in the compiled `kernels` (numba, imported on first use; this module imports numpy
and the core only).

A turn is a short sequence of decisions of the player to move, one flat action space of 66:

* `0..24`  a cell of the mover's island (`a1`..`e5`, row-major): the token to move, where it goes,
           the ship to supply (its beach cell), or where a claimed token is placed (its anchor);
* `25..44` claim the business token in row r, slot k (`25 + 4 r + k`);
* `45`     pass: supply nothing and claim nothing (step 2), or stop producing ice cream;
* `46..49` rotate a large venue by 0, 90, 180, 270 degrees clockwise;
* `50..55` split k: take k fruits of the advanced collector's first type, the rest of the second;
* `56..60` produce an ice cream marker from stack green 8, green 7, blue 6, blue 5, pink 4;
* `61..65` produce a milkshake marker paying 2 bananas, limes, pomegranates, oranges, mangosteens.

Phases: step 1 is `move_token` then `move_to` (then `harvest_split` for an advanced collector or
`produce` for an ice cream cart); step 2 is `supply_or_claim` (then `rotate` for a large venue,
`place`, and `claim_fruit` for an advanced collector). A decision that does not exist is skipped:
step 1 when no token can move (forfeited), production when nothing more can be paid for or the
cart's spaces are used up, rotation of a square venue. A decision with one legal option is asked.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cache

import numpy as np

from fruit_envs.core.lazy import StateKernels, kernels_of
from fruit_envs.core.spec import Config, GameSpec, option, outcome_rewards
from fruit_envs.core.state import BatchState, advance_buffers, seat_array
from fruit_envs.games.juicy_fruits import components as C
from fruit_envs.games.juicy_fruits import geometry as G

# ----------------------------------------------------------------------------------------------
# Island cell codes (int8): what stands on each of the 25 cells of each island.

EMPTY, BLOCKED, SHIP = 0, 1, 2
COLLECTOR = 3  # 3..7: the collector of fruit f is COLLECTOR + f
TOKEN = COLLECTOR + C.N_FRUITS  # 8..31: business token t (large venues on every covered cell)
N_CODES = TOKEN + C.N_TOKENS
NO = -1  # no token / cell / rotation

CODE_IS_MOBILE = np.zeros(N_CODES, dtype=bool)
CODE_IS_MOBILE[COLLECTOR:TOKEN] = True
CODE_IS_MOBILE[TOKEN:] = C.IS_MOBILE

# ----------------------------------------------------------------------------------------------
# Actions

CELL = 0
ARROW = CELL  # juice factory (step 3): arrow k of `components.FACTORY_ARROWS` is action ARROW + k
CLAIM = CELL + G.N_CELLS  # 25
N_SLOTS = C.N_ROWS * C.ROW_SLOTS  # 20
PASS = CLAIM + N_SLOTS  # 45
ROTATE = PASS + 1  # 46
SPLIT = ROTATE + G.MAX_ROTATIONS  # 50
MAX_SPLIT = G.MAX_DISTANCE + 1  # a 4-space move of an advanced collector yields 5 fruits
PRODUCE = SPLIT + MAX_SPLIT + 1  # 56
MILKSHAKE = PRODUCE + C.N_ICE_CREAM_STACKS  # 61
NUM_ACTIONS = MILKSHAKE + C.N_FRUITS  # 66
if ARROW + C.N_ARROWS > PASS:
    raise ValueError(f"the factory's arrows reuse actions {ARROW}..{PASS - 1}: at most {PASS - ARROW} arrows")

# ----------------------------------------------------------------------------------------------
# Phases

MOVE_TOKEN, MOVE_TO, HARVEST_SPLIT, PRODUCE_PHASE, SUPPLY_OR_CLAIM, ROTATE_PHASE, PLACE, CLAIM_FRUIT = range(8)
FACTORY, OVER = 8, 9
PHASE_NAMES = (
    "move_token",
    "move_to",
    "harvest_split",
    "produce",
    "supply_or_claim",
    "rotate",
    "place",
    "claim_fruit",
    "factory",  # step 3, juice factory only
    "over",
)
N_LIVE_PHASES = len(PHASE_NAMES) - 1
N_BASIC_PHASES = FACTORY  # the basic game's live phases (its observation's phase one-hot)

# The kind of action each phase takes (a cheap guard in `step`; the mask says which of them are legal).
PHASE_ACTIONS = np.zeros((len(PHASE_NAMES), NUM_ACTIONS), dtype=bool)
for _ph in (MOVE_TOKEN, MOVE_TO, PLACE):
    PHASE_ACTIONS[_ph, CELL:CLAIM] = True
PHASE_ACTIONS[[HARVEST_SPLIT, CLAIM_FRUIT], SPLIT:PRODUCE] = True
PHASE_ACTIONS[PRODUCE_PHASE, PRODUCE:NUM_ACTIONS] = PHASE_ACTIONS[PRODUCE_PHASE, PASS] = True
PHASE_ACTIONS[SUPPLY_OR_CLAIM, CELL : PASS + 1] = True
PHASE_ACTIONS[ROTATE_PHASE, ROTATE:SPLIT] = True
PHASE_ACTIONS[FACTORY, ARROW : ARROW + C.N_ARROWS] = PHASE_ACTIONS[FACTORY, PASS] = True
MAX_DECISIONS_PER_TURN = 2 + G.MAX_DISTANCE + 3  # move token, to, produce x4, supply/claim, rotate, place
MAX_FACTORY_DECISIONS = C.FACTORY_DISCS  # step 3: one disc, the other (a pass ends it early)

# Score sources: every point is traced to one of them.
SOURCES = ("ships", "claims", "venues", "markers", "stalls", "factory")
SHIPS_PTS, CLAIMS_PTS, VENUES_PTS, MARKERS_PTS, STALLS_PTS, FACTORY_PTS = range(len(SOURCES))
BASIC_SOURCES = SOURCES[:FACTORY_PTS]  # the basic game has no factory circles (the lemonade stand is a stall)


@dataclass(frozen=True)
class JuicyFruitsConfig(Config):
    """Options of Juicy Fruits (basic side of the score board)."""

    ship_setup: str = option(
        "bags",
        ("bags", "mixed"),
        "'bags': A-F from one bag (25 ships) and G-L from the other, as the rulebook's standard setup; "
        "'mixed': the rulebook's more random setup, all 50 ships in one bag",
    )
    corners_playable: bool = option(
        True,
        (True, False),
        "True: the four outer corners are ordinary free spaces (our reading); "
        "False: they are unusable (the '3 x 3 inner grid' reading)",
    )
    score_board: str = option(
        "basic",
        ("basic", "juicy"),
        "'basic': the basic side of the score board; 'juicy': the juicy side, with the juice factory "
        "(step 3: factory discs, the lemonade stand in play, two final license circles)",
    )


@dataclass(frozen=True)
class JuicyFruitsSoloConfig(JuicyFruitsConfig):
    """Options of the score attack, OUR OWN single-player mode (not the official solo rules)."""

    reward: str = option(
        "score",
        ("score",),
        "'score': per-step points (with one player there is nobody to beat, so no terminal +1/-1)",
    )
    rounds: int = option(
        C.SOLO_ROUNDS,
        C.SOLO_ROUND_CHOICES,
        "round limit: the game ends after this many rounds, or earlier when the license marker reaches X",
    )


def has_factory(config: Config) -> bool:
    """Whether the juice factory is in play (the juicy side of the score board)."""
    return config.score_board == "juicy"


def is_solo(config: Config) -> bool:
    """Whether this is the score attack (one player)."""
    return config.num_players == 1


def round_cap(config: Config) -> int:
    """Rounds after which a game stops: the score attack's limit (its end), else the engine's safety cap
    (a truncation)."""
    return config.rounds if is_solo(config) else C.ROUND_CAP


def license_steps(config: Config) -> int:
    return C.SOLO_LICENSE_STEPS if is_solo(config) else C.LICENSE_STEPS[config.num_players]


def tokens_per_row(config: Config) -> int:
    return C.SOLO_TOKENS_PER_ROW if is_solo(config) else C.TOKENS_PER_ROW[config.num_players]


def game_tokens(config: Config) -> np.ndarray:
    """Business tokens of the game: all 24 with the factory, else without the lemonade stand."""
    return np.arange(C.N_TOKENS) if has_factory(config) else np.array(C.BASIC_GAME_TOKENS)


def sources(config: Config) -> tuple[str, ...]:
    """Score sources of a configuration (the factory's only with the factory)."""
    return SOURCES if has_factory(config) else BASIC_SOURCES


@dataclass
class State(BatchState):
    """Juicy Fruits batch: `n` games, `P` seats; cells row-major 0..24 (see `components`)."""

    phase: np.ndarray  # (n,) int8: PHASE_NAMES index
    round: np.ndarray  # (n,) int16: rounds completed (0 during the first round)
    island: np.ndarray  # (n, P, 25) int8: cell codes (EMPTY, BLOCKED, SHIP, COLLECTOR + f, TOKEN + t)
    ships: np.ndarray  # (n, P, 12) int8: ship id dealt at each beach position A G B H C I D J E K F L
    ship_present: np.ndarray  # (n, P, 12) bool: that ship still waits (not supplied)
    fruit: np.ndarray  # (n, P, 5) int16: reserves
    fruit_gained: np.ndarray  # (n, P, 5) int16: fruit taken from the supply so far
    board: np.ndarray  # (n, 5, 4) int8: business token waiting in each row and slot, -1 none
    stacks: np.ndarray  # (n, 6) int8: markers left on green 8, green 7, blue 6, blue 5, pink 4, milkshake
    markers: np.ndarray  # (n, P, 6) int8: markers produced by each player, per stack
    milkshake_paid: np.ndarray  # (n, P, 5) int8: milkshakes each player paid with 2 of each fruit
    claims: np.ndarray  # (n, P, 5) int8: business tokens claimed from each row
    points: np.ndarray  # (n, P, 5) int16: score by source (SOURCES)
    license_left: np.ndarray  # (n,) int8: steps of the license marker left to X
    pending_cell: np.ndarray  # (n,) int8: cell of the token chosen to move (move_to) or just moved
    pending_token: np.ndarray  # (n,) int8: business token being used or placed, -1 none
    pending_amount: np.ndarray  # (n,) int8: fruits to split (harvest, claim fruit) or spaces left to produce
    pending_rotation: np.ndarray  # (n,) int8: rotation chosen for the large venue being placed
    discs: np.ndarray  # (n, P, 2) int8: factory node of each factory disc (-1 without the factory)
    arrows_paid: np.ndarray  # (n, P, 14) int8: factory arrows each player paid for
    circles_scored: np.ndarray  # (n, P, 12) int8: free circles of each factory node each player covered
    pending_arrow: np.ndarray  # (n,) int8: step 3, the arrow the first disc took this turn, -1 none
    pending_disc: np.ndarray  # (n,) int8: step 3, which disc (0 / 1) has moved this turn, -1 none
    pile: np.ndarray  # (n, 24) bool: score attack, business tokens still in the face-down pile

    GAME = "juicy_fruits"


SPEC = GameSpec(
    id="juicy_fruits",
    name="Juicy Fruits",
    env_name="JuicyFruits",
    version=2,
    player_counts=(2, 3, 4),
    default_num_players=2,
    config_cls=JuicyFruitsConfig,
    num_actions=NUM_ACTIONS,
    observation_dtype=np.dtype(np.float32),
    chance=True,
    hidden_information=False,  # everything is face up after setup; undrawn ships and tokens are deducible
    simultaneous=False,
    rules_module=__name__,
    truncation=f"after {C.ROUND_CAP} rounds (components.ROUND_CAP), or at the end of a round in which the game "
    "is frozen: no seat can do anything but pass (rules.frozen)",
    capabilities=("PHASE_NAMES", "advance", "field_bounds", "truncation_causes"),
)


# ----------------------------------------------------------------------------------------------
# Observation features: one row of island channels per cell code, ship features per ship id.

CHANNELS = (
    ("empty", 1),
    ("blocked", 1),
    ("ship", 1),
    ("collector", C.N_FRUITS),  # by fruit
    ("small_venue", 1),
    ("large_venue", 1),
    ("stall", 4),  # beach chairs, catering, info booth, lemonade
    ("advanced_collector", C.N_FRUITS),  # two-hot: its two fruits
    ("cart", len(C.COLOURS)),
    ("catering_symbol", 1),
    ("stars", 1),  # stars / 3
)
N_CHANNELS = sum(size for _, size in CHANNELS)  # 24


def _code_features() -> np.ndarray:
    start = {}
    k = 0
    for name, size in CHANNELS:
        start[name] = k
        k += size
    table = np.zeros((N_CODES, N_CHANNELS), dtype=np.float32)
    table[EMPTY, start["empty"]] = 1
    table[BLOCKED, start["blocked"]] = 1
    table[SHIP, start["ship"]] = 1
    for f in range(C.N_FRUITS):
        table[COLLECTOR + f, start["collector"] + f] = 1
    for t in range(C.N_TOKENS):
        row = table[TOKEN + t]
        kind = C.TOKEN_KIND[t]
        if kind == C.SMALL_VENUE:
            row[start["small_venue"]] = 1
        elif kind == C.PLACEHOLDER:
            row[start["large_venue"]] = 1
        elif kind == C.STALL:
            row[start["stall"] + C.TOKEN_STALL[t]] = 1
        elif kind == C.ADVANCED_COLLECTOR:
            row[start["advanced_collector"] + C.TOKEN_FRUITS[t]] = 1
        else:
            row[start["cart"] + C.TOKEN_COLOUR[t]] = 1
        row[start["catering_symbol"]] = float(C.TOKEN_CATERING[t])
        row[start["stars"]] = C.TOKEN_STARS[t] / 3.0
    return table


CODE_FEATURES = _code_features()  # (32, 24)
CODE_FEATURES_T = np.ascontiguousarray(CODE_FEATURES.T)  # (24, 32)
SHIP_FEATURES = np.concatenate(
    [np.ones((C.N_SHIP_TYPES, 1)), C.SHIP_COST / 3.0, C.SHIP_POINTS[:, None] / 4.0], axis=1
).astype(np.float32)  # (50, 7): present, fruit counts / 3, points / 4
N_SHIP_FEATURES = SHIP_FEATURES.shape[1]
# named columns of a ship's row of the `ships` block (`SHIP_FEATURES`); agents read the observation by these names
SHIP_COLUMNS = {
    "present": slice(0, 1),
    "cost": slice(1, 1 + C.N_FRUITS),
    "points": slice(1 + C.N_FRUITS, 2 + C.N_FRUITS),
}


# ----------------------------------------------------------------------------------------------
# Declared facts


HINTS = (  # per action, what taking it would do now: public arithmetic on the observer's island and reserve
    ("legal", 1),  # the action is legal (the action mask)
    ("fruit_gained", C.N_FRUITS),  # fruit gained of each type / 5; an advanced collector's move counts both types
    ("fruit_paid", C.N_FRUITS),  # fruit paid of each type / 5
    ("points", 1),  # points scored at once / 10 (ship, claimed row + venue, marker, factory circle)
    ("spaces", 1),  # spaces a token moves / 4: its longest free run (move_token) or the move (move_to)
    ("ship_missing", 1),  # afterwards: fruit the cheapest waiting ship still lacks / 5 (1: no ship waits)
    ("ships_ready", 1),  # afterwards: waiting ships the reserve pays for / 4
    ("row_missing", 1),  # afterwards: fruit the cheapest row with a token that fits still lacks / 5 (1: none)
    ("rows_ready", 1),  # afterwards: such rows the reserve pays for / 5
    ("movers_free", 1),  # placement: own movable tokens that can still move afterwards / 5
    ("mover_room", 1),  # placement: their free runs (longest direction each) summed / 20
    ("own_run", 1),  # placement of a mobile token: its own longest free run from there / 4
)
N_HINTS = sum(size for _, size in HINTS)  # 20
HINT = {}
_k = 0
for _name, _size in HINTS:
    HINT[_name] = slice(_k, _k + _size)
    _k += _size


def observation_layout(config: Config) -> dict[str, slice]:
    """Named slices of a seat's observation; blocks over players list the observer first, then in turn order.

    The basic game's blocks come first, in the same places for every option; the juice factory's
    blocks follow only with `score_board="juicy"`, the score attack's only with one player.
    """
    p = config.num_players
    sizes = [
        ("phase", N_LIVE_PHASES if has_factory(config) else N_BASIC_PHASES),  # one-hot; all zero once over
        ("to_move", p),  # relative seat to move (one-hot)
        ("seat", p),  # the observer's own seat in turn order (seat 0 starts; ties go to the later seat)
        ("round", 1),  # rounds completed / round cap
        ("license_left", 1),  # steps of the license marker left / steps at the start
        ("final_round", 1),  # 1 once the license marker has reached X (score attack: or in the last round)
        ("stacks", C.N_STACKS),  # markers left / stack size
        ("board", N_SLOTS * C.N_TOKENS),  # token in each row and slot (one-hot), rows 1..5, slots 1..4
        ("pending_cell", G.N_CELLS),  # the token chosen to move / just moved (one-hot)
        ("pending_token", C.N_TOKENS),  # the business token being used or placed (one-hot)
        ("pending_amount", 1),  # fruits to split or spaces left to produce / 5
        ("pending_rotation", G.MAX_ROTATIONS),  # rotation chosen for a large venue (one-hot)
        ("fruit", p * C.N_FRUITS),  # reserves / 10
        ("scores", p),  # score / 100
        ("ships", p * C.N_SHIPS_PER_ISLAND * N_SHIP_FEATURES),  # per beach position A G B H ... L
        ("islands", p * N_CHANNELS * G.N_CELLS),  # per player, channel-major planes of 25 cells
        (
            "hints",
            NUM_ACTIONS * N_HINTS,
        ),  # per action (action-major), `HINTS`; all zero unless it is the observer's turn
    ]
    if has_factory(config):
        sizes += [
            ("factory_discs", p * C.N_NODES),  # per player, own discs on each factory node / 2
            ("finals_taken", len(C.FACTORY_FINALS)),  # final license circles reached (blocked from then on)
            ("bottles", p),  # per player, bottles under its discs / 12 (the lemonade stand's points)
            ("pending_arrow", C.N_ARROWS),  # the arrow the first disc took this turn (one-hot)
        ]
    if is_solo(config):
        sizes += [
            ("pile", C.N_TOKENS),  # business tokens still in the face-down pile
            ("rival_row", C.N_ROWS),  # the row the rival empties a slot of at the end of this round (one-hot)
        ]
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def observation_shape(config: Config) -> tuple[int]:
    return (max(sl.stop for sl in observation_layout(config).values()),)


OBSERVATION_HIGH = 100.0  # one-hot bits, shares, reserves / 10 and scores / 100 (bounded by the round cap)
MAX_BOTTLES = C.FACTORY_DISCS * int(C.NODE_BOTTLE.max())  # 12: the most a lemonade stand can score


def decisions_per_turn(config: Config) -> int:
    return MAX_DECISIONS_PER_TURN + (MAX_FACTORY_DECISIONS if has_factory(config) else 0)


def max_game_length(config: Config) -> int:
    return round_cap(config) * config.num_players * decisions_per_turn(config)


def max_stall_points(config: Config | None = None) -> int:
    """Most points a player can get from stalls at the end (all its stalls, every beach cleared...)."""
    chairs = C.STALL_POINTS_PER_BEACH * len(C.BEACHES)
    catering = C.STALL_POINTS_PER_CATERING * int(C.TOKEN_CATERING.sum())
    info = C.STALL_POINTS_PER_STAR * int(C.TOKEN_STARS.sum())
    lemonade = MAX_BOTTLES if config is not None and has_factory(config) else 0
    return chairs + catering + info + lemonade


def reward_bounds(config: Config) -> tuple[float, float]:
    if config.reward == "terminal":
        return (-1.0, 1.0)
    one_decision = max(C.TOKEN_POINTS.max(), C.STACK_VALUE.max(), C.ROW_POINTS.max(), C.SHIP_POINTS.max())
    if has_factory(config):
        one_decision = max(one_decision, C.NODE_POINTS.max())
    return (0.0, float(one_decision + max_stall_points(config)))


# ----------------------------------------------------------------------------------------------
# Setup


def start_island(config: Config) -> np.ndarray:
    """`(25,)` int8 island before collectors and ships are placed (corners blocked if unplayable)."""
    island = np.zeros(G.N_CELLS, dtype=np.int8)
    if not config.corners_playable:
        island[G.CORNER_CELLS] = BLOCKED
    return island


_kernels = kernels_of(__package__)  # the compiled kernels, imported on first use
_state_kernels = StateKernels(__package__, State)  # those taking state arrays, given the state itself


def init(config: Config, keys: np.ndarray) -> State:
    """`len(keys)` games set up as the rulebook says, each from its own key.

    Collectors are shuffled onto the five ponds of each island, ships dealt from the bags, and the
    leftmost waiting spaces of each business row drawn from the game's tokens; the score attack keeps
    the undrawn tokens as its face-down pile.
    """
    keys = np.array(keys, dtype=np.uint64).reshape(-1)
    n, p = len(keys), config.num_players
    island = np.empty((n, p, G.N_CELLS), dtype=np.int8)
    ships = np.empty((n, p, C.N_SHIPS_PER_ISLAND), dtype=np.int8)
    board = np.empty((n, C.N_ROWS, C.ROW_SLOTS), dtype=np.int8)
    pile = np.zeros((n, C.N_TOKENS), dtype=bool)
    _kernels().init(
        keys, island, ships, board, pile, start_island(config), game_tokens(config).astype(np.int64),
        tokens_per_row(config), config.ship_setup == "mixed", is_solo(config),
    )  # fmt: skip
    start_node = C.START_NODE if has_factory(config) else NO
    state = State(
        config=config,
        keys=keys,
        done=np.zeros(n, dtype=bool),
        truncated=np.zeros(n, dtype=bool),
        to_move=np.zeros(n, dtype=np.int8),
        step_count=np.zeros(n, dtype=np.int32),
        phase=np.zeros(n, dtype=np.int8),
        round=np.zeros(n, dtype=np.int16),
        island=island,
        ships=ships,
        ship_present=np.ones((n, p, C.N_SHIPS_PER_ISLAND), dtype=bool),
        fruit=np.zeros((n, p, C.N_FRUITS), dtype=np.int16),
        fruit_gained=np.zeros((n, p, C.N_FRUITS), dtype=np.int16),
        board=board,
        stacks=np.broadcast_to(C.STACK_SIZE, (n, C.N_STACKS)).copy(),
        markers=np.zeros((n, p, C.N_STACKS), dtype=np.int8),
        milkshake_paid=np.zeros((n, p, C.N_FRUITS), dtype=np.int8),
        claims=np.zeros((n, p, C.N_ROWS), dtype=np.int8),
        points=np.zeros((n, p, len(SOURCES)), dtype=np.int16),
        license_left=np.full(n, license_steps(config), dtype=np.int8),
        pending_cell=np.full(n, NO, dtype=np.int8),
        pending_token=np.full(n, NO, dtype=np.int8),
        pending_amount=np.zeros(n, dtype=np.int8),
        pending_rotation=np.full(n, NO, dtype=np.int8),
        discs=np.full((n, p, C.FACTORY_DISCS), start_node, dtype=np.int8),
        arrows_paid=np.zeros((n, p, C.N_ARROWS), dtype=np.int8),
        circles_scored=np.zeros((n, p, C.N_NODES), dtype=np.int8),
        pending_arrow=np.full(n, NO, dtype=np.int8),
        pending_disc=np.full(n, NO, dtype=np.int8),
        pile=pile,
    )
    _begin_turn(state, np.arange(n))
    return state


# ----------------------------------------------------------------------------------------------
# Helpers over the mover's island


def node_occupancy(discs: np.ndarray) -> np.ndarray:
    """`(..., P, 12)` int: factory discs of each player on each node, from `discs (..., P, 2)` (-1: none)."""
    return (discs[..., :, None] == np.arange(C.N_NODES)).sum(axis=-2)


# ----------------------------------------------------------------------------------------------
# Masks


def acting(state: State) -> np.ndarray:
    """`(n, P)` bool: the seat to move in each live game (turn-based)."""
    out = np.zeros((state.batch_size, state.config.num_players), dtype=bool)
    live = np.flatnonzero(~state.done)
    out[live, state.to_move[live]] = True
    return out


def legal_mask(state: State, player=None) -> np.ndarray:
    """`(n, 66)` bool: legal actions of `player` (default: the seat to move); all False when it is not its turn."""
    mask = np.zeros((state.batch_size, NUM_ACTIONS), dtype=bool)
    _state_kernels.legal_mask(state, seat_array(state, player), mask)
    return mask


# ----------------------------------------------------------------------------------------------
# Step


def step(
    state: State, actions: np.ndarray, active: np.ndarray | None = None, *, in_place: bool = False
) -> tuple[State, np.ndarray]:
    """Apply one legal action per game; returns the new state and `(n, P)` rewards.

    Adapters check the mask; here an action of the wrong kind for its phase (or out of range) is a
    `ValueError` naming the phase and the legal actions, and within the right kind actions are trusted.

    `in_place=True` changes `state` itself and returns it: for an owner of the state whose actions are
    already checked against the mask (an env), it saves the copy.
    """
    n, p = state.batch_size, state.config.num_players
    actions = np.asarray(actions)
    if actions.size != n or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"step needs {n} integer actions (one per game), got {actions.dtype} of shape {actions.shape}")
    actions = actions.astype(np.int64).reshape(n)
    live = ~state.done if active is None else ~state.done & np.asarray(active, dtype=bool).reshape(n)
    s = state if in_place else state.copy()
    rewards = np.zeros((n, p), dtype=np.float32)
    cfg = s.config
    ended = np.zeros(n, dtype=bool)
    g = _state_kernels.step(
        actions, live, s, rewards, ended, PHASE_ACTIONS, has_factory(cfg), is_solo(cfg), round_cap(cfg),
        tokens_per_row(cfg), cfg.reward == "score",
    )  # fmt: skip
    if g >= 0:
        a = int(actions[g])
        what = action_to_string(state.config, a) if 0 <= a < NUM_ACTIONS else f"out of 0..{NUM_ACTIONS - 1}"
        raise ValueError(
            f"Juicy Fruits game {g}: action {a} ({what}) cannot be taken in phase {PHASE_NAMES[state.phase[g]]!r}; "
            f"legal actions are {np.flatnonzero(legal_mask(state.take(g))[0]).tolist()}"
        )
    if cfg.reward == "terminal" and ended.any():
        rewards[ended] = outcome_rewards(winners(s.take(np.flatnonzero(ended))))
    return s, rewards


def advance(state: State, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One game (batch of one) stepped in place by a legal `action`: returns the rewards `(P,)`, every
    seat's mask `(P, 66)` and the observation `(O,)` of the seat to move afterwards, equal to
    `step(..., in_place=True)`, `legal_mask` and `observe` but in one kernel call (the AEC env's step)."""
    cfg = state.config
    size, factory, solo, per_row, pay_scores, offsets, phases, steps = advance_constants(cfg)
    rewards, ended, masks, obs = advance_buffers(cfg.num_players, NUM_ACTIONS, size)
    wrong_kind = _state_kernels.advance(
        operator.index(action), state, rewards, ended, masks, obs, PHASE_ACTIONS, factory, solo,
        round_cap(cfg), per_row, pay_scores, offsets, phases, steps,
    )  # fmt: skip
    if wrong_kind >= 0:
        step(state, np.array([action], dtype=np.int64))  # raises step's error; nothing changed
    if cfg.reward == "terminal" and ended[0]:
        rewards[0] = outcome_rewards(winners(state))[0]
    return rewards[0], masks, obs[0]


@cache
def advance_constants(config: Config) -> tuple:
    """`advance`'s arguments fixed by the configuration (the round cap is read at each call, as `step` does);
    search's compiled rollouts take the same (`agents/greedy`)."""
    size, offsets, phases = _observation_plan(config)
    return (
        size,
        has_factory(config),
        is_solo(config),
        tokens_per_row(config),
        config.reward == "score",
        offsets,
        phases,
        license_steps(config),
    )


def frozen(s: State, g: np.ndarray) -> np.ndarray:
    """`(m,)` bool: in games `g`, between turns, no seat can do anything on its turn but pass.

    A seat can only pass when no token of its island can move, no waiting ship's order is covered
    by its reserve, no waiting business token is both paid for and has room on its island, and
    (with the factory) no disc can advance. A pass changes none of that, for anyone: every later
    turn is the same forced pass, the license marker never moves again, and the game could only
    reach the round cap.
    """
    g = np.asarray(g, dtype=np.int64).reshape(-1)
    out = np.zeros(len(g), dtype=bool)
    _state_kernels.frozen_many(s, g, has_factory(s.config), out)
    return out


def truncation_causes(state: State) -> dict[str, np.ndarray]:
    """`(n,)` bool per cause of a cut-off: the round cap, or a frozen game cut off before it."""
    capped = state.truncated & (state.round >= round_cap(state.config))
    return {"round cap": capped, "frozen": state.truncated & ~capped}


def rival_row(rounds_completed: np.ndarray) -> np.ndarray:
    """Score attack: the business row (0-based) the rival empties a slot of at the end of the current round."""
    return _kernels().rival_row(np.asarray(rounds_completed, dtype=np.int64))


def _begin_turn(s: State, g: np.ndarray) -> None:
    """Step 1 for the games `g` if some token can move, else it is forfeited and step 2 begins."""
    _state_kernels.begin_turns(s, np.asarray(g, dtype=np.int64).reshape(-1))


# ----------------------------------------------------------------------------------------------
# End of the game and scoring


def owned_tokens(island: np.ndarray) -> np.ndarray:
    """`(..., 24)` bool: business tokens standing on each island."""
    return (island[..., :, None] == TOKEN + np.arange(C.N_TOKENS, dtype=np.int8)).any(axis=-2)


BOTTLE_OF_NODE = np.append(C.NODE_BOTTLE, 0).astype(np.int64)  # index -1 (no disc): no bottle


def bottles(discs: np.ndarray) -> np.ndarray:
    """`(..., P)` bottles beneath each player's factory discs `(..., P, 2)` (0 without the factory)."""
    discs = np.asarray(discs)
    out = np.zeros(discs.shape[:-1], dtype=np.int64)
    # int8, the state's own type: the kernel `step` also calls is then compiled once
    _kernels().bottles_many(np.ascontiguousarray(discs.reshape(-1, discs.shape[-1]), dtype=np.int8), out.reshape(-1))
    return out


def stall_points(island: np.ndarray, ship_present: np.ndarray, discs: np.ndarray | None = None) -> np.ndarray:
    """`(..., P)` end-of-game stall points of islands `(..., P, 25)` with ships `(..., P, 12)` and factory
    discs `(..., P, 2)` (none: no factory).

    Beach chair rental: 4 per beach cleared of all its ships; catering service: 4 per own mobile
    token with the catering symbol; info booth: 1 per star on own venues; lemonade stand: the bottle
    beneath each own factory disc.
    """
    island = np.asarray(island)
    lead = island.shape[:-1]
    factory = discs is not None
    discs = np.full((*lead, C.FACTORY_DISCS), NO) if discs is None else np.asarray(discs)
    out = np.zeros(int(np.prod(lead)), dtype=np.int64)
    _kernels().stall_points_many(
        np.ascontiguousarray(island.reshape(-1, G.N_CELLS)),
        np.ascontiguousarray(np.asarray(ship_present).reshape(-1, C.N_SHIPS_PER_ISLAND)),
        np.ascontiguousarray(discs.reshape(-1, C.FACTORY_DISCS), dtype=np.int8),  # as the state's (`bottles`)
        factory,
        out,
    )
    return out.reshape(lead).astype(np.int16)


def scores(state: State) -> np.ndarray:
    """`(n, P)` current score of each seat (the score track)."""
    return state.points.sum(axis=2).astype(np.int64)


def final_scores(state: State) -> np.ndarray:
    """`(n, P)` each seat's score (final once `done`)."""
    return scores(state)


def winners(state: State) -> np.ndarray:
    """`(n, P)` bool: the single winner, most points, ties to the player who took their turn last."""
    total = scores(state)
    best = total == total.max(axis=1, keepdims=True)
    p = state.config.num_players
    last_best = p - 1 - np.argmax(best[:, ::-1], axis=1)
    return np.arange(p)[None, :] == last_best[:, None]


# ----------------------------------------------------------------------------------------------
# Observation


def _code_fruit_table() -> tuple[np.ndarray, np.ndarray]:
    """Per cell code: the fruit types a move of it collects (one-hot, two-hot) and its bonus fruit (+1)."""
    fruit = np.zeros((N_CODES, C.N_FRUITS), dtype=np.float32)
    bonus = np.zeros(N_CODES, dtype=np.float32)
    fruit[COLLECTOR + np.arange(C.N_FRUITS), np.arange(C.N_FRUITS)] = 1
    for t in np.flatnonzero(C.TOKEN_KIND == C.ADVANCED_COLLECTOR):
        fruit[TOKEN + t, C.TOKEN_FRUITS[t]] = 1
        bonus[TOKEN + t] = 1
    return fruit, bonus


CODE_FRUIT, CODE_BONUS = _code_fruit_table()
HINT_SCALE_RUN = float(G.MAX_DISTANCE)


def action_hints(state: State, player) -> np.ndarray:
    """`(n, 66, N_HINTS)` float32: what each legal action of `player` would do now (`HINTS`).

    Public arithmetic a player does at the table: the fruit an action brings or costs, the points it
    scores, how far a token can run, what the reserve still lacks for the cheapest ship and row
    afterwards, and how much room a placement leaves the own movers. Zero when it is not the seat's turn.
    """
    out = np.zeros((state.batch_size, NUM_ACTIONS * N_HINTS), dtype=np.float32)
    _state_kernels.action_hints(state, seat_array(state, player), has_factory(state.config), out)
    return out.reshape(state.batch_size, NUM_ACTIONS, N_HINTS)


def observe(state: State, player) -> np.ndarray:
    """`(n, O)` float32: the whole public state, seen from `player` (int or `(n,)` ints)."""
    cfg = state.config
    size, offsets, phases = _observation_plan(cfg)
    obs = np.zeros((state.batch_size, size), dtype=np.float32)
    _state_kernels.observe(
        seat_array(state, player), state, offsets, phases, round_cap(cfg), license_steps(cfg),
        is_solo(cfg), has_factory(cfg), obs,
    )  # fmt: skip
    return obs


@cache
def _observation_plan(config: Config) -> tuple[int, np.ndarray, int]:
    """The observation's length, the start of each block in the kernels' order (`kernels.BLOCKS`; -1: not
    in this layout) and the size of the phase one-hot."""
    from fruit_envs.games.juicy_fruits.kernels import BLOCKS

    lay = observation_layout(config)
    offsets = np.array([lay[name].start if name in lay else -1 for name in BLOCKS], dtype=np.int64)
    return observation_shape(config)[0], offsets, lay["phase"].stop - lay["phase"].start


# ----------------------------------------------------------------------------------------------
# Action names

ROTATION_NAMES = tuple(f"rotate {90 * k}" for k in range(G.MAX_ROTATIONS))


ARROW_ACTION_NAMES = tuple(f"arrow {name}" for name in C.ARROW_NAMES)  # "arrow S-A1"


def _base_name(action: int) -> str:
    if CELL <= action < CLAIM:
        return G.CELL_NAMES[action - CELL]
    if CLAIM <= action < PASS:
        row, slot = divmod(action - CLAIM, C.ROW_SLOTS)
        return f"claim row {row + 1} slot {slot + 1}"
    if action == PASS:
        return "pass"
    if ROTATE <= action < SPLIT:
        return ROTATION_NAMES[action - ROTATE]
    if SPLIT <= action < PRODUCE:
        return f"split {action - SPLIT}"
    if PRODUCE <= action < MILKSHAKE:
        return f"ice cream {C.STACK_NAMES[action - PRODUCE]}"
    return f"milkshake {C.FRUITS[action - MILKSHAKE]}"


def action_to_string(config: Config, action: int) -> str:
    """Readable name of an action; cell actions read in the light of the phase (move from/to, supply, place).

    With the juice factory, the first 14 actions also name the factory's arrows (step 3):
    "a1 / arrow S-A1".
    """
    action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"Juicy Fruits actions are 0..{NUM_ACTIONS - 1}, got {action}")
    name = _base_name(action)
    if config is not None and has_factory(config) and ARROW <= action < ARROW + C.N_ARROWS:
        name += f" / {ARROW_ACTION_NAMES[action - ARROW]}"
    return name


ACTION_NAMES = tuple(action_to_string(None, a) for a in range(NUM_ACTIONS))
_ACTION_BY_NAME = {name.lower(): a for a, name in enumerate(ACTION_NAMES)}
for _k, _name in enumerate(ARROW_ACTION_NAMES):
    _ACTION_BY_NAME[_name.lower()] = _ACTION_BY_NAME[f"{ACTION_NAMES[ARROW + _k]} / {_name}".lower()] = ARROW + _k


def string_to_action(config: Config, text: str) -> int:
    """The action named `text` (as `action_to_string` writes it; "a1" and "arrow S-A1" name the same action)."""
    key = " ".join(str(text).strip().lower().split())
    action = _ACTION_BY_NAME.get(key)
    if action is None or (key.startswith("arrow") or "/" in key) and not (config is None or has_factory(config)):
        raise ValueError(
            f"no Juicy Fruits action is called {text!r}; actions are cells 'a1'..'e5', 'claim row R slot K', "
            "'pass', 'rotate 0/90/180/270', 'split K', 'ice cream green 8' ..., 'milkshake banana' ..., "
            "and with the juice factory 'arrow S-A1' ..."
        )
    return action


# ----------------------------------------------------------------------------------------------
# Consistency


def fruit_spent(state: State) -> np.ndarray:
    """`(n, P, 5)` fruit returned to the supply, from the record of what each player bought."""
    supplied = (~state.ship_present)[..., None] * C.SHIP_COST[state.ships]  # (n, P, 12, 5)
    spent = supplied.sum(axis=2, dtype=np.int64)
    spent += state.claims.astype(np.int64) @ C.ROW_COST.astype(np.int64)
    ice_cream = state.markers[..., : C.N_ICE_CREAM_STACKS].astype(np.int64)
    spent += ice_cream @ C.STACK_COST[: C.N_ICE_CREAM_STACKS].astype(np.int64)
    spent += C.MILKSHAKE_FRUITS * state.milkshake_paid.astype(np.int64)
    spent += state.arrows_paid.astype(np.int64) @ C.ARROW_COST.astype(np.int64)
    return spent


def traced_points(state: State) -> np.ndarray:
    """`(n, P, 6)` points each source must have paid, recomputed from the record (stalls: once over)."""
    out = np.zeros(state.points.shape, dtype=np.int64)
    supplied = (~state.ship_present) * C.SHIP_POINTS[state.ships]
    out[..., SHIPS_PTS] = supplied.sum(axis=2)
    out[..., CLAIMS_PTS] = state.claims.astype(np.int64) @ C.ROW_POINTS.astype(np.int64)
    owned = owned_tokens(state.island)
    out[..., VENUES_PTS] = (owned * np.where(C.IS_VENUE, C.TOKEN_POINTS, 0)).sum(axis=2)
    out[..., MARKERS_PTS] = state.markers.astype(np.int64) @ C.STACK_VALUE.astype(np.int64)
    stalls = stall_points(state.island, state.ship_present, state.discs)
    out[..., STALLS_PTS] = np.where((state.done & ~state.truncated)[:, None], stalls, 0)  # scored at a real end
    out[..., FACTORY_PTS] = state.circles_scored.astype(np.int64) @ C.NODE_POINTS.astype(np.int64)
    return out


def invariants(state: State) -> list[str]:
    """Problems with a batch (empty when sound): fruit and points accounted, tokens and markers conserved."""
    cfg = state.config
    n = state.batch_size
    problems = []

    def check(bad: np.ndarray, what: str) -> None:
        bad = np.asarray(bad)
        if bad.ndim > 1:
            bad = bad.reshape(n, -1).any(axis=1)
        if bad.any():
            problems.append(f"{what} (game {int(np.flatnonzero(bad)[0])})")

    # fruit: reserve = taken from the supply - returned for ships, claims, ice cream and milkshakes
    check(state.fruit < 0, "negative fruit reserve")
    check(state.fruit != state.fruit_gained - fruit_spent(state), "fruit not accounted")
    # points: every point traced to a ship, claim, venue, marker, stall or factory circle
    check(state.points != traced_points(state), "points not traced to their sources")
    # markers conserved; milkshakes paid
    check(state.stacks + state.markers.sum(axis=1) != C.STACK_SIZE, "ice cream markers not conserved")
    check(state.stacks < 0, "negative stack")
    check(state.milkshake_paid.sum(axis=2) != state.markers[..., C.MILKSHAKE], "milkshakes not paid for")
    # license marker: one step per claim, per emptied stack and per final factory circle reached, nothing beyond X
    occupancy = node_occupancy(state.discs.astype(np.int64))  # (n, P, 12)
    moved = state.claims.sum(axis=(1, 2)) + (state.stacks == 0).sum(axis=1)
    moved += (occupancy.sum(axis=1)[:, C.NODE_IS_FINAL] > 0).sum(axis=1)
    check(state.license_left != np.maximum(license_steps(cfg) - moved, 0), "license marker misplaced")
    # islands: each collector once, ships on their beach cells, corners as configured
    island = state.island
    for f in range(C.N_FRUITS):
        check((island == COLLECTOR + f).sum(axis=2) != 1, f"the {C.FRUITS[f]} collector is not on its island once")
    beach = island[:, :, G.BEACH_CELLS]
    check((beach == SHIP) != state.ship_present, "ship tokens and island cells disagree")
    check((island == SHIP).sum(axis=2) != state.ship_present.sum(axis=2), "a ship stands off the beach")
    corners_blocked = island[:, :, G.CORNER_CELLS] == BLOCKED
    check(corners_blocked != (not cfg.corners_playable), "corners do not match corners_playable")
    check((island == BLOCKED).sum(axis=2) != corners_blocked.sum(axis=2), "a blocked cell off the corners")
    check((island < 0) | (island >= N_CODES), "unknown island code")
    # business tokens: each in one place at most, large venues on a placement of their shape
    cells = (island[..., None] == TOKEN + np.arange(C.N_TOKENS, dtype=np.int8)).sum(axis=2)  # (n, P, 24)
    shape_size = np.array([len(C.SHAPES[s]) for s in C.TOKEN_SHAPE])
    check((cells != 0) & (cells != shape_size), "a token covers the wrong number of cells")
    on_board = np.zeros((n, C.N_TOKENS), dtype=np.int64)
    b = state.board.reshape(n, -1).astype(np.int64)
    gb, sb = np.nonzero(b >= 0)
    np.add.at(on_board, (gb, b[gb, sb]), 1)
    pending = np.zeros((n, C.N_TOKENS), dtype=np.int64)
    placing = np.isin(state.phase, (ROTATE_PHASE, PLACE))
    pending[np.flatnonzero(placing), state.pending_token[placing]] = 1
    where = on_board + (cells > 0).sum(axis=1) + pending + state.pile
    check(where > 1, "a business token is in two places")
    if not has_factory(cfg):
        check(where[:, C.LEMONADE] > 0, "the lemonade stand is in a basic game")
    check(state.board[:, :, tokens_per_row(cfg) :] >= 0, "a token on a waiting space not used with this many players")
    if not is_solo(cfg):
        check(state.pile, "a face-down business pile outside the score attack")
    owned = (cells > 0).sum(axis=2)
    owned[np.flatnonzero(placing), state.to_move[placing]] += 1
    check(owned != state.claims.sum(axis=2), "tokens owned differ from tokens claimed")
    large = np.flatnonzero(C.TOKEN_SHAPE != C.SINGLE)
    for t in large:
        g, k = np.nonzero(cells[:, :, t] > 0)
        if len(g):
            covered = G.bits(island[g, k] == TOKEN + t)
            valid = (covered[:, None] == G.PLACEMENT_BITS[C.TOKEN_SHAPE[t]].reshape(1, -1)).any(axis=1)
            if not valid.all():
                problems.append(f"the {C.TOKEN_NAMES[t]} is not laid on an area of its shape (game {g[~valid][0]})")
    # ships: each token dealt once
    dealt = np.sort(state.ships.reshape(n, -1), axis=1)
    check((dealt[:, 1:] == dealt[:, :-1]).any(axis=1), "a ship token dealt twice")
    _factory_invariants(state, occupancy, check)
    # phases and turns
    check(state.done != (state.phase == OVER), "done and phase disagree")
    check(state.truncated & ~state.done, "truncated but not done")
    early = state.done & ~state.truncated & (state.license_left > 0)
    if is_solo(cfg):
        check(state.truncated, "a score attack is never truncated (its round limit is its end)")
        early &= state.round < round_cap(cfg)
    check(early, "the game ended before the license marker reached X")
    check(state.round > round_cap(cfg), "past the round cap")
    _pending_invariants(state, check)
    return problems


# What each live phase keeps of the decision in progress: a pending cell and token (True: one, False:
# none, ...: either), the range of fruits or spaces still to split or produce, and whether a rotation
# is chosen.
PENDING = {
    MOVE_TOKEN: (False, False, (0, 0), False),
    MOVE_TO: (True, False, (0, 0), False),
    HARVEST_SPLIT: (True, True, (2, MAX_SPLIT), False),
    PRODUCE_PHASE: (True, True, (1, MAX_SPLIT), False),
    SUPPLY_OR_CLAIM: (..., ..., (0, 0), False),
    ROTATE_PHASE: (..., True, (0, 0), False),
    PLACE: (..., True, (0, 0), True),
    CLAIM_FRUIT: (True, True, (1, 1), False),
    FACTORY: (False, False, (0, 0), False),
}


def _pending_invariants(state: State, check) -> None:
    """The decision in progress matches the phase: what it moves, splits, produces, turns or places."""
    phase, token = state.phase, state.pending_token.astype(np.int64)
    for ph, (cell, has_token, (low, high), rotation) in PENDING.items():
        at = (phase == ph) & ~state.done
        name = PHASE_NAMES[ph]
        if cell is not ...:
            check(at & ((state.pending_cell >= 0) != cell), f"phase {name!r} with {'no' if cell else 'a'} pending cell")
        if has_token is not ...:
            check(at & ((token >= 0) != has_token), f"phase {name!r} with {'no' if has_token else 'a'} pending token")
        check(at & ((state.pending_amount < low) | (state.pending_amount > high)), f"phase {name!r}: pending amount")
        check(at & ((state.pending_rotation >= 0) != rotation), f"phase {name!r}: pending rotation")
    live = ~state.done
    kind = C.TOKEN_KIND[np.maximum(token, 0)]
    splitting = live & np.isin(phase, (HARVEST_SPLIT, CLAIM_FRUIT))
    check(splitting & (kind != C.ADVANCED_COLLECTOR), "fruit split from a token that is not an advanced collector")
    producing = live & (phase == PRODUCE_PHASE)
    check(producing & (C.TOKEN_COLOUR[np.maximum(token, 0)] < 0), "producing without an ice cream cart")
    turns = G.N_ROTATIONS[C.TOKEN_SHAPE[np.maximum(token, 0)]]
    check(live & (phase == ROTATE_PHASE) & (turns < 2), "choosing a rotation for a token with one")
    check(live & (phase == PLACE) & (state.pending_rotation >= turns), "a rotation the token does not have")


def field_bounds(config: Config) -> dict[str, tuple]:
    """Inclusive value bounds of the game's fields, checked on every loaded state before the invariants."""
    factory = has_factory(config)
    big = 10_000  # counts and scores are int16; no game comes near this
    return {
        "phase": (0, OVER),
        "round": (0, round_cap(config)),
        "island": (0, N_CODES - 1),
        "ships": (0, len(C.SHIPS) - 1),
        "fruit": (0, big),
        "fruit_gained": (0, big),
        "board": (NO, C.N_TOKENS - 1),
        "stacks": (0, C.STACK_SIZE),
        "markers": (0, C.STACK_SIZE),
        "milkshake_paid": (0, int(C.STACK_SIZE[C.MILKSHAKE])),
        "claims": (0, C.N_TOKENS),
        "points": (0, big),
        "license_left": (0, license_steps(config)),
        "pending_cell": (NO, G.N_CELLS - 1),
        "pending_token": (NO, C.N_TOKENS - 1),
        "pending_amount": (0, MAX_SPLIT),
        "pending_rotation": (NO, G.MAX_ROTATIONS - 1),
        "discs": (0, C.N_NODES - 1) if factory else (NO, NO),
        "arrows_paid": (0, 100),
        "circles_scored": (0, 100),
        "pending_arrow": (NO, C.N_ARROWS - 1),
        "pending_disc": (NO, C.FACTORY_DISCS - 1),
    }


def _factory_invariants(state: State, occupancy: np.ndarray, check) -> None:
    """Factory discs where the rules allow them, their moves paid for and their points recorded."""
    cfg = state.config
    n = state.batch_size
    in_factory = state.phase == FACTORY
    check((state.pending_arrow >= 0) & ~in_factory, "a pending factory arrow outside step 3")
    check((state.pending_disc >= 0) != (state.pending_arrow >= 0), "pending factory disc and arrow disagree")
    if not has_factory(cfg):
        check(state.discs != NO, "factory discs in a basic game")
        check(state.arrows_paid != 0, "factory arrows paid in a basic game")
        check(state.circles_scored != 0, "factory circles scored in a basic game")
        check(in_factory, "step 3 in a basic game")
        return
    check((state.discs < 0) | (state.discs >= C.N_NODES), "a factory disc off the factory")
    colours = (occupancy > 0).sum(axis=1)  # (n, 12)
    check((colours > 1) & ~C.NODE_IS_TANK, "two colours on one single circle")
    check(colours > C.TANK_CIRCLES, "more colours in a tank than it has circles")
    check(occupancy.sum(axis=1)[:, C.NODE_IS_FINAL] > 1, "a second disc on a final circle (it is blocked)")
    moves = C.NODE_DEPTH[state.discs.astype(np.int64)].sum(axis=2)  # (n, P): arrows advanced so far
    check(state.arrows_paid.sum(axis=2) > moves, "factory arrows paid for moves never made")
    check(state.circles_scored.sum(axis=2) > moves, "factory circles scored without moves")
    check(state.arrows_paid < 0, "negative factory record")
    check(state.circles_scored < 0, "negative factory record")
    g = np.flatnonzero(state.pending_disc >= 0)
    if len(g):
        moved_to = state.discs[g, state.to_move[g].astype(np.int64), state.pending_disc[g].astype(np.int64)]
        bad = np.zeros(n, dtype=bool)
        bad[g] = moved_to != C.ARROW_TO[state.pending_arrow[g].astype(np.int64)]
        check(bad, "the disc that moved this turn is not where its arrow leads")


# Readable views (describe, from_description, render) live in `text.py`.
from fruit_envs.games.juicy_fruits.text import describe, from_description, redeal_hidden, render  # noqa: E402

__all__ = [
    "SPEC",
    "State",
    "acting",
    "action_to_string",
    "advance",
    "describe",
    "field_bounds",
    "final_scores",
    "from_description",
    "init",
    "invariants",
    "legal_mask",
    "observation_layout",
    "observation_shape",
    "observe",
    "redeal_hidden",
    "render",
    "reward_bounds",
    "step",
    "string_to_action",
    "winners",
]
