"""Quickity Pickity rules as pure, batched numpy functions (imports numpy and the core only).

Real time as simultaneous ticks. Each tick every player takes one step of the rulebook's cycle at
the same moment: flip a face-down tile (A), take a face-up fruit into the hand (B), place the held
fruit into one of the player's sets or a new set. The seats' choices are collected one by one in
seat order, hidden from each other (as in Cherry Picking's commit phase); the last seat's choice
resolves the tick: flips first, then - unless the third monkey has just appeared - takes and places.

Per-seat phases: `flip` (after placing, or at the start of a round: the next step must be a flip),
`take` (after a flip: take a face-up fruit, or decline and flip another tile), `place` (holding a
fruit). A seat whose take fails stays in `take`.

Decisions, one flat action space of 99 for every configuration:

* `0`      flip a face-down tile. Face-down tiles are shuffled and indistinguishable, so which one a
  player flips carries no information: a flip turns the next face-down slot of the shuffled layout
  (a uniformly random tile). Players flipping in the same tick turn different tiles; only when more
  of them flip than tiles lie face down do two turn the same tile, and both reveal it (a tick used
  each).
* `1..32`  take a face-up fruit of type `k - 1` (`16 * expression + 4 * colour + shape`). Copies of a
  type are identical, so a take names the type. When more players take a type in one tick than
  copies lie face up, the copies go to players chosen uniformly at random (the game's key); the
  others' takes fail.
* `33..96` place the held fruit into own set 0..63: "You can build any number of sets.", and a zone
  never holds more sets than fruit in play (64, or 32 with two players), so these slots never run
  out;
* `97`     place the held fruit as a new set (legal whenever a fruit is held);
* `98`     wait: legal only for a seat with nothing legal in its phase. That cannot happen in a live
  round (a tile stays face down until the third monkey appears), so it is the parallel env's wait
  action and a safety net.

When a tick's flips make three monkeys face up, play stops: that tick's takes and places do not
happen, fruit in hand goes back to the table unplaced, and the round is scored.

With two players a uniformly random half of the 64 fruit (32 tiles) is returned to the box at setup,
unseen, for the whole game (`State.in_play` holds the kinds in play; option `two_player_tiles`).
Which fruit are in play is learned by flipping; `redeal_hidden` resamples it from the exact posterior.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cache

import numpy as np

from fruit_envs.core import rng, validate
from fruit_envs.core.lazy import StateKernels, kernels_of
from fruit_envs.core.spec import Config, GameSpec, option, outcome_rewards
from fruit_envs.core.state import BatchState, advance_buffers, every_seat, game_rows, seat_array
from fruit_envs.games.quickity_pickity import components as C

MAX_PLAYERS = 5
S = C.MAX_SETS  # 64 set slots in the action space
FLIP_ACTION = 0
TAKE_BASE = 1  # 1..32: take a face-up fruit of type k
PLACE_BASE = TAKE_BASE + C.N_FRUIT_TYPES  # 33..96: place into set s
NEW_SET = PLACE_BASE + S  # 97
WAIT = NEW_SET + 1  # 98
NUM_ACTIONS = WAIT + 1  # 99

FLIP, TAKE, PLACE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("flip", "take", "place", "over")
NO_ACTION = -1
NO_SLOT = -1

# Where a tile is (`State.location`, int16): face down, face up, in a player's hand, in a player's set.
FACE_DOWN, FACE_UP = 0, 1
HELD_BASE = 2  # 2 + seat
SET_BASE = HELD_BASE + MAX_PLAYERS  # 7 + seat * S + set

FACE_DOWN_CARD = "face down"  # a marketplace card a tied round winner took from the pile, unseen


@dataclass(frozen=True)
class QuickityPickityConfig(Config):
    """Options of Quickity Pickity."""

    family: bool = option(
        False, (False, True), "True: the rulebook's family rule, facial expressions are ignored in sets", kind=bool
    )
    two_player_tiles: str = option(
        "random_half",
        C.TWO_PLAYER_TILES,
        "with 2 players: 'random_half' returns a uniformly random half of the 64 fruit (32 tiles) to the box "
        "unseen for the whole game, 'one_of_each' plays one copy of each of the 32 fruit types (a known half), "
        "'all' all 67 tiles; the 3 monkeys always stay",
    )
    rounds_to_win: int = option(3, (1, 2, 3, 4, 5), "marketplace cards that win the game (rulebook: 3)", kind=int)


@dataclass
class State(BatchState):
    """Quickity Pickity batch: `n` games, `P` seats, `T` tile slots, `F` set rows per zone (fruit in play),
    `D` cards."""

    phase: np.ndarray  # (n,) int8: phase of the seat to move (FLIP, TAKE, PLACE) or OVER
    seat_phase: np.ndarray  # (n, P) int8: each seat's phase in its flip -> take -> place cycle
    round_index: np.ndarray  # (n,) int16: 0-based round
    starter: np.ndarray  # (n,) int8: starting player of the round (the last round winner)
    in_play: np.ndarray  # (n, 33) int8: copies of each kind on the table (hidden while the box is hidden)
    kind_start: np.ndarray  # (n, 34) int8: where each kind's copies begin in `kind_slots` (kept with `in_play`)
    layout: np.ndarray  # (n, T) int8: tile kind at each slot (hidden while face down)
    location: np.ndarray  # (n, T) int16: FACE_DOWN, FACE_UP, HELD_BASE + seat, SET_BASE + seat * S + set
    up_count: np.ndarray  # (n, 33) int8: face-up tiles of each kind, monkeys last (kept with `location`)
    taken: np.ndarray  # (n, 33) int8: tiles of each kind in hands or sets (kept with `location`)
    kind_slots: np.ndarray  # (n, T) int8: the slots sorted by the kind lying there (kept with `layout`)
    held: np.ndarray  # (n, P) int8: slot of the tile in each hand, -1 none
    num_sets: np.ndarray  # (n, P) int8: sets started in each zone
    # every set of every zone, one row each: player_0's sets in order, then player_1's, ... (`zone_start`);
    # every set holds a fruit, so F rows hold them all; rows past the last set are zero
    set_size: np.ndarray  # (n, F) int8: tiles in each set
    set_bits: np.ndarray  # (n, F) int16: OR of the tiles' attribute bits (components.KIND_BITS)
    set_bonus: np.ndarray  # (n, F) int8: bonus fruit of the current card in each set
    seen_most: np.ndarray  # (n, 32) int8: most copies of each fruit type seen in one finished round (hidden box)
    seen_once: np.ndarray  # (n, 32) int8: finished rounds in which exactly one copy was seen (hidden box)
    committed: np.ndarray  # (n, P) int8: action chosen this tick, -1 not yet (hidden from the others)
    deck: np.ndarray  # (n, D) int8: marketplace cards in drawing order (blocks of 16 shuffles)
    deck_pos: np.ndarray  # (n,) int16: cards drawn from the pile
    shown: np.ndarray  # (n, D) bool: the card was shown as a round's card (tied winners' extra cards are not)
    card: np.ndarray  # (n,) int8: the round's marketplace card (the card shown last)
    cards_won: np.ndarray  # (n, P) int8

    GAME = "quickity_pickity"


SPEC = GameSpec(
    id="quickity_pickity",
    name="Quickity Pickity",
    env_name="QuickityPickity",
    version=2,
    player_counts=(2, 3, 4, 5),
    default_num_players=2,
    config_cls=QuickityPickityConfig,
    num_actions=NUM_ACTIONS,
    observation_dtype=np.dtype(np.float32),
    chance=True,
    hidden_information=True,
    simultaneous=True,
    rules_module=__name__,
    wait_action=WAIT,
    # no rule depends on a seat's number: ties go in seat order from the starting player (public, and
    # observed relative to the observer); seats choose at the same moment
    symmetric_seats=True,
    capabilities=("PHASE_NAMES", "advance", "legal_masks", "potential", "field_bounds", "observation_rows"),
)


# ----------------------------------------------------------------------------------------------
# Declared facts


def box_hidden(config: Config) -> bool:
    """Whether a random half of the fruit lies in the box unseen (2 players, `two_player_tiles='random_half'`)."""
    return C.box_is_hidden(config.num_players, config.two_player_tiles)


def fruit_count(config: Config) -> int:
    """Fruit tiles in play: 32 with two players (unless `two_player_tiles='all'`), else 64. Also the most
    sets a zone can hold, so the set rows of a zone in the state and the observation."""
    return C.fruit_in_play(config.num_players, config.two_player_tiles)


def num_slots(config: Config) -> int:
    """Tile slots on the table: the fruit in play and the 3 monkeys."""
    return fruit_count(config) + C.N_MONKEYS


def deck_length(config: Config) -> int:
    """Cards the pile must hold: a card per round won by at most P players, at most P * rounds_to_win."""
    blocks = -(-config.num_players * config.rounds_to_win // C.N_CARDS)
    return C.N_CARDS * blocks


CARD_FEATURES = C.N_CARDS + C.LARGEST_SIZE + len(C.COLOURS) + len(C.SHAPES) + 1  # 32
PILE_FEATURES = C.N_CARDS + 1  # cards shown from the current shuffle, cards taken face down from it
SEEN_FEATURES = 2  # per fruit type: most copies seen in one finished round, rounds with one copy seen
HELD_FEATURES = 12  # holding, sweet, sour, 4 colours, 4 shapes, bonus fruit
SET_FEATURES = 15  # per set row after its owner: size, bonus fruit, broken, value+ / 10, value- / 10, 10 bits
PLAYER_FEATURES = 5  # sets, fruit, money+ / 10, money- / 10, cards won
OPTION_FEATURES = 3  # rounds_to_win / 5, family rule, box hidden
GAIN_FEATURES = 3  # per action: money gained now / 10, money lost now / 10, every set stays legal


def _columns(*parts: tuple[str, int]) -> dict[str, slice]:
    """Named consecutive columns of one row of an observation block, from each part's width in order."""
    out, start = {}, 0
    for name, width in parts:
        out[name] = slice(start, start + width)
        start += width
    return out


# Named columns of a row of the blocks above: the card (`card`), a hand (each row of `held`) and a set (each
# row of `sets`, after its owner's one-hot); agents read the observation by these names.
CARD_COLUMNS = _columns(
    ("card", C.N_CARDS), ("values", C.LARGEST_SIZE), ("bonus_colour", len(C.COLOURS)), ("bonus_shape", len(C.SHAPES)),
    ("bonus", 1),
)  # fmt: skip
HELD_COLUMNS = _columns(
    ("holding", 1), ("expression", len(C.EXPRESSIONS)), ("colour", len(C.COLOURS)), ("shape", len(C.SHAPES)),
    ("bonus", 1),
)  # fmt: skip
SET_COLUMNS = _columns(
    ("size", 1), ("bonus", 1), ("broken", 1), ("value_pos", 1), ("value_neg", 1), ("bits", C.N_BITS)
)  # fmt: skip


def observation_layout(config: Config) -> dict[str, slice]:
    """Named slices of a seat's observation; blocks over seats list the observer first."""
    p, f = config.num_players, fruit_count(config)
    sizes = [
        ("card", CARD_FEATURES),  # current card: one-hot, values (v + 10) / 10, bonus colour, shape, bonus / 3
        ("pile", PILE_FEATURES),  # cards shown from the current shuffle of the pile, cards taken face down
        ("face_up", C.N_FRUIT_TYPES),  # face-up copies of each fruit type (the take actions' targets)
        ("taken", C.N_FRUIT_TYPES),  # copies of each fruit type in hands or sets (gone from the middle)
        ("monkeys", C.MONKEYS_TO_STOP),  # monkeys face up (0, 1, 2), one-hot
        ("face_down", 1),  # share of tiles still face down
        ("seen", C.N_FRUIT_TYPES * SEEN_FEATURES if box_hidden(config) else 0),  # fruit seen in play before
        ("phases", p * 3),  # each seat's phase (flip, take, place), one-hot
        ("held", p * HELD_FEATURES),  # the fruit in each hand (in plain view)
        ("sets", f * (p + SET_FEATURES)),  # every set of every zone, the observer's first: owner, features
        ("players", p * PLAYER_FEATURES),  # per seat: sets, fruit, money this round, cards won
        ("starter", p),  # the round's starting player, one-hot
        ("choice", 2),  # own choice this tick: made, (action + 1) / 99
        ("options", OPTION_FEATURES),  # rounds_to_win / 5, family rule, box hidden
        ("gains", NUM_ACTIONS * GAIN_FEATURES),  # public arithmetic: what each action does to own money now
    ]
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def observation_rows(config: Config) -> dict[str, int]:
    """Blocks of the observation made of like rows, and each row's width: a network may share its weights
    across them (the training option `--row-encoder`)."""
    return {"sets": config.num_players + SET_FEATURES}


def observation_shape(config: Config) -> tuple[int]:
    return (observation_layout(config)["gains"].stop,)


OBSERVATION_HIGH = 100.0  # counts (a set holds at most 64 tiles), one-hot bits, money / 10


def max_rounds(config: Config) -> int:
    """Each round gives at least one card, so someone holds `rounds_to_win` after this many rounds."""
    return config.num_players * (config.rounds_to_win - 1) + 1


def max_ticks_per_round(config: Config) -> int:
    """Every tick reveals, takes or places at least one tile: a round has at most T + 2F ticks."""
    return num_slots(config) + 2 * fruit_count(config)


def max_game_length(config: Config) -> int:
    """Decisions: one per seat per tick. Play cannot stall, so games are never truncated."""
    return max_rounds(config) * max_ticks_per_round(config) * config.num_players


def reward_bounds(config: Config) -> tuple[float, float]:
    if config.reward == "terminal":
        return (-1.0, 1.0)
    # 'score': the money change of one placement: one set's value changes and the tile may be a bonus
    values = C.CARD_VALUES.astype(np.int64)
    grow = values[:, 2:] - values[:, 1:-1]  # legal set of size k -> k + 1
    grow = np.concatenate([grow, values[:, 1:2], np.zeros((C.N_CARDS, 1), np.int64)], axis=1)  # new set; 7+ -> 8+
    bonus = C.CARD_BONUS.astype(np.int64)[:, None]
    high = int((grow + bonus).max())
    low = int(min(grow.min(), C.ILLEGAL_SET - values[:, 1:].max(), C.ILLEGAL_SET))
    return (float(low), float(high))


# ----------------------------------------------------------------------------------------------
# Scoring (pure, callable on any sets)


def set_values(card: np.ndarray, size: np.ndarray, bits: np.ndarray, family: bool = False) -> np.ndarray:
    """Money of sets on a card: the card's value for the size (7+ reads the last column), or -10 when
    the set mixes expressions (unless `family`) or shares neither one colour nor one shape; 0 for no set.

    `card` broadcasts against `size` and `bits` (same shape); returns int64 of that shape.
    """
    legal = (C.SET_LEGAL_FAMILY if family else C.SET_LEGAL)[np.asarray(bits, dtype=np.intp)]
    size = np.minimum(np.asarray(size, dtype=np.intp), C.LARGEST_SIZE)
    return C.SET_VALUE[np.asarray(card, dtype=np.intp), size, legal.astype(np.intp)].astype(np.int64)


def set_is_legal(bits: np.ndarray, family: bool = False) -> np.ndarray:
    """Whether sets with these attribute bits satisfy both conditions of 'How to Place Fruit'."""
    return (C.SET_LEGAL_FAMILY if family else C.SET_LEGAL)[np.asarray(bits, dtype=np.int64)]


def current_card(state: State) -> np.ndarray:
    """`(n,)` int64 the marketplace card of the round being played (or last played)."""
    return state.card.astype(np.int64)


def zone_start(num_sets: np.ndarray) -> np.ndarray:
    """`(..., P)` int64: the set row of each zone's set 0 (the zones' sets follow each other in seat order)."""
    counts = np.asarray(num_sets, dtype=np.int64)
    return np.cumsum(counts, axis=-1) - counts


def money(state: State) -> np.ndarray:
    """`(n, P)` int64 each seat's money this round: its sets on the current card plus the bonus."""
    out = np.zeros((state.batch_size, state.config.num_players), dtype=np.int64)
    _state_kernels.money_many(state, _legal_table(state.config), out)
    return out


def score_tiles(card: int, sets: list[list[str]], family: bool = False) -> int:
    """Money of one zone given as lists of tile names, for tests and display."""
    kinds = [[C.tile_from_name(t) for t in tiles] for tiles in sets]
    size = np.array([len(k) for k in kinds], dtype=np.int64)
    bits = np.array([np.bitwise_or.reduce(C.KIND_BITS[k]) if k else 0 for k in kinds], dtype=np.int64)
    bonus = sum(int(C.IS_BONUS[card, k].sum()) for k in kinds)
    return int(set_values(card, size, bits, family).sum()) + int(C.CARD_BONUS[card]) * bonus


# ----------------------------------------------------------------------------------------------
# Setup


_kernels = kernels_of(__package__)  # the compiled kernels, imported on first use
_state_kernels = StateKernels(__package__, State)  # those taking state arrays, given the state itself


def _legal_table(config: Config) -> np.ndarray:
    """Which attribute bits make a legal set under this configuration (the family rule ignores expressions)."""
    return C.SET_LEGAL_FAMILY if config.family else C.SET_LEGAL


def _random_half(sub: np.ndarray) -> np.ndarray:
    """`(n, 33)` int8 copies of each kind in play: a uniformly random 32 of the 64 fruit tiles, 3 monkeys."""
    n = len(sub)
    chosen = C.box_prior_tiles()[rng.permutations(sub, C.N_FRUIT)[:, : C.TWO_PLAYER_FRUIT]]
    counts = _count_kinds(np.repeat(np.arange(n), C.TWO_PLAYER_FRUIT), chosen.reshape(-1), n)
    counts[:, C.MONKEY] = C.N_MONKEYS
    return counts.astype(np.int8)


def _set_kind_start(s: State) -> None:
    """`kind_start` from `in_play`: the copies of kind k are `kind_slots[kind_start[k] : kind_start[k + 1]]`."""
    s.kind_start[:, 0] = 0
    s.kind_start[:, 1:] = np.cumsum(s.in_play, axis=1, dtype=np.int64)


def _sorted_tiles(counts: np.ndarray, t: int) -> np.ndarray:
    """`(n, t)` int8: each row's tiles in kind order, from `(n, 33)` copies per kind adding up to at most `t`
    (positions past a row's total read kind 33)."""
    n = len(counts)
    cum = np.cumsum(counts.astype(np.int64), axis=1)
    offset = np.arange(n)[:, None] * (t + 1)
    kinds = np.searchsorted((cum + offset).reshape(-1), (np.arange(t)[None, :] + offset).reshape(-1), side="right")
    return (kinds.reshape(n, t) - np.arange(n)[:, None] * C.N_KINDS).astype(np.int8)


def init(config: Config, keys: np.ndarray) -> State:
    """`len(keys)` games set up as the rulebook says, each from its own key."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    n, p, t, f, d = len(keys), config.num_players, num_slots(config), fruit_count(config), deck_length(config)
    state = State(
        config=config,
        keys=keys.copy(),
        done=np.zeros(n, dtype=bool),
        truncated=np.zeros(n, dtype=bool),
        to_move=np.zeros(n, dtype=np.int8),
        step_count=np.zeros(n, dtype=np.int32),
        phase=np.zeros(n, dtype=np.int8),
        seat_phase=np.zeros((n, p), dtype=np.int8),
        round_index=np.zeros(n, dtype=np.int16),
        starter=np.zeros(n, dtype=np.int8),
        in_play=np.zeros((n, C.N_KINDS), dtype=np.int8),
        kind_start=np.zeros((n, C.N_KINDS + 1), dtype=np.int8),
        layout=np.zeros((n, t), dtype=np.int8),
        location=np.zeros((n, t), dtype=np.int16),
        up_count=np.zeros((n, C.N_KINDS), dtype=np.int8),
        taken=np.zeros((n, C.N_KINDS), dtype=np.int8),
        kind_slots=np.zeros((n, t), dtype=np.int8),
        held=np.full((n, p), NO_SLOT, dtype=np.int8),
        num_sets=np.zeros((n, p), dtype=np.int8),
        set_size=np.zeros((n, f), dtype=np.int8),
        set_bits=np.zeros((n, f), dtype=np.int16),
        set_bonus=np.zeros((n, f), dtype=np.int8),
        seen_most=np.zeros((n, C.N_FRUIT_TYPES), dtype=np.int8),
        seen_once=np.zeros((n, C.N_FRUIT_TYPES), dtype=np.int8),
        committed=np.full((n, p), NO_ACTION, dtype=np.int8),
        deck=np.zeros((n, d), dtype=np.int8),
        deck_pos=np.zeros(n, dtype=np.int16),
        shown=np.zeros((n, d), dtype=bool),
        card=np.zeros(n, dtype=np.int8),
        cards_won=np.zeros((n, p), dtype=np.int8),
    )
    if box_hidden(config):
        state.keys, sub = rng.split(state.keys)
        state.in_play[:] = _random_half(sub)
    else:
        state.in_play[:] = C.tile_counts(p, config.two_player_tiles)[None, :]
    _set_kind_start(state)
    state.layout[:] = _sorted_tiles(state.in_play, t)
    for block in range(d // C.N_CARDS):
        state.keys, sub = rng.split(state.keys)
        state.deck[:, block * C.N_CARDS : (block + 1) * C.N_CARDS] = rng.permutations(sub, C.N_CARDS)
    _state_kernels.new_rounds(state)  # the first round: tiles face down, the first card shown
    return state


# ----------------------------------------------------------------------------------------------
# Masks


def _count_kinds(rows: np.ndarray, kinds: np.ndarray, m: int) -> np.ndarray:
    """`(m, 33)` how many of each kind appear per row, from parallel arrays of rows and kinds."""
    flat = rows.astype(np.int64) * C.N_KINDS + kinds.astype(np.int64)
    return np.bincount(flat, minlength=m * C.N_KINDS).reshape(m, C.N_KINDS)


def _kind_counts(state: State, where: np.ndarray) -> np.ndarray:
    """`(n, 33)` int64: tiles of each kind at the slots where `where` `(n, T)` holds."""
    n = state.batch_size
    kinds = np.where(where, state.layout, C.N_KINDS).astype(np.int64)
    flat = (np.arange(n)[:, None] * (C.N_KINDS + 1) + kinds).reshape(-1)
    return np.bincount(flat, minlength=n * (C.N_KINDS + 1)).reshape(n, C.N_KINDS + 1)[:, : C.N_KINDS]


def face_up_counts(state: State) -> np.ndarray:
    """`(n, 33)` int64: face-up tiles of each kind (monkeys last), counted from the tile slots."""
    return _kind_counts(state, state.location == FACE_UP)


def taken_counts(state: State) -> np.ndarray:
    """`(n, 33)` int64: tiles of each kind taken from the middle this round (in hands or sets; public)."""
    return _kind_counts(state, state.location >= HELD_BASE)


def _masks(state: State, seat: np.ndarray, only_undecided: bool = True, games: np.ndarray | None = None) -> np.ndarray:
    """`(m, 99)` the legal actions of seat `seat[i]` in game `games[i]` (default: game i) from the public
    table (see `legal_mask`)."""
    games = game_rows(state.batch_size) if games is None else games
    mask = np.zeros((len(games), NUM_ACTIONS), dtype=bool)
    _state_kernels.legal_mask(
        games, np.ascontiguousarray(seat, dtype=np.int64), state, state.set_size.shape[1], only_undecided, mask
    )
    return mask


def legal_masks(state: State) -> np.ndarray:
    """`(n, P, 99)` bool: every seat's `legal_mask` in one call (every seat decides each tick)."""
    n, p = state.batch_size, state.config.num_players
    games, seats = every_seat(n, p)
    return _masks(state, seats, games=games).reshape(n, p, NUM_ACTIONS)


def legal_mask(state: State, player=None) -> np.ndarray:
    """`(n, 99)` bool: the legal actions of `player` (default: the seat to move) in each game.

    Every seat that has not chosen this tick decides: flip (phase flip or take), take a face-up fruit
    type (phase take), place the held fruit into a set or a new set (phase place). 'New set' needs a free
    set row, and a zone of F rows never fills while its owner holds one of the F fruit in play. Wait is
    never needed: every phase has a legal action. Finished games: none. Reads only the public state at
    the start of the tick, never another seat's choice.
    """
    return _masks(state, seat_array(state, player))


def acting(state: State) -> np.ndarray:
    """`(n, P)` bool: seats that have not chosen yet this tick (every seat at the start of a tick)."""
    return (state.committed == NO_ACTION) & ~state.done[:, None]


# ----------------------------------------------------------------------------------------------
# Step


def step(
    state: State, actions: np.ndarray, active: np.ndarray | None = None, *, in_place: bool = False
) -> tuple[State, np.ndarray]:
    """Record one seat's choice per game; the last seat's choice resolves the tick.

    Returns `(new_state, rewards (n, P) float32)`. Actions must be legal (adapters check this).
    Games that are finished, or not `active` (`(n,)` bool, default all), are left untouched.

    `in_place=True` changes `state` itself and returns it: for an owner of the state whose actions are
    already checked against the mask (an env), it saves the copy.
    """
    s = state if in_place else state.copy()
    cfg = s.config
    n, p = s.batch_size, cfg.num_players
    actions = np.asarray(actions, dtype=np.int64).reshape(n)
    live = ~s.done if active is None else ~s.done & np.asarray(active, dtype=bool).reshape(n)
    rewards = np.zeros((n, p), dtype=np.float32)
    ended = np.zeros(n, dtype=bool)
    _state_kernels.step(
        actions, live, s, rewards, ended, _legal_table(cfg), cfg.reward == "score", cfg.rounds_to_win, box_hidden(cfg)
    )
    if cfg.reward == "terminal" and ended.any():
        rewards[ended] = terminal_rewards(s.cards_won[ended])
    return s, rewards


def advance(state: State, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One game (batch of one) stepped in place by a legal `action`, then every seat: returns the rewards
    `(P,)`, every seat's mask `(P, 99)` and the observation `(O,)` of the seat to move afterwards, equal
    to `step(..., in_place=True)`, `legal_masks` and `observe` but in one kernel call (the AEC env's step)."""
    s, cfg = state, state.config
    size, fixed, tables = advance_constants(cfg)
    rewards, ended, masks, obs = advance_buffers(cfg.num_players, NUM_ACTIONS, size)
    _state_kernels.advance(operator.index(action), s, rewards, ended, *fixed, masks, *tables, obs)
    if cfg.reward == "terminal" and ended[0]:
        rewards[0] = terminal_rewards(s.cards_won)[0]
    return rewards[0], masks, obs[0]


@cache
def advance_constants(config: Config) -> tuple:
    """The observation's size, and `kernels.advance`'s arguments that depend on the configuration alone, in
    its order: those before the masks and those after them (one cached lookup per call: the hot path; search's
    compiled rollouts take the same, `agents/greedy`)."""
    cfg, hidden = config, box_hidden(config)
    fixed = (_legal_table(cfg), cfg.reward == "score", cfg.rounds_to_win, hidden, *every_seat(1, cfg.num_players))
    tables = (
        _offsets(cfg), CARD_TABLE, HELD_ROWS, SET_ROWS[cfg.family], SET_VALUE_POS, SET_VALUE_NEG,
        OPTION_ROWS[(cfg.rounds_to_win, cfg.family, hidden)],
    )  # fmt: skip
    return _layout(cfg)["gains"].stop, fixed, tables


def terminal_rewards(cards_won: np.ndarray) -> np.ndarray:
    """+1 each player holding the most cards (the game's winners), -1 each other, 0 all round if all tie."""
    return outcome_rewards(cards_won == cards_won.max(axis=1, keepdims=True))


def final_scores(state: State) -> np.ndarray:
    """`(n, P)` marketplace cards each seat has won."""
    return state.cards_won.astype(np.int64)


CARD_POTENTIAL = 10  # a won card counts as this much money in `potential`: about a good round's takings


def potential(state: State) -> np.ndarray:
    """`(n, P)` each seat's running score for reward shaping: its cards won (times `CARD_POTENTIAL`)
    plus its money this round, which every player can count from the sets on the table."""
    return CARD_POTENTIAL * state.cards_won.astype(np.int64) + money(state)


def winners(state: State) -> np.ndarray:
    """`(n, P)` bool: the players holding the most cards (all who reached `rounds_to_win` together)."""
    return state.cards_won == state.cards_won.max(axis=1, keepdims=True)


# ----------------------------------------------------------------------------------------------
# Observation


def _feature_tables() -> tuple[np.ndarray, np.ndarray]:
    """Observation rows looked up per (card, kind in hand) and per set bits."""
    tile = np.zeros((C.N_KINDS + 1, 11), dtype=np.float32)  # monkey, sweet, sour, 4 colours, 4 shapes
    tile[C.MONKEY, 0] = 1.0
    for k in range(C.N_FRUIT_TYPES):
        tile[k, 1 + C.KIND_EXPRESSION[k]] = 1.0
        tile[k, 3 + C.KIND_COLOUR[k]] = 1.0
        tile[k, 7 + C.KIND_SHAPE[k]] = 1.0
    bonus = np.concatenate([C.IS_BONUS, np.zeros((C.N_CARDS, 1), dtype=bool)], axis=1)  # (16, 34)
    held = np.zeros((C.N_CARDS, C.N_KINDS + 1, HELD_FEATURES), dtype=np.float32)
    held[:, : C.N_KINDS, 0] = 1.0
    held[:, :, 1:11] = tile[:, 1:]
    held[:, :, 11] = bonus
    bit_planes = ((np.arange(1 << C.N_BITS)[:, None] >> np.arange(C.N_BITS)) & 1).astype(np.float32)
    return held, bit_planes


HELD_TABLE, BIT_TABLE = _feature_tables()
HELD_ROWS = HELD_TABLE.reshape(-1, HELD_FEATURES)  # row card * (N_KINDS + 1) + kind in hand


def _set_rows(family: bool) -> np.ndarray:
    """`(1024, 15)` a set's features that follow from its attribute bits: 'broken' and the bit planes."""
    rows = np.zeros((1 << C.N_BITS, SET_FEATURES), dtype=np.float32)
    rows[:, 2] = ~(C.SET_LEGAL_FAMILY if family else C.SET_LEGAL)  # no set has bits 0, a legal code
    rows[:, 5:] = BIT_TABLE
    return rows


SET_ROWS = {False: _set_rows(False), True: _set_rows(True)}
# value of a set +/- as observed, by (card * 8 + min(size, 7)) * 2 + legal (as `np.maximum(v, 0) * 0.1`)
SET_VALUE_POS = (np.maximum(C.SET_VALUE, 0) * 0.1).astype(np.float32).reshape(-1)
SET_VALUE_NEG = (np.maximum(-C.SET_VALUE, 0) * 0.1).astype(np.float32).reshape(-1)


def pile_knowledge(state: State) -> tuple[np.ndarray, np.ndarray]:
    """What everyone knows of the marketplace pile: `(n, 16)` bool the cards shown as round cards since
    the pile was last shuffled (no longer in it), and `(n,)` int64 the cards tied winners took face down
    from it since. The pile's next card is uniform over the cards of its shuffle not shown."""
    flags = np.zeros((state.batch_size, C.N_CARDS), dtype=bool)
    face_down = np.zeros(state.batch_size, dtype=np.int64)
    _state_kernels.pile_many(state, flags, face_down)
    return flags, face_down


@cache
def _layout(config: Config) -> dict[str, slice]:
    return observation_layout(config)


def observe(state: State, player) -> np.ndarray:
    """`(n, O)` float32: what `player` (int or `(n,)` ints) may know, nothing more.

    The card, what is known of the pile, the face-up and taken copies of each fruit type, monkeys up,
    the fruit seen in play in earlier rounds (two players), every seat's phase, fruit in hand and sets
    (all in plain view), money, fruit and cards won, the starting player, the observer's own choice of
    this tick and the options. Never the tile under a face-down slot, the fruit in the box, the pile's
    order or another seat's choice of this tick. Tile slot positions are left out: face-down slots are
    exchangeable and a take names a type, so where a face-up tile lies cannot matter.
    """
    cfg = state.config
    seat = seat_array(state, player)
    lay = _layout(cfg)
    obs = np.zeros((state.batch_size, lay["gains"].stop), dtype=np.float32)
    _state_kernels.observe(
        np.ascontiguousarray(seat), state, _legal_table(cfg), box_hidden(cfg), _offsets(cfg),
        CARD_TABLE, HELD_ROWS, SET_ROWS[cfg.family], SET_VALUE_POS, SET_VALUE_NEG,
        OPTION_ROWS[(cfg.rounds_to_win, cfg.family, box_hidden(cfg))], obs,
    )  # fmt: skip
    return obs


@cache
def _offsets(config: Config) -> np.ndarray:
    """Start of each observation block, in `observation_layout`'s order (what the kernel fills)."""
    return np.array([part.start for part in _layout(config).values()], dtype=np.int64)


def action_gains(state: State, seat: np.ndarray) -> np.ndarray:
    """`(n, A, 3)` float32 hints any player can work out from the table, per action of `seat`: the money
    its zone gains and loses right now (/ 10) and whether all its sets stay legal.

    A place action: the held fruit added to that set, or as a new set. A take action: the fruit's best
    immediate placement (a new set or any own set, a broken one included). Flip and wait: nothing.
    This is the arithmetic of 'Calculate Your Earnings' done for the learner, like Fruit Picking's
    `plant_targets`: a network would otherwise have to learn set legality separately for every set row.
    """
    n = state.batch_size
    gains = np.zeros((n, NUM_ACTIONS, GAIN_FEATURES), dtype=np.float32)
    seats = np.ascontiguousarray(np.broadcast_to(np.asarray(seat, dtype=np.int64), (n,)))
    _state_kernels.gains_many(seats, state, _legal_table(state.config), gains)
    return gains


def _card_table() -> np.ndarray:
    """`(16, 32)` each card's observation: one-hot, values (v + 10) / 10, bonus colour, shape, bonus / 3."""
    table = np.zeros((C.N_CARDS, CARD_FEATURES), dtype=np.float32)
    for c in range(C.N_CARDS):
        table[c, c] = 1.0
        at = C.N_CARDS
        table[c, at : at + C.LARGEST_SIZE] = (C.CARD_VALUES[c, 1:] + 10) / 10.0
        at += C.LARGEST_SIZE
        table[c, at + C.CARD_BONUS_KIND[c, 0]] = 1.0
        table[c, at + len(C.COLOURS) + C.CARD_BONUS_KIND[c, 1]] = 1.0
        table[c, at + len(C.COLOURS) + len(C.SHAPES)] = C.CARD_BONUS[c] / 3.0
    return table


CARD_TABLE = _card_table()
OPTION_ROWS = {
    (r, family, hidden): np.array([r / 5.0, family, hidden], dtype=np.float32)
    for r in range(1, 6)
    for family in (False, True)
    for hidden in (False, True)
}


# ----------------------------------------------------------------------------------------------
# Referee's view, text, hidden information


def action_to_string(config: Config, action: int) -> str:
    action = int(action)
    if action == FLIP_ACTION:
        return "flip"
    if TAKE_BASE <= action < PLACE_BASE:
        return f"take {C.tile_name(action - TAKE_BASE)}"
    if PLACE_BASE <= action < NEW_SET:
        return f"place in set {action - PLACE_BASE}"
    if action == NEW_SET:
        return "place in a new set"
    if action == WAIT:
        return "wait"
    raise ValueError(f"Quickity Pickity actions are 0..{NUM_ACTIONS - 1}, got {action}")


def string_to_action(config: Config, text: str) -> int:
    """Inverse of `action_to_string`; also reads 'new set' and 'set 3'."""
    words = " ".join(str(text).strip().lower().split())
    if words == "flip":
        return FLIP_ACTION
    if words.startswith("take "):
        kind = C.tile_from_name(words.removeprefix("take "))
        if kind == C.MONKEY:
            raise ValueError("a monkey stays face up where it was flipped and cannot be taken")
        return TAKE_BASE + kind
    if words in ("place in a new set", "new set"):
        return NEW_SET
    if words == "wait":
        return WAIT
    for prefix in ("place in set ", "set "):
        rest = words.removeprefix(prefix)
        if rest != words and rest.isdigit() and int(rest) < S:
            return PLACE_BASE + int(rest)
    raise ValueError(
        f"no Quickity Pickity action is called {text!r}; actions are 'flip', 'take <expression> <colour> "
        f"<shape>', 'place in set K' (K in 0..{S - 1}), 'place in a new set', 'wait'"
    )


def _tile_ref(kind: int, slot: int) -> str:
    return f"{C.tile_name(kind)} @{slot}"


def _parse_ref(ref: str, where: str) -> tuple[int, int | None]:
    """'sweet red round @12' -> (kind, 12); without '@' the slot is chosen later (None)."""
    name, sep, slot = str(ref).partition("@")
    try:
        kind = C.tile_from_name(name)
    except ValueError as error:
        raise ValueError(f"{where}: {error}") from None
    if not sep:
        return kind, None
    if not (slot.strip().isascii() and slot.strip().isdigit()):
        raise ValueError(f"{where}: tile {ref!r} names no slot number after '@'")
    return kind, int(slot)


def seen_in_play(state: State, i: int = 0) -> dict[str, dict[str, int]]:
    """What everyone saw of the fruit in play in the finished rounds of game `i` (hidden box only): per fruit
    type ever seen, the most copies seen in one round and the rounds in which exactly one copy was seen."""
    return {
        C.tile_name(k): {"most_in_one_round": int(state.seen_most[i, k]), "rounds_with_one": int(state.seen_once[i, k])}
        for k in range(C.N_FRUIT_TYPES)
        if state.seen_most[i, k] > 0
    }


def describe(state: State, i: int = 0) -> dict:
    """Complete JSON-able picture of game `i`, hidden parts under `"hidden"`.

    Tiles taken from the table are written `'<tile> @<slot>'` (the slot they lay in this round).
    `cards_drawn` lists the pile's cards in drawing order, `"face down"` for a card a tied winner took
    unseen (its face is under `hidden.face_down_cards`). `money` is derived from the sets and the card,
    and ignored by `from_description`.
    """
    cfg = state.config
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    loc = state.location[i].astype(np.int64)
    layout = state.layout[i].astype(np.int64)
    slots = np.arange(len(loc))
    sets = {}
    for k in range(p):
        zone = []
        for s in range(int(state.num_sets[i, k])):
            members = slots[loc == SET_BASE + k * S + s]
            zone.append([_tile_ref(layout[t], t) for t in members])
        sets[seats[k]] = zone
    committed = {
        seats[k]: action_to_string(cfg, state.committed[i, k]) for k in range(p) if state.committed[i, k] != NO_ACTION
    }
    pos = int(state.deck_pos[i])
    cards, shown = state.deck[i, :pos].tolist(), state.shown[i, :pos].tolist()
    drawn = [c if up else FACE_DOWN_CARD for c, up in zip(cards, shown, strict=True)]
    d = {
        "game": SPEC.id,
        "version": SPEC.version,
        "config": cfg.to_dict(),
        "rng_key": str(int(state.keys[i])),
        "done": bool(state.done[i]),
        "truncated": bool(state.truncated[i]),
        "step_count": int(state.step_count[i]),
        "phase": PHASE_NAMES[int(state.phase[i])],
        "to_move": seats[min(int(state.to_move[i]), p - 1)],
        "round": int(state.round_index[i]) + 1,
        "starter": seats[int(state.starter[i])],
        "cards_drawn": drawn,
        "card": int(state.card[i]),
        "cards_won": {seats[k]: int(state.cards_won[i, k]) for k in range(p)},
        "seat_phases": {seats[k]: PHASE_NAMES[int(state.seat_phase[i, k])] for k in range(p)},
        "face_up": {str(t): C.tile_name(layout[t]) for t in slots[loc == FACE_UP]},
        "held": {
            seats[k]: _tile_ref(layout[state.held[i, k]], state.held[i, k]) for k in range(p) if state.held[i, k] >= 0
        },
        "sets": sets,
        "money": {seats[k]: int(v) for k, v in enumerate(money(state.take(i))[0])},
        "hidden": {
            "face_down": {str(t): C.tile_name(layout[t]) for t in slots[loc == FACE_DOWN]},
            "pile": [int(c) for c in state.deck[i, pos:]],
            "face_down_cards": [c for c, up in zip(cards, shown, strict=True) if not up],
            "committed": committed,
        },
    }
    if box_hidden(cfg):
        d["seen_in_play"] = seen_in_play(state, i)
        box = C.COPIES - state.in_play[i, : C.N_FRUIT_TYPES].astype(np.int64)
        d["hidden"]["box"] = [C.tile_name(k) for k in np.repeat(np.arange(C.N_FRUIT_TYPES), box)]
    return d


def _ref(read, ref, where: str) -> tuple[int, int | None]:
    """A tile reference `'<tile> @<slot>'` (slot optional) read from a description field."""
    try:
        return _parse_ref(read.string(ref, where), where)
    except ValueError as error:
        read.fail(where, str(error).removeprefix(f"{where}: "))


def _composition(read, cfg: Config, named: np.ndarray, hidden: dict, seen_most: np.ndarray, seen_once: np.ndarray):
    """`(33,)` int64 copies of each kind in play for a description: fixed, or (hidden box) the box's
    complement, by default one copy of each type plus the second copies the description needs."""
    if not box_hidden(cfg):
        if "box" in hidden:
            read.fail("hidden.box", "only the two-player game with two_player_tiles='random_half' has a box")
        return C.tile_counts(cfg.num_players, cfg.two_player_tiles).astype(np.int64)
    counts = np.zeros(C.N_KINDS, dtype=np.int64)
    counts[C.MONKEY] = C.N_MONKEYS
    box = hidden.get("box")
    if box is not None:
        box = read.items(box, "hidden.box", length=C.N_FRUIT - C.TWO_PLAYER_FRUIT)
        kinds = [_ref(read, name, f"hidden.box[{j}]")[0] for j, name in enumerate(box)]
        if C.MONKEY in kinds:
            read.fail("hidden.box", "the monkeys stay in play")
        counts[: C.N_FRUIT_TYPES] = C.COPIES - np.bincount(kinds, minlength=C.N_KINDS)[: C.N_FRUIT_TYPES]
        if (counts < 0).any():
            read.fail("hidden.box", f"holds more than {C.COPIES} copies of a fruit type")
        return counts
    need = np.maximum(np.maximum(named[: C.N_FRUIT_TYPES], seen_most), (seen_once > 0).astype(np.int64))
    if need.sum() > C.TWO_PLAYER_FRUIT:
        read.fail(None, f"the description needs more than the {C.TWO_PLAYER_FRUIT} fruit tiles in play")
    counts[: C.N_FRUIT_TYPES] = need
    for copies in (1, 2):  # fill up to 32: first one copy of each missing type, then second copies
        short = C.TWO_PLAYER_FRUIT - counts[: C.N_FRUIT_TYPES].sum()
        grow = np.flatnonzero(counts[: C.N_FRUIT_TYPES] == copies - 1)[:short]
        counts[grow] += 1
    return counts


def _deck(read, d: dict, hidden: dict, length: int) -> tuple[list[int], list[bool], int]:
    """The pile from a description: cards in drawing order, which were shown, and how many were drawn."""
    last = C.N_CARDS - 1
    if "cards_drawn" in d:
        drawn = read.items(d["cards_drawn"], "cards_drawn", max_length=length)
        if not drawn:
            read.fail("cards_drawn", "lists the cards drawn, the round's card last: at least one")
    else:
        drawn = [read.integer(d.get("card", 0), "card", 0, last)]
    shown = [not (isinstance(c, str) and c == FACE_DOWN_CARD) for c in drawn]
    values = [
        read.integer(c, f"cards_drawn[{j}]", 0, last) if up else None
        for j, (c, up) in enumerate(zip(drawn, shown, strict=True))
    ]
    face_down = read.items(hidden.get("face_down_cards", []), "hidden.face_down_cards", max_length=shown.count(False))
    face_down = [read.integer(c, f"hidden.face_down_cards[{j}]", 0, last) for j, c in enumerate(face_down)]
    for k, v in enumerate(values):
        if v is None and face_down:
            values[k] = face_down.pop(0)
    if "pile" in hidden:
        pile = read.items(hidden["pile"], "hidden.pile", length=length - len(values))
        deck = values + [read.integer(c, f"hidden.pile[{j}]", 0, last) for j, c in enumerate(pile)]
    else:
        deck = values + [None] * (length - len(values))
    for start in range(0, length, C.N_CARDS):  # unnamed cards: each shuffle's missing cards, in card order
        block = deck[start : start + C.N_CARDS]
        missing = iter([c for c in range(C.N_CARDS) if c not in block])
        deck[start : start + C.N_CARDS] = [c if c is not None else next(missing, 0) for c in block]
    return deck, shown + [False] * (length - len(drawn)), len(drawn)


def from_description(d: dict) -> State:
    """The batch-of-1 state that `describe` pictured.

    Convenient for building positions by hand: tiles may omit '@slot' (they take free slots), and
    every tile in play not named lies face down in a free slot, in kind order; `card` may stand for
    `cards_drawn` (the pile then follows in card order); with a hidden box the fruit in play default
    to one copy of each type plus the second copies that the description names; seat phases default to
    'place' for a seat holding a tile, else 'flip'; `to_move` defaults to the first seat without a
    choice in `hidden.committed`; `round` defaults to the number of cards shown; `phase`, when given,
    must be the phase of the seat to move (or 'over'). A malformed or inconsistent description raises
    `DescriptionError` naming the field (or the position's problem).
    """
    read = validate.Reader(SPEC)
    cfg, header = validate.read_header(read, d)
    fields = ("phase", "to_move", "round", "starter", "cards_drawn", "card", "cards_won", "seat_phases")
    more = ("face_up", "held", "sets", "money", "hidden", "seen_in_play")
    read.mapping(d, "", (*validate.HEADER, *fields, *more))
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    hidden = read.mapping(d.get("hidden", {}), "hidden", ("face_down", "pile", "face_down_cards", "committed", "box"))
    key = header["rng_key"]
    state = init(cfg, np.array([key], dtype=np.uint64))
    state.keys[0] = np.uint64(key)
    t = num_slots(cfg)

    seen = read.mapping(d.get("seen_in_play", {}), "seen_in_play")
    if seen and not box_hidden(cfg):
        read.fail("seen_in_play", "only the two-player game with two_player_tiles='random_half' hides its fruit")
    seen_most = np.zeros(C.N_FRUIT_TYPES, dtype=np.int64)
    seen_once = np.zeros(C.N_FRUIT_TYPES, dtype=np.int64)
    for name, entry in seen.items():
        path = f"seen_in_play.{name}"
        kind, _ = _ref(read, name, path)
        if kind == C.MONKEY:
            read.fail(path, "must be a fruit type")
        entry = read.mapping(entry, path, ("most_in_one_round", "rounds_with_one"))
        seen_most[kind] = read.integer(entry.get("most_in_one_round", 0), f"{path}.most_in_one_round", 0, C.COPIES)
        seen_once[kind] = read.integer(entry.get("rounds_with_one", 0), f"{path}.rounds_with_one", 0, max_rounds(cfg))

    named = []  # (kind, slot or None, location code, where)
    for code, where in ((FACE_UP, "face_up"), (FACE_DOWN, "hidden.face_down")):
        table = read.mapping(d.get("face_up", {}) if code == FACE_UP else hidden.get("face_down", {}), where)
        for slot, name in table.items():
            path = f"{where}.{slot}"
            kind, _ = _ref(read, name, path)
            slot = str(slot) if validate.is_int(slot) else slot
            if not (isinstance(slot, str) and slot.isascii() and slot.isdigit()):
                read.fail(path, "keys are slot numbers")
            named.append((kind, int(slot), code, path))
    for name, ref in read.seats_mapping(d.get("held", {}), "held", p).items():
        path = f"held.{name}"
        kind, slot = _ref(read, ref, path)
        if kind == C.MONKEY:
            read.fail(path, "a monkey stays face up where it was flipped and cannot be held")
        named.append((kind, slot, HELD_BASE + seats.index(name), path))
    f = fruit_count(cfg)
    for name, zone in read.seats_mapping(d.get("sets", {}), "sets", p).items():
        k = seats.index(name)
        zone = read.items(zone, f"sets.{name}", max_length=f)
        for s, members in enumerate(zone):
            members = read.items(members, f"sets.{name}[{s}]", max_length=f)
            if not members:
                read.fail(f"sets.{name}[{s}]", "a set holds at least one tile")
            for j, ref in enumerate(members):
                path = f"sets.{name}[{s}][{j}]"
                kind, slot = _ref(read, ref, path)
                if kind == C.MONKEY:
                    read.fail(path, "a monkey cannot be placed in a set")
                named.append((kind, slot, SET_BASE + k * S + s, path))
        state.num_sets[0, k] = len(zone)

    named_counts = np.bincount([kind for kind, *_ in named], minlength=C.N_KINDS).astype(np.int64)
    in_play = _composition(read, cfg, named_counts, hidden, seen_most, seen_once)
    left = in_play.copy()
    layout = np.full(t, -1, dtype=np.int64)
    location = np.full(t, -1, dtype=np.int64)
    later = []  # (kind, code) of tiles named without a slot
    for kind, slot, code, where in named:
        left[kind] -= 1
        if left[kind] < 0:
            read.fail(where, f"more {C.tile_name(kind)!r} tiles than the {t} tiles in play hold")
        if slot is None:
            later.append((kind, code))
            continue
        if not 0 <= slot < t:
            read.fail(where, f"slot {slot} does not exist; slots are 0..{t - 1}")
        if location[slot] >= 0:
            read.fail(where, f"slot {slot} is named twice")
        layout[slot], location[slot] = kind, code
    free = list(np.flatnonzero(location < 0))
    for kind, code in later:
        slot = free.pop(0)
        layout[slot], location[slot] = kind, code
    rest = np.repeat(np.arange(C.N_KINDS), left)
    layout[free], location[free] = rest, FACE_DOWN
    state.in_play[0] = in_play
    _set_kind_start(state)
    state.layout[0], state.location[0] = layout, location
    state.up_count[0] = face_up_counts(state)[0]
    state.taken[0] = taken_counts(state)[0]
    state.kind_slots[0] = np.argsort(layout, kind="stable")
    state.seen_most[0], state.seen_once[0] = seen_most, seen_once

    state.held[0] = NO_SLOT
    for k in range(p):
        in_hand = np.flatnonzero(location == HELD_BASE + k)
        if len(in_hand) > 1:
            read.fail(f"held.{seats[k]}", f"{seats[k]} holds {len(in_hand)} tiles; a player uses only 1 hand")
        if len(in_hand):
            state.held[0, k] = in_hand[0]

    deck, shown, drawn = _deck(read, d, hidden, deck_length(cfg))
    state.deck[0], state.shown[0], state.deck_pos[0] = deck, shown, drawn
    shown_cards = [c for c, ok in zip(deck, shown, strict=True) if ok]
    state.card[0] = read.integer(d.get("card", shown_cards[-1] if shown_cards else 0), "card", 0, C.N_CARDS - 1)

    in_set = np.flatnonzero(location >= SET_BASE)
    seat_of_tile, number = np.divmod(location[in_set] - SET_BASE, S)
    row = zone_start(state.num_sets[0])[seat_of_tile] + number
    np.add.at(state.set_size[0], row, 1)
    np.bitwise_or.at(state.set_bits[0], row, C.KIND_BITS[layout[in_set]])
    np.add.at(state.set_bonus[0], row, C.IS_BONUS[state.card[0], layout[in_set]].astype(np.int8))

    won = read.seats_mapping(d.get("cards_won", {}), "cards_won", p)
    for k in range(p):
        state.cards_won[0, k] = read.integer(won.get(seats[k], 0), f"cards_won.{seats[k]}", 0, cfg.rounds_to_win)
    state.round_index[0] = read.integer(d.get("round", max(1, len(shown_cards))), "round", 1, max_rounds(cfg)) - 1
    state.starter[0] = read.seat(d.get("starter", "player_0"), "starter", p)
    phases = read.seats_mapping(d.get("seat_phases", {}), "seat_phases", p)
    for k in range(p):
        default = "place" if state.held[0, k] >= 0 else "flip"
        path = f"seat_phases.{seats[k]}"
        state.seat_phase[0, k] = read.choice(phases.get(seats[k], default), path, PHASE_NAMES[:3])
    committed = read.seats_mapping(hidden.get("committed", {}), "hidden.committed", p)
    for name, action in committed.items():
        k, path = seats.index(name), f"hidden.committed.{name}"
        if isinstance(action, str):
            try:
                a = string_to_action(cfg, action)
            except ValueError as error:
                read.fail(path, str(error))
        else:
            a = read.integer(action, path, 0, NUM_ACTIONS - 1)
        if not legal_mask(state, k)[0, a]:
            read.fail(path, f"{action!r} is not legal for {name} in phase {PHASE_NAMES[state.seat_phase[0, k]]!r}")
        state.committed[0, k] = a
    chosen = sorted(seats.index(name) for name in committed)
    if chosen != list(range(len(chosen))) or len(chosen) == p:
        read.fail(
            "hidden.committed",
            f"seats choose in seat order and the last choice resolves the tick, so the seats "
            f"that have chosen are player_0 .. player_k with k < {p - 1}; got {sorted(committed)}",
        )
    to_move = read.seat(d.get("to_move", seats[len(chosen)]), "to_move", p)
    if to_move != len(chosen):
        read.fail("to_move", f"must be {seats[len(chosen)]}, the first seat that has not chosen this tick")
    state.to_move[0] = to_move
    state.done[0], state.truncated[0], state.step_count[0] = header["done"], header["truncated"], header["step_count"]
    state.phase[0] = OVER if state.done[0] else state.seat_phase[0, to_move]
    if "phase" in d and read.choice(d["phase"], "phase", PHASE_NAMES) != state.phase[0]:
        read.fail(
            "phase",
            f"must be {PHASE_NAMES[state.phase[0]]!r}: "
            + ("the game is done" if state.done[0] else f"the phase of {seats[to_move]}, the seat to move"),
        )
    return validate.finish(read, state)


def _short(kind: int) -> str:
    """Three-letter tile code: '+' sweet / '-' sour, colour initial, shape initial; 'MKY' a monkey."""
    if kind == C.MONKEY:
        return "MKY"
    e, c, s = C.KIND_EXPRESSION[kind], C.KIND_COLOUR[kind], C.KIND_SHAPE[kind]
    return ("+", "-")[e] + C.COLOURS[c][0] + C.SHAPES[s][0]


def render(state: State, i: int = 0) -> str:
    """The table as the referee sees it: face-down tiles in brackets, taken slots as dots."""
    cfg = state.config
    p = cfg.num_players
    d = describe(state, i)
    loc = state.location[i]
    layout = state.layout[i]
    monkeys = int(((loc == FACE_UP) & (layout == C.MONKEY)).sum())
    status = "game over" if d["done"] else f"{d['to_move']} to choose (seats choose in turn, hidden)"
    flags, face_down_cards = pile_knowledge(state.take(i))
    lines = [
        f"Quickity Pickity - {p} players - round {d['round']} - {status}",
        C.card_text(d["card"]),
        f"monkeys face up: {monkeys}/{C.MONKEYS_TO_STOP} - cards won: "
        + ", ".join(f"{k} {v}" for k, v in d["cards_won"].items())
        + f" (first to {cfg.rounds_to_win} wins) - starting player {d['starter']}",
        f"pile: shown since the last shuffle {np.flatnonzero(flags[0]).tolist()}, "
        f"{int(face_down_cards[0])} taken face down; next {d['hidden']['pile'][:3]} ...",
    ]
    if box_hidden(cfg):
        seen = ", ".join(f"{k} {v['most_in_one_round']}/{v['rounds_with_one']}" for k, v in d["seen_in_play"].items())
        lines.append(f"box (hidden): {', '.join(d['hidden']['box'])}")
        lines.append(f"seen in play before (most in a round / rounds with one): {seen or '-'}")
    lines.append("table (+ sweet, - sour; colour and shape initials; [face down]; . taken):")
    cells = []
    for t in range(len(loc)):
        if loc[t] == FACE_DOWN:
            cell = f"[{_short(layout[t])}]"
        elif loc[t] == FACE_UP:
            cell = f" {_short(layout[t])} "
        else:
            cell = "  .  "
        cells.append(f"{t:2d}{cell}")
    for start in range(0, len(cells), 12):
        lines.append("  " + " ".join(cells[start : start + 12]))
    for k in range(p):
        seat = f"player_{k}"
        hand = d["held"].get(seat)
        lines.append(
            f"{seat}: {d['seat_phases'][seat]}{', holding ' + hand if hand else ''} - money {d['money'][seat]}"
        )
        first = int(zone_start(state.num_sets[i])[k])
        for s in range(int(state.num_sets[i, k])):
            size, bits = int(state.set_size[i, first + s]), int(state.set_bits[i, first + s])
            ok = "legal" if set_is_legal(bits, cfg.family) else "BROKEN -10"
            tiles = " ".join(_short(layout[t]) for t in np.flatnonzero(loc == SET_BASE + k * S + s))
            lines.append(f"    set {s} ({size}, {ok}): {tiles}")
    if d["done"]:
        won = [seat for seat, w in zip(d["cards_won"], winners(state.take(i))[0], strict=True) if w]
        lines.append(f"winner: {', '.join(won)} with {max(d['cards_won'].values())} cards")
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------------
# Resampling hidden information


def box_weights(state: State) -> np.ndarray:
    """`(n, 32, 3)` float64: per fruit type, the posterior weight of 0, 1 or 2 copies in play given what
    everyone has seen (hidden box), each type normalised; the box's posterior is their product over
    the types, restricted to 32 fruit in play.

    The prior (a uniform 32 of the 64 tiles) weighs c copies by C(2, c) = 1, 2, 1. Tiles are reshuffled
    every round and flipped in uniformly random order, so a round in which n copies of a type are seen
    multiplies the weight by c! / (c - n)!: one copy seen doubles the weight of c = 2 against c = 1
    and rules out c = 0; two copies seen leave c = 2. The current round counts like a finished one.
    """
    seen_now = _kind_counts(state, state.location != FACE_DOWN)[:, : C.N_FRUIT_TYPES]
    twice = (state.seen_most == 2) | (seen_now >= 2)
    once = state.seen_once.astype(np.int64) + (seen_now == 1)
    w = np.empty((state.batch_size, C.N_FRUIT_TYPES, 3), dtype=np.float64)
    w[..., 0] = (once == 0) & ~twice
    w[..., 1] = np.where(twice, 0.0, 2.0)
    w[..., 2] = np.where(twice, 1.0, np.exp2(np.minimum(once, 1000)))
    return w / w.sum(axis=2, keepdims=True)


def _sample_box(state: State, sub: np.ndarray) -> np.ndarray:
    """`(n, 32)` int64 copies of each fruit type in play drawn from the exact posterior (`box_weights`):
    a dynamic programme over the types counts the weight of the types after k holding r fruit, then the
    types are drawn in turn, one uniform number each. A fixed loop over the 32 types, batched over games."""
    n, k_types, total = state.batch_size, C.N_FRUIT_TYPES, C.TWO_PLAYER_FRUIT
    w = box_weights(state)
    rows = np.arange(n)
    after = np.zeros((n, k_types + 1, total + 1), dtype=np.float64)  # after[:, k, r]: types k.. hold r fruit
    after[:, k_types, 0] = 1.0
    for k in range(k_types - 1, -1, -1):
        nxt = after[:, k + 1]
        after[:, k] = w[:, k, 0, None] * nxt
        after[:, k, 1:] += w[:, k, 1, None] * nxt[:, :-1]
        after[:, k, 2:] += w[:, k, 2, None] * nxt[:, :-2]
    u = rng.uniform(sub, k_types)
    need = np.full(n, total, dtype=np.int64)
    copies = np.zeros((n, k_types), dtype=np.int64)
    for k in range(k_types):
        nxt = after[:, k + 1]
        odds = np.stack([w[:, k, c] * np.where(need >= c, nxt[rows, np.maximum(need - c, 0)], 0.0) for c in range(3)])
        cum = np.cumsum(odds, axis=0)  # (3, n)
        pick = (u[:, k] * cum[2] >= cum[:2]).sum(axis=0)
        copies[:, k] = pick
        need -= pick
    return copies


def _lay_face_down(s: State, counts: np.ndarray, sub: np.ndarray) -> None:
    """Put tiles `(n, 33)` (as many as each game has face-down slots) into the face-down slots, in a
    uniformly random order; every other slot keeps its tile."""
    n, t = s.layout.shape
    down = s.location == FACE_DOWN
    order = np.argsort(np.where(down, rng.uniform(sub, t), 2.0), axis=1)  # face-down slots first, shuffled
    kinds = _sorted_tiles(counts, t)
    g, j = np.nonzero(np.arange(t)[None, :] < down.sum(axis=1)[:, None])
    s.layout[g, order[g, j]] = kinds[g, j]
    s.kind_slots[:] = np.argsort(s.layout, axis=1, kind="stable")


def _shuffle_pile(s: State, sub: np.ndarray) -> None:
    """Shuffle, within each shuffle of 16, the cards nobody has seen: those not drawn yet and those tied
    winners took face down. Shown cards keep their places."""
    n, length = s.deck.shape
    u = rng.uniform(sub, length)
    for start in range(0, length, C.N_CARDS):
        block = slice(start, start + C.N_CARDS)
        unseen = ~s.shown[:, block]
        places = np.argsort(~unseen, axis=1, kind="stable")  # the unseen positions first, in order
        shuffled = np.argsort(np.where(unseen, u[:, block], 2.0), axis=1)  # the same positions, shuffled
        cards = s.deck[:, block].copy()
        g, j = np.nonzero(np.arange(C.N_CARDS)[None, :] < unseen.sum(axis=1)[:, None])
        cards[g, places[g, j]] = s.deck[:, block][g, shuffled[g, j]]
        s.deck[:, block] = cards


def redeal_hidden(state: State, player, keys: np.ndarray) -> State:
    """Resample what `player` (int or `(n,)` ints) cannot know, consistently with what it knows: a position
    drawn from the seat's information state (batched, for search and for the conformance check).

    * the box (two players, `random_half`): which fruit are in play, from the exact posterior given the
      fruit seen in play this round and in earlier ones (`box_weights`);
    * the tiles under the face-down slots: the fruit in play not face up or taken, and the monkeys not
      yet up, in a uniformly random order;
    * the marketplace pile: within each shuffle, the cards not shown in random order (cards tied
      winners took face down included);
    * the other seats' choices of this tick: uniformly among their legal actions (a search agent that
      models its opponents replaces these);
    * each game's random key.

    A fixed number of numpy calls per batch (loops over the 32 fruit types, the pile's shuffles and the
    seats only), never a loop over games.
    """
    s = state.copy()
    n = s.batch_size
    seat = seat_array(s, player)
    keys = np.asarray(keys, dtype=np.uint64).reshape(n)
    if box_hidden(s.config):
        keys, sub = rng.split(keys)
        s.in_play[:, : C.N_FRUIT_TYPES] = _sample_box(s, sub)
        _set_kind_start(s)
    keys, sub = rng.split(keys)
    _lay_face_down(s, s.in_play.astype(np.int64) - _kind_counts(s, s.location != FACE_DOWN), sub)
    keys, sub = rng.split(keys)
    _shuffle_pile(s, sub)
    for k in range(s.config.num_players):
        other = (seat != k) & (s.committed[:, k] != NO_ACTION)
        if other.any():
            keys, sub = rng.split(keys)
            mask = _masks(s, np.full(n, k), only_undecided=False)
            pick = np.argmax(np.where(mask, rng.uniform(sub, NUM_ACTIONS), -1.0), axis=1)
            s.committed[other, k] = pick[other]
    s.keys, _ = rng.split(keys)
    return s


def field_bounds(config: Config) -> dict[str, tuple]:
    """Inclusive value bounds of the game's fields, checked on every loaded state before the invariants."""
    t, f, p = num_slots(config), fruit_count(config), config.num_players
    copies = np.full(C.N_KINDS, C.COPIES, dtype=np.int64)
    copies[C.MONKEY] = C.N_MONKEYS
    return {
        "phase": (0, OVER),
        "seat_phase": (0, OVER),
        "round_index": (0, max_rounds(config)),
        "starter": (0, p - 1),
        "in_play": (0, copies),
        "kind_start": (0, t),
        "layout": (0, C.N_KINDS - 1),
        "location": (0, SET_BASE + p * S - 1),
        "up_count": (0, copies),
        "taken": (0, copies),
        "kind_slots": (0, t - 1),
        "held": (NO_SLOT, t - 1),
        "num_sets": (0, f),
        "set_size": (0, f),
        "set_bits": (0, int(np.bitwise_or.reduce(C.KIND_BITS.astype(np.int64)))),
        "set_bonus": (0, f),
        "seen_most": (0, C.COPIES),
        "seen_once": (0, max_rounds(config)),
        "committed": (NO_ACTION, NUM_ACTIONS - 1),
        "deck": (0, C.N_CARDS - 1),
        "deck_pos": (0, deck_length(config)),
        "card": (0, C.N_CARDS - 1),
        "cards_won": (0, deck_length(config)),
    }


def invariants(state: State) -> list[str]:
    """Problems with a batch (empty when sound): tiles conserved, sets agree with their tiles, hands,
    phases, choices in seat order, cards conserved, game over exactly when someone has enough cards."""
    cfg = state.config
    n, p = state.batch_size, cfg.num_players
    problems = []
    t, f = num_slots(cfg), fruit_count(cfg)
    loc = state.location.astype(np.int64)
    layout = state.layout.astype(np.int64)
    in_play = state.in_play.astype(np.int64)
    if layout.shape[1] != t or (layout < 0).any() or (layout >= C.N_KINDS).any():
        problems.append(f"tiles not conserved: the layout must hold {t} tile kinds in 0..{C.N_KINDS - 1}")
        return problems
    if state.set_size.shape[1] != f:
        problems.append(f"the sets must have {f} rows (one per fruit in play)")
        return problems
    bad_play = (in_play[:, C.MONKEY] != C.N_MONKEYS) | (in_play[:, : C.N_FRUIT_TYPES].sum(axis=1) != f)
    bad_play |= (in_play < 0).any(axis=1) | (in_play[:, : C.N_FRUIT_TYPES] > C.COPIES).any(axis=1)
    if not box_hidden(cfg):
        bad_play |= (in_play != C.tile_counts(p, cfg.two_player_tiles)[None, :]).any(axis=1)
    if bad_play.any():
        game = np.flatnonzero(bad_play)[0]
        problems.append(f"tiles not conserved: the tiles in play are not a valid set of {t} in game {game}")
        return problems
    if (state.kind_start[:, 1:] != np.cumsum(in_play, axis=1)).any() or (state.kind_start[:, 0] != 0).any():
        problems.append("kind_start does not follow the tiles in play")
    counts = np.bincount((np.arange(n)[:, None] * C.N_KINDS + layout).reshape(-1), minlength=n * C.N_KINDS)
    wrong = (counts.reshape(n, C.N_KINDS) != in_play).any(axis=1)
    if wrong.any():
        problems.append(
            f"tiles not conserved: the {t} tiles in play differ from the layout of game {np.flatnonzero(wrong)[0]}"
        )
        return problems
    valid = (loc == FACE_DOWN) | (loc == FACE_UP) | ((loc >= HELD_BASE) & (loc < HELD_BASE + p))
    in_set = loc >= SET_BASE
    row_of = np.where(in_set, (loc - SET_BASE) % S, 0)
    valid |= in_set & (loc < SET_BASE + p * S) & (row_of < f)
    if not valid.all():
        problems.append(f"a tile lies nowhere valid in game {np.flatnonzero(~valid.all(axis=1))[0]}")
        return problems
    if ((layout == C.MONKEY) & (loc >= HELD_BASE)).any():
        problems.append("a monkey was taken")
    rows = np.arange(n)
    if (face_up_counts(state) != state.up_count).any() or (taken_counts(state) != state.taken).any():
        problems.append("face-up or taken counts disagree with the tile slots")
    kind_slots = state.kind_slots.astype(np.int64)
    if (kind_slots < 0).any() or (kind_slots >= t).any():
        problems.append("kind_slots is not the slots sorted by kind")
    else:
        by_kind = np.take_along_axis(layout, kind_slots, axis=1)
        each_once = np.bincount((rows[:, None] * t + kind_slots).reshape(-1), minlength=n * t) == 1
        if (by_kind != np.sort(layout, axis=1)).any() or not each_once.all():
            problems.append("kind_slots is not the slots sorted by kind")
    holders = (loc[:, :, None] == HELD_BASE + np.arange(p)[None, None, :]).sum(axis=1)  # (n, P)
    held = state.held.astype(np.int64)
    held_ok = np.where(held >= 0, loc[rows[:, None], np.maximum(held, 0)] == HELD_BASE + np.arange(p), True)
    if (holders != (held >= 0)).any() or not held_ok.all():
        problems.append("tiles in hand disagree with the held slots")
    g_of, t_of = np.nonzero(in_set)
    seat_of_tile, number = np.divmod(loc[g_of, t_of] - SET_BASE, S)
    if (number >= state.num_sets[g_of, seat_of_tile]).any():
        problems.append("a tile lies in a set its zone has not started")
        return problems
    flat = g_of * f + zone_start(state.num_sets)[g_of, seat_of_tile] + number
    kinds = layout[g_of, t_of]
    size = np.bincount(flat, minlength=n * f)
    bits = np.zeros(n * f, dtype=np.int64)
    np.bitwise_or.at(bits, flat, C.KIND_BITS[kinds].astype(np.int64))
    bonus = np.bincount(flat, weights=C.IS_BONUS[state.card[g_of].astype(np.int64), kinds], minlength=n * f)
    if (size != state.set_size.reshape(-1)).any() or (bits != state.set_bits.reshape(-1)).any():
        problems.append("set sizes or attributes disagree with the tiles placed")
    if (bonus != state.set_bonus.reshape(-1)).any():
        problems.append("bonus counts disagree with the tiles placed and the round's card")
    started = np.arange(f)[None, :] < state.num_sets.sum(axis=1, dtype=np.int64)[:, None]
    if ((state.set_size > 0) != started).any():
        problems.append("sets are not numbered 0 .. num_sets - 1 without gaps")
    most, once = state.seen_most.astype(np.int64), state.seen_once.astype(np.int64)
    if not box_hidden(cfg):
        if most.any() or once.any():
            problems.append("fruit seen in play are recorded, but no fruit lie hidden in a box")
    elif (
        (most < 0).any()
        or (most > in_play[:, : C.N_FRUIT_TYPES]).any()
        or (once < 0).any()
        or (once > state.round_index[:, None]).any()
        or ((most > 0) != ((once > 0) | (most == 2))).any()
    ):
        problems.append("fruit seen in play disagree with the fruit in play or the rounds played")
    live = ~state.done
    if ((state.seat_phase == PLACE) != (held >= 0))[live].any():
        problems.append("a seat is in phase 'place' without a tile in hand, or holds one in another phase")
    chosen = state.committed != NO_ACTION
    in_order = np.arange(p)[None, :] < state.to_move[:, None]
    if (chosen != in_order)[live].any() or (state.to_move >= p).any():
        problems.append("choices of this tick are not those of the seats before to_move")
    monkeys = ((loc == FACE_UP) & (layout == C.MONKEY)).sum(axis=1)
    if ((monkeys >= C.MONKEYS_TO_STOP) & live).any():
        problems.append("a round goes on with three monkeys face up")
    if (((loc == FACE_DOWN).sum(axis=1) == 0) & live).any():
        problems.append("a round goes on with no tile face down")
    expected_phase = np.where(state.done, OVER, state.seat_phase[rows, np.minimum(state.to_move, p - 1)])
    if (state.phase != expected_phase).any():
        problems.append("phase is not the phase of the seat to move")
    reached = (state.cards_won >= cfg.rounds_to_win).any(axis=1)
    if (reached != state.done).any():
        problems.append("a game is over without a player holding enough cards, or goes on with one")
    if state.truncated.any():
        problems.append("a game was truncated, but play cannot stall")
    if (state.cards_won.sum(axis=1) + live != state.deck_pos).any():
        problems.append("cards not conserved: cards won plus the current card differ from the cards drawn")
    blocks = state.deck.reshape(n, -1, C.N_CARDS)
    if (np.sort(blocks, axis=2) != np.arange(C.N_CARDS)).any():
        problems.append("the marketplace pile is not made of shuffles of the 16 cards")
    pos = state.deck_pos.astype(np.int64)
    if (pos < 1).any() or (pos > state.deck.shape[1]).any():
        problems.append("cards drawn out of range")
        return problems
    drawn = np.arange(state.deck.shape[1])[None, :] < pos[:, None]
    if (state.shown & ~drawn).any() or (state.shown.sum(axis=1) != state.round_index + 1).any():
        problems.append("cards shown are not one per round played, among the cards drawn")
    elif (live & ~state.shown[rows, pos - 1]).any():
        problems.append("the round's card is not the card drawn last")
    else:
        last_shown = state.deck.shape[1] - 1 - np.argmax(state.shown[:, ::-1], axis=1)
        if (state.card != state.deck[rows, last_shown]).any():
            problems.append("the round's card is not the card shown last")
    return problems
