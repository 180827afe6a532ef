"""Quickity Pickity rules as pure, batched numpy functions (imports numpy and the core only).

Real time as simultaneous ticks. Each tick every player takes one step of the rulebook's cycle at
the same moment: flip a face-down tile (A), take a face-up fruit into the hand (B), place the held
fruit into one of the player's sets or a new set. The seats' choices are collected one by one in
seat order, hidden from each other (as in Cherry Picking's commit phase); the last seat's choice
resolves the tick: flips first, then - unless the third monkey has just appeared - takes and places.

Per-seat phases: `flip` (after placing, or at the start of a round: the next step must be a flip),
`take` (after a flip: take a face-up fruit, or decline and flip another tile), `place` (holding a
fruit). A seat whose take fails stays in `take`.

Decisions, one flat action space of 43:

* `0`      flip a face-down tile. Face-down tiles are shuffled and indistinguishable, so which one a
  player flips carries no information: a flip turns the next face-down slot of the shuffled layout
  (a uniformly random tile). Players flipping in the same tick turn different tiles; only when more
  of them flip than tiles lie face down do two turn the same tile, and both reveal it (a tick used
  each).
* `1..32`  take a face-up fruit of type `k - 1` (`16 * expression + 4 * colour + shape`). Copies of a
  type are identical, so a take names the type. When more players take a type in one tick than
  copies lie face up, the copies go to players chosen uniformly at random (the game's key); the
  others' takes fail.
* `33..40` place the held fruit into own set 0..7;
* `41`     place the held fruit as a new set (masked when the zone holds `MAX_SETS` sets);
* `42`     wait: legal only for a seat with nothing legal in its phase. That cannot happen in a live
  round (a tile stays face down until the third monkey appears), so it is the parallel env's wait
  action and a safety net.

When a tick's flips make three monkeys face up, play stops: that tick's takes and places do not
happen, fruit in hand goes back to the table unplaced, and the round is scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from fruit_envs.core import rng
from fruit_envs.core.spec import Config, GameSpec, option, outcome_rewards
from fruit_envs.core.state import BatchState
from fruit_envs.games.quickity_pickity import components as C

MAX_PLAYERS = 5
S = C.MAX_SETS  # 8
FLIP_ACTION = 0
TAKE_BASE = 1  # 1..32: take a face-up fruit of type k
PLACE_BASE = TAKE_BASE + C.N_FRUIT_TYPES  # 33..40: place into set s
NEW_SET = PLACE_BASE + S  # 41
WAIT = NEW_SET + 1  # 42
NUM_ACTIONS = WAIT + 1  # 43

FLIP, TAKE, PLACE, OVER = 0, 1, 2, 3
PHASE_NAMES = ("flip", "take", "place", "over")
NO_ACTION = -1
NO_SLOT = -1

# Where a tile is (`State.location`): face down, face up, in a player's hand, in a player's set.
FACE_DOWN, FACE_UP = 0, 1
HELD_BASE = 2  # 2 + seat
SET_BASE = HELD_BASE + MAX_PLAYERS  # 7 + seat * S + set


@dataclass(frozen=True)
class QuickityPickityConfig(Config):
    """Options of Quickity Pickity."""

    family: bool = option(
        False, (False, True), "True: the rulebook's family rule, facial expressions are ignored in sets", kind=bool
    )
    two_player_tiles: str = option(
        "half",
        ("half", "all"),
        "with 2 players: 'half' plays one copy of each of the 32 fruit types and the 3 monkeys (35 tiles), "
        "'all' all 67 tiles",
    )
    rounds_to_win: int = option(3, (1, 2, 3, 4, 5), "marketplace cards that win the game (rulebook: 3)", kind=int)


@dataclass
class State(BatchState):
    """Quickity Pickity batch: `n` games, `P` seats, `T` tile slots, `S` = 8 sets per zone, `D` cards."""

    phase: np.ndarray  # (n,) int8: phase of the seat to move (FLIP, TAKE, PLACE) or OVER
    seat_phase: np.ndarray  # (n, P) int8: each seat's phase in its flip -> take -> place cycle
    round_index: np.ndarray  # (n,) int16: 0-based round
    starter: np.ndarray  # (n,) int8: starting player of the round (the last round winner)
    layout: np.ndarray  # (n, T) int8: tile kind at each slot (hidden while face down)
    location: np.ndarray  # (n, T) int8: FACE_DOWN, FACE_UP, HELD_BASE + seat, SET_BASE + seat * S + set
    up_count: np.ndarray  # (n, 33) int8: face-up tiles of each kind, monkeys last (kept with `location`)
    kind_slots: np.ndarray  # (n, T) int8: the slots sorted by the kind lying there (kept with `layout`)
    held: np.ndarray  # (n, P) int8: slot of the tile in each hand, -1 none
    num_sets: np.ndarray  # (n, P) int8: sets started in each zone
    set_size: np.ndarray  # (n, P, S) int8: tiles in each set
    set_bits: np.ndarray  # (n, P, S) int16: OR of the tiles' attribute bits (components.KIND_BITS)
    set_bonus: np.ndarray  # (n, P, S) int8: bonus fruit of the current card in each set
    committed: np.ndarray  # (n, P) int8: action chosen this tick, -1 not yet (hidden from the others)
    deck: np.ndarray  # (n, D) int8: marketplace cards in drawing order (blocks of 16 shuffles)
    deck_pos: np.ndarray  # (n,) int16: cards drawn from the pile
    card: np.ndarray  # (n,) int8: the round's marketplace card (deck[deck_pos - 1] while a round is played)
    cards_won: np.ndarray  # (n, P) int8

    GAME = "quickity_pickity"


SPEC = GameSpec(
    id="quickity_pickity",
    name="Quickity Pickity",
    env_name="QuickityPickity",
    version=0,
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
)


# ----------------------------------------------------------------------------------------------
# Declared facts


def tiles_in_play(config: Config) -> np.ndarray:
    """`(T,) int8` the kinds of the tiles in play, sorted."""
    return C.tiles(config.num_players, config.two_player_tiles)


def copies_per_type(config: Config) -> int:
    """Copies of each fruit type in play (2, or 1 in the two-player reduction)."""
    return int(C.tile_counts(config.num_players, config.two_player_tiles)[0])


def num_slots(config: Config) -> int:
    return len(tiles_in_play(config))


def deck_length(config: Config) -> int:
    """Cards the pile must hold: a card per round won by at most P players, at most P * rounds_to_win."""
    blocks = -(-config.num_players * config.rounds_to_win // C.N_CARDS)
    return C.N_CARDS * blocks


SLOT_FEATURES = 14  # face down, gone, monkey, sweet, sour, 4 colours, 4 shapes, bonus fruit
HELD_FEATURES = 12  # holding, sweet, sour, 4 colours, 4 shapes, bonus fruit
SET_FEATURES = 16  # exists, size, 10 attribute bits, bonus fruit, broken, value+ / 10, value- / 10
PLAYER_FEATURES = 5  # sets, fruit, money+ / 10, money- / 10, cards won
CARD_FEATURES = C.N_CARDS + C.LARGEST_SIZE + len(C.COLOURS) + len(C.SHAPES) + 1  # 32


def observation_layout(config: Config) -> dict[str, slice]:
    """Named slices of a seat's observation; blocks over seats list the observer first."""
    p, t = config.num_players, num_slots(config)
    sizes = [
        ("slots", t * SLOT_FEATURES),  # every tile slot: face down / gone / face-up tile
        ("face_up", C.N_FRUIT_TYPES),  # face-up copies of each fruit type (the take actions' targets)
        ("phases", p * 3),  # each seat's phase (flip, take, place), one-hot
        ("held", p * HELD_FEATURES),  # the tile in each hand (in plain view)
        ("sets", p * S * SET_FEATURES),  # every set of every zone
        ("players", p * PLAYER_FEATURES),  # per seat: sets, fruit, money this round, cards won
        ("card", CARD_FEATURES),  # current card: one-hot, values (v + 10) / 10, bonus colour, shape, bonus / 3
        ("monkeys", C.MONKEYS_TO_STOP),  # monkeys face up (0, 1, 2), one-hot
        ("face_down", 1),  # share of tiles still face down
    ]
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def observation_shape(config: Config) -> tuple[int]:
    return (observation_layout(config)["face_down"].stop,)


OBSERVATION_HIGH = 100.0  # counts (a set holds at most 64 tiles), one-hot bits, money / 10


def max_rounds(config: Config) -> int:
    """Each round gives at least one card, so someone holds `rounds_to_win` after this many rounds."""
    return config.num_players * (config.rounds_to_win - 1) + 1


def max_ticks_per_round(config: Config) -> int:
    """Every tick reveals, takes or places at least one tile: a round has at most T + 2F ticks."""
    fruit = num_slots(config) - C.N_MONKEYS
    return num_slots(config) + 2 * fruit


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


def money(state: State) -> np.ndarray:
    """`(n, P)` int64 each seat's money this round: its sets on the current card plus the bonus."""
    card = current_card(state)
    values = set_values(card[:, None, None], state.set_size, state.set_bits, state.config.family)
    bonus = C.CARD_BONUS[card].astype(np.int64)[:, None] * state.set_bonus.sum(axis=2, dtype=np.int64)
    return values.sum(axis=2) + bonus


def score_tiles(card: int, sets: list[list[str]], family: bool = False) -> int:
    """Money of one zone given as lists of tile names, for tests and display."""
    kinds = [[C.tile_from_name(t) for t in tiles] for tiles in sets]
    size = np.array([len(k) for k in kinds], dtype=np.int64)
    bits = np.array([np.bitwise_or.reduce(C.KIND_BITS[k]) if k else 0 for k in kinds], dtype=np.int64)
    bonus = sum(int(C.IS_BONUS[card, k].sum()) for k in kinds)
    return int(set_values(card, size, bits, family).sum()) + int(C.CARD_BONUS[card]) * bonus


# ----------------------------------------------------------------------------------------------
# Setup


def _new_round(s: State, games: np.ndarray) -> None:
    """Shuffle every tile face down, clear the zones, draw the next marketplace card (in place)."""
    tiles = tiles_in_play(s.config)
    s.keys[games], sub = rng.split(s.keys[games])
    s.layout[games] = tiles[rng.permutations(sub, len(tiles))]
    s.kind_slots[games] = np.argsort(s.layout[games], axis=1, kind="stable")
    s.location[games] = FACE_DOWN
    s.up_count[games] = 0
    s.held[games] = NO_SLOT
    s.num_sets[games] = 0
    s.set_size[games] = 0
    s.set_bits[games] = 0
    s.set_bonus[games] = 0
    s.seat_phase[games] = FLIP
    s.committed[games] = NO_ACTION
    s.to_move[games] = 0
    s.phase[games] = FLIP
    s.card[games] = s.deck[games, s.deck_pos[games].astype(np.int64)]
    s.deck_pos[games] += 1


def init(config: Config, keys: np.ndarray) -> State:
    """`len(keys)` games set up as the rulebook says, each from its own key."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    n, p, t, d = len(keys), config.num_players, num_slots(config), deck_length(config)
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
        layout=np.zeros((n, t), dtype=np.int8),
        location=np.zeros((n, t), dtype=np.int8),
        up_count=np.zeros((n, C.N_KINDS), dtype=np.int8),
        kind_slots=np.zeros((n, t), dtype=np.int8),
        held=np.full((n, p), NO_SLOT, dtype=np.int8),
        num_sets=np.zeros((n, p), dtype=np.int8),
        set_size=np.zeros((n, p, S), dtype=np.int8),
        set_bits=np.zeros((n, p, S), dtype=np.int16),
        set_bonus=np.zeros((n, p, S), dtype=np.int8),
        committed=np.full((n, p), NO_ACTION, dtype=np.int8),
        deck=np.zeros((n, d), dtype=np.int8),
        deck_pos=np.zeros(n, dtype=np.int16),
        card=np.zeros(n, dtype=np.int8),
        cards_won=np.zeros((n, p), dtype=np.int8),
    )
    for block in range(d // C.N_CARDS):
        state.keys, sub = rng.split(state.keys)
        state.deck[:, block * C.N_CARDS : (block + 1) * C.N_CARDS] = rng.permutations(sub, C.N_CARDS)
    _new_round(state, np.arange(n))
    return state


# ----------------------------------------------------------------------------------------------
# Masks


def _seat_array(state: State, player) -> np.ndarray:
    n = state.batch_size
    if player is None:
        return state.to_move.astype(np.int64)
    seat = np.broadcast_to(np.asarray(player, dtype=np.int64), (n,))
    if ((seat < 0) | (seat >= state.config.num_players)).any():
        raise ValueError(f"player must be a seat in 0..{state.config.num_players - 1}, got {player!r}")
    return seat


def face_up_counts(state: State) -> np.ndarray:
    """`(n, 33)` int64: face-up tiles of each kind (monkeys last), counted from the tile slots."""
    n = state.batch_size
    kinds = np.where(state.location == FACE_UP, state.layout, C.N_KINDS).astype(np.int64)
    flat = (np.arange(n)[:, None] * (C.N_KINDS + 1) + kinds).reshape(-1)
    return np.bincount(flat, minlength=n * (C.N_KINDS + 1)).reshape(n, C.N_KINDS + 1)[:, : C.N_KINDS]


def _mask_rows() -> np.ndarray:
    """`(37, 43)` bool: the legal actions by seat phase (0..3) x sets in the zone (0..8), then a row
    for a seat that does not decide (all False). Phase take allows every take; `legal_mask` keeps
    those of the fruit face up. Wait is never needed: every phase has a legal action."""
    rows = np.zeros((4, S + 1, NUM_ACTIONS), dtype=bool)
    sets = np.arange(S + 1)
    rows[[FLIP, TAKE, OVER], :, FLIP_ACTION] = True  # a live round always has a face-down tile
    rows[TAKE, :, TAKE_BASE:PLACE_BASE] = True
    rows[PLACE, :, PLACE_BASE:NEW_SET] = np.arange(S)[None, :] < sets[:, None]
    rows[PLACE, :, NEW_SET] = sets < S
    return np.concatenate([rows.reshape(-1, NUM_ACTIONS), np.zeros((1, NUM_ACTIONS), dtype=bool)])


MASK_ROWS = _mask_rows()


def legal_mask(state: State, player=None) -> np.ndarray:
    """`(n, 43)` bool: the legal actions of `player` (default: the seat to move) in each game.

    Every seat that has not chosen this tick decides: flip (phase flip or take), take a face-up
    fruit type (phase take), place the held fruit (phase place). Finished games: none. Reads only
    the public state at the start of the tick, never another seat's choice.
    """
    n = state.batch_size
    seat = _seat_array(state, player)
    rows = np.arange(n)
    phase = state.seat_phase[rows, seat].astype(np.intp)
    deciding = ~state.done & (state.committed[rows, seat] == NO_ACTION)
    code = np.where(deciding, phase * (S + 1) + state.num_sets[rows, seat], len(MASK_ROWS) - 1)
    mask = np.take(MASK_ROWS, code, axis=0)
    if (deciding & (phase == TAKE)).any():
        mask[:, TAKE_BASE:PLACE_BASE] &= state.up_count[:, : C.N_FRUIT_TYPES] > 0
    return mask


def acting(state: State) -> np.ndarray:
    """`(n, P)` bool: seats that have not chosen yet this tick (every seat at the start of a tick)."""
    return (state.committed == NO_ACTION) & ~state.done[:, None]


# ----------------------------------------------------------------------------------------------
# Step


def step(state: State, actions: np.ndarray, active: np.ndarray | None = None) -> tuple[State, np.ndarray]:
    """Record one seat's choice per game; the last seat's choice resolves the tick.

    Returns `(new_state, rewards (n, P) float32)`. Actions must be legal (adapters check this).
    Games that are finished, or not `active` (`(n,)` bool, default all), are left untouched.
    """
    s = state.copy()
    n, p = s.batch_size, s.config.num_players
    actions = np.asarray(actions, dtype=np.int64).reshape(n)
    live = ~s.done if active is None else ~s.done & np.asarray(active, dtype=bool).reshape(n)
    games = np.flatnonzero(live)
    seat = s.to_move[games].astype(np.int64)
    s.committed[games, seat] = actions[games]
    s.to_move[games] += 1
    s.step_count[games] += 1
    rewards = np.zeros((n, p), dtype=np.float32)
    resolve = games[s.to_move[games] == p]
    if len(resolve):
        _resolve_tick(s, resolve, rewards)
    to_move = s.to_move[games].astype(np.int64)
    s.phase[games] = np.where(s.done[games], OVER, s.seat_phase[games, np.minimum(to_move, p - 1)])
    return s, rewards


def _face_down_slots(down: np.ndarray, needed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The first `needed` face-down slots of each row of `down` `(m, T)`, as `(m, max needed)`, and how
    many of those exist `(m,)` (the last one found repeats after them). In play the face-down slots are
    those past the flipped ones, so the slots following the first are checked and only other rows are
    searched."""
    m, t = down.shape
    count = int(needed.max())
    rows = np.arange(m)[:, None]
    slots = np.argmax(down, axis=1)[:, None] + np.arange(count)[None, :]
    ok = (slots < t) | (np.arange(count)[None, :] >= needed[:, None])
    slots = np.minimum(slots, t - 1)
    ok &= down[rows, slots] | (np.arange(count)[None, :] >= needed[:, None])
    found = needed.astype(np.int64)
    odd = np.flatnonzero(~ok.all(axis=1))
    if len(odd):
        rest = down[odd]
        found[odd] = np.minimum(np.count_nonzero(rest, axis=1), needed[odd])
        for j in range(count):
            slots[odd, j] = np.where(j < found[odd], np.argmax(rest, axis=1), slots[odd, max(j - 1, 0)])
            rest[np.arange(len(odd)), slots[odd, j]] = False
    return slots, found


def _count_kinds(rows: np.ndarray, kinds: np.ndarray, m: int) -> np.ndarray:
    """`(m, 33)` how many of each kind appear per row, from parallel arrays of rows and kinds."""
    flat = rows.astype(np.int64) * C.N_KINDS + kinds.astype(np.int64)
    return np.bincount(flat, minlength=m * C.N_KINDS).reshape(m, C.N_KINDS)


def _resolve_tick(s: State, games: np.ndarray, rewards: np.ndarray) -> None:
    """Apply every seat's choice of this tick at once: flips, then (unless play stops) takes and places."""
    cfg = s.config
    p = cfg.num_players
    m = len(games)
    rows = np.arange(m)
    idx = np.arange(p)
    acts = s.committed[games].astype(np.int64)  # (m, P)
    start = s.location[games]  # (m, T) the table as everyone saw it when choosing
    loc = start.copy()  # written back below
    flip = acts == FLIP_ACTION
    take = (acts >= TAKE_BASE) & (acts < PLACE_BASE)
    place = (acts >= PLACE_BASE) & (acts <= NEW_SET)
    phase = s.seat_phase[games]

    # A. flips. Face-down tiles are shuffled and indistinguishable, so the j-th flipper of a game turns
    # the j-th face-down slot (a uniformly random tile, and players reach for different tiles); only
    # when more players flip than tiles lie face down do two turn the same tile: both reveal it.
    n_flips = flip.sum(axis=1)
    up_change = np.zeros((m, C.N_KINDS), dtype=np.int64)
    if n_flips.any():
        turned, found = _face_down_slots(start == FACE_DOWN, n_flips)
        rank = np.cumsum(flip, axis=1) - 1
        gi, pi = np.nonzero(flip)
        fresh = rank[gi, pi] < found[gi]
        slot = turned[gi, np.minimum(rank[gi, pi], found[gi] - 1)]
        loc[gi, slot] = FACE_UP
        up_change += _count_kinds(gi[fresh], s.layout[games[gi[fresh]], slot[fresh]], m)
        phase[flip] = TAKE
    stop = s.up_count[games, C.MONKEY] + up_change[:, C.MONKEY] >= C.MONKEYS_TO_STOP
    take &= ~stop[:, None]
    place &= ~stop[:, None]

    # places: the fruit held since an earlier tick goes into a set (or a new one)
    if place.any():
        gi, pi = np.nonzero(place)
        g = games[gi]
        held = s.held[g, pi].astype(np.int64)
        kind = s.layout[g, held].astype(np.int64)
        target = acts[gi, pi] - PLACE_BASE
        new = target == S
        target = np.where(new, s.num_sets[g, pi], target)
        card = s.card[g].astype(np.int64)
        is_bonus = C.IS_BONUS[card, kind]
        if cfg.reward == "score":
            before = set_values(card, s.set_size[g, pi, target], s.set_bits[g, pi, target], cfg.family)
        loc[gi, held] = SET_BASE + pi * S + target
        s.set_size[g, pi, target] += 1
        s.set_bits[g, pi, target] |= C.KIND_BITS[kind]
        s.set_bonus[g, pi, target] += is_bonus
        s.num_sets[g, pi] += new
        s.held[g, pi] = NO_SLOT
        phase[gi, pi] = FLIP
        if cfg.reward == "score":
            after = set_values(card, s.set_size[g, pi, target], s.set_bits[g, pi, target], cfg.family)
            rewards[g, pi] += after - before + C.CARD_BONUS[card] * is_bonus

    # B. takes: the copies of a type face up at the start of the tick go to its takers, in a
    # uniformly random order when several take the same type; the takes left over fail.
    if take.any():
        kind = np.where(take, acts - TAKE_BASE, -1 - idx[None, :])  # non-takers never match
        rank = np.zeros((m, p), dtype=np.int64)  # takers of the same type served before this one
        several = np.flatnonzero(take.sum(axis=1) >= 2)
        same = kind[several, :, None] == kind[several, None, :]
        same &= idx[:, None] != idx[None, :]
        contested = same.any(axis=(1, 2))
        if contested.any():
            rows_c = several[contested]
            s.keys[games[rows_c]], sub = rng.split(s.keys[games[rows_c]])
            order = rng.uniform(sub, p)
            ahead = same[contested] & (
                (order[:, None, :] < order[:, :, None])
                | ((order[:, None, :] == order[:, :, None]) & (idx[None, :] < idx[:, None]))
            )
            rank[rows_c] = ahead.sum(axis=2)
        kind = np.maximum(kind, 0)
        # the type's copies sit at positions copies * kind + c of kind_slots (at most 2 copies)
        copies = copies_per_type(cfg)
        first = s.kind_slots[games[:, None], kind * copies].astype(np.int64)  # (m, P)
        first_up = start[rows[:, None], first] == FACE_UP
        if copies == 1:
            slot, available = first, first_up.astype(np.int64)
        else:
            second = s.kind_slots[games[:, None], kind * copies + 1].astype(np.int64)
            second_up = start[rows[:, None], second] == FACE_UP
            slot = np.where(first_up & (rank == 0), first, second)
            available = first_up.astype(np.int64) + second_up
        won = take & (rank < available)
        gi, pi = np.nonzero(won)
        loc[gi, slot[gi, pi]] = HELD_BASE + pi
        s.held[games[gi], pi] = slot[gi, pi]
        up_change -= _count_kinds(gi, kind[gi, pi], m)
        phase[won] = PLACE

    s.location[games] = loc
    s.up_count[games] += up_change.astype(np.int8)
    s.seat_phase[games] = phase
    s.committed[games] = NO_ACTION
    s.to_move[games] = 0
    if stop.any():
        _end_round(s, games[stop], rewards)


def _end_round(s: State, games: np.ndarray, rewards: np.ndarray) -> None:
    """Score the round: the richest player (then the one with most fruit) takes the card; ties all take one."""
    cfg = s.config
    p = cfg.num_players
    # tiles in hand go back to the table unplaced
    holding = s.held[games] >= 0
    gi, pi = np.nonzero(holding)
    back = s.held[games[gi], pi].astype(np.int64)
    s.location[games[gi], back] = FACE_UP
    np.add.at(s.up_count, (games[gi], s.layout[games[gi], back]), 1)
    s.held[games] = NO_SLOT
    s.seat_phase[games] = FLIP
    sub = s.take(games)
    earned = money(sub)
    fruit = sub.set_size.sum(axis=2, dtype=np.int64)
    best = earned == earned.max(axis=1, keepdims=True)
    fruit_best = np.where(best, fruit, -1)
    tied = best & (fruit_best == fruit_best.max(axis=1, keepdims=True))
    s.cards_won[games] += tied.astype(np.int8)
    order = (np.arange(p)[None, :] - s.starter[games].astype(np.int64)[:, None]) % p
    s.starter[games] = np.argmin(np.where(tied, order, p), axis=1)
    s.deck_pos[games] += (tied.sum(axis=1) - 1).astype(np.int16)
    over = (s.cards_won[games] >= cfg.rounds_to_win).any(axis=1)
    ended = games[over]
    if len(ended):
        s.done[ended] = True
        s.phase[ended] = OVER
        if cfg.reward == "terminal":
            rewards[ended] = terminal_rewards(s.cards_won[ended])
    again = games[~over]
    if len(again):
        s.round_index[again] += 1
        _new_round(s, again)


def terminal_rewards(cards_won: np.ndarray) -> np.ndarray:
    """+1 each player holding the most cards (the game's winners), -1 each other, 0 all round if all tie."""
    return outcome_rewards(cards_won == cards_won.max(axis=1, keepdims=True))


def final_scores(state: State) -> np.ndarray:
    """`(n, P)` marketplace cards each seat has won."""
    return state.cards_won.astype(np.int64)


def winners(state: State) -> np.ndarray:
    """`(n, P)` bool: the players holding the most cards (all who reached `rounds_to_win` together)."""
    return state.cards_won == state.cards_won.max(axis=1, keepdims=True)


# ----------------------------------------------------------------------------------------------
# Observation

NONE_KIND = C.N_KINDS  # "no tile" row of the feature tables
FACE_DOWN_CODE, GONE_CODE = C.N_KINDS, C.N_KINDS + 1  # slot codes beside the face-up kinds 0..32


def _feature_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observation rows looked up per (card, slot code), (card, kind in hand) and set bits."""
    tile = np.zeros((C.N_KINDS + 1, 11), dtype=np.float32)  # monkey, sweet, sour, 4 colours, 4 shapes
    tile[C.MONKEY, 0] = 1.0
    for k in range(C.N_FRUIT_TYPES):
        tile[k, 1 + C.KIND_EXPRESSION[k]] = 1.0
        tile[k, 3 + C.KIND_COLOUR[k]] = 1.0
        tile[k, 7 + C.KIND_SHAPE[k]] = 1.0
    bonus = np.concatenate([C.IS_BONUS, np.zeros((C.N_CARDS, 1), dtype=bool)], axis=1)  # (16, 34)
    slots = np.zeros((C.N_CARDS, C.N_KINDS + 2, SLOT_FEATURES), dtype=np.float32)
    slots[:, : C.N_KINDS, 2:13] = tile[: C.N_KINDS]
    slots[:, : C.N_KINDS, 13] = bonus[:, : C.N_KINDS]
    slots[:, FACE_DOWN_CODE, 0] = 1.0
    slots[:, GONE_CODE, 1] = 1.0
    held = np.zeros((C.N_CARDS, C.N_KINDS + 1, HELD_FEATURES), dtype=np.float32)
    held[:, : C.N_KINDS, 0] = 1.0
    held[:, :, 1:11] = tile[:, 1:]
    held[:, :, 11] = bonus
    bit_planes = ((np.arange(1 << C.N_BITS)[:, None] >> np.arange(C.N_BITS)) & 1).astype(np.float32)
    return slots, held, bit_planes


SLOT_TABLE, HELD_TABLE, BIT_TABLE = _feature_tables()
SLOT_ROWS = SLOT_TABLE.reshape(-1, SLOT_FEATURES)  # row card * (N_KINDS + 2) + slot code
HELD_ROWS = HELD_TABLE.reshape(-1, HELD_FEATURES)  # row card * (N_KINDS + 1) + kind in hand


def _set_rows(family: bool) -> np.ndarray:
    """`(1024, 16)` a set's features that follow from its attribute bits: bit planes and 'broken'."""
    rows = np.zeros((1 << C.N_BITS, SET_FEATURES), dtype=np.float32)
    rows[:, 2:12] = BIT_TABLE
    rows[:, 13] = ~(C.SET_LEGAL_FAMILY if family else C.SET_LEGAL)  # no set has bits 0, a legal code
    return rows


SET_ROWS = {False: _set_rows(False), True: _set_rows(True)}
# value of a set +/- as observed, by (card * 8 + min(size, 7)) * 2 + legal (as `np.maximum(v, 0) * 0.1`)
SET_VALUE_POS = (np.maximum(C.SET_VALUE, 0) * 0.1).astype(np.float32).reshape(-1)
SET_VALUE_NEG = (np.maximum(-C.SET_VALUE, 0) * 0.1).astype(np.float32).reshape(-1)
PHASE_ROWS = np.eye(4, 3, dtype=np.float32)  # seat phase one-hot; row 3 (game over) all zero
MONKEY_ROWS = np.eye(C.MONKEYS_TO_STOP + 1, C.MONKEYS_TO_STOP, dtype=np.float32)  # row 3: none shown


def _block(obs: np.ndarray, where: slice, shape: tuple[int, ...]) -> np.ndarray:
    """A writable view of `obs[:, where]` shaped `(n, *shape)` (never a copy)."""
    view = obs[:, where].reshape(obs.shape[0], *shape)
    assert view.base is obs or view.base is obs.base, "observation block must be a view"
    return view


def _relative(seat: np.ndarray, p: int) -> np.ndarray:
    """`(n, P)` absolute seat of each seat-relative position (observer first)."""
    return (seat[:, None] + np.arange(p)[None, :]) % p


def _from_seat(values: np.ndarray, seat: np.ndarray, p: int) -> np.ndarray:
    """`values` `(n, P, ...)` with each row's seats listed from `seat` on; one `take` when every row
    has the same observer (the common case: a batch in step), a gather otherwise."""
    if len(seat) and (seat == seat[0]).all():
        return np.take(values, (int(seat[0]) + np.arange(p)) % p, axis=1)
    return values[np.arange(len(seat))[:, None], _relative(seat, p)]


def _sum_sets(counts: np.ndarray) -> np.ndarray:
    """`(n, P)` int64 totals over the 8 sets of `(n, P, 8)` int8 counts that add up to under 256: the
    8 bytes of a set row read as one uint64 and multiplied by 0x0101...01 sum into its top byte."""
    rows = np.ascontiguousarray(counts).view(np.uint64)[..., 0]
    return ((rows * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


@cache
def _layout(config: Config) -> dict[str, slice]:
    return observation_layout(config)


def observe(state: State, player) -> np.ndarray:
    """`(n, O)` float32: what `player` (int or `(n,)` ints) may know, nothing more.

    Every slot as face down / gone / the face-up tile; every seat's phase, tile in hand and sets
    (all in plain view on the table); money, fruit and cards won; the current card; monkeys up.
    Never the tile under a face-down slot, the pile's order, or any seat's choice of this tick.
    Each block is a table lookup on small integer codes, written once into an uninitialised array.
    """
    cfg = state.config
    n, p, t = state.batch_size, cfg.num_players, state.location.shape[1]
    seat = _seat_array(state, player)
    lay = _layout(cfg)
    obs = np.empty((n, lay["face_down"].stop), dtype=np.float32)
    card = state.card.astype(np.intp)
    live = ~state.done
    loc = state.location

    # slot code: the kind when face up, else FACE_DOWN_CODE (location 0) or GONE_CODE (locations 2+)
    code = np.where(loc == FACE_UP, state.layout, np.minimum(loc, 1) + np.int8(FACE_DOWN_CODE)).astype(np.int16)
    code += (state.card.astype(np.int16) * (C.N_KINDS + 2))[:, None]
    _block(obs, lay["slots"], (t, SLOT_FEATURES))[:] = np.take(SLOT_ROWS, code, axis=0)
    obs[:, lay["face_up"]] = state.up_count[:, : C.N_FRUIT_TYPES]

    phase = np.where(live[:, None], _from_seat(state.seat_phase, seat, p), OVER).astype(np.intp)
    _block(obs, lay["phases"], (p, 3))[:] = np.take(PHASE_ROWS, phase, axis=0)

    held_slot = _from_seat(state.held, seat, p).astype(np.intp)
    held_kind = np.take_along_axis(state.layout, np.maximum(held_slot, 0), axis=1)
    held_kind = np.where(held_slot >= 0, held_kind, NONE_KIND).astype(np.intp)
    held_kind += (card * (C.N_KINDS + 1))[:, None]
    _block(obs, lay["held"], (p, HELD_FEATURES))[:] = np.take(HELD_ROWS, held_kind, axis=0)

    size = _from_seat(state.set_size, seat, p)  # (n, P, S)
    bits = _from_seat(state.set_bits, seat, p).astype(np.intp)
    bonus = _from_seat(state.set_bonus, seat, p)
    sets = _block(obs, lay["sets"], (p, S, SET_FEATURES))
    sets[:] = np.take(SET_ROWS[cfg.family], bits, axis=0)
    sets[..., 0] = size > 0
    sets[..., 1] = size
    sets[..., 12] = bonus
    value_at = (card[:, None, None] * (C.LARGEST_SIZE + 1) + np.minimum(size, C.LARGEST_SIZE)) * 2
    value_at += (C.SET_LEGAL_FAMILY if cfg.family else C.SET_LEGAL)[bits]
    sets[..., 14] = SET_VALUE_POS[value_at]
    sets[..., 15] = SET_VALUE_NEG[value_at]

    values = C.SET_VALUE.reshape(-1)[value_at].sum(axis=2, dtype=np.int64)
    earned = values + C.CARD_BONUS[card].astype(np.int64)[:, None] * _sum_sets(bonus)
    players = _block(obs, lay["players"], (p, PLAYER_FEATURES))
    players[:, :, 0] = _from_seat(state.num_sets, seat, p)
    players[:, :, 1] = _sum_sets(size)
    players[:, :, 2] = np.maximum(earned, 0) * 0.1
    players[:, :, 3] = np.maximum(-earned, 0) * 0.1
    players[:, :, 4] = _from_seat(state.cards_won, seat, p)

    obs[:, lay["card"]] = np.take(CARD_TABLE, card, axis=0)
    monkeys = np.where(live, np.minimum(state.up_count[:, C.MONKEY], C.MONKEYS_TO_STOP), C.MONKEYS_TO_STOP)
    obs[:, lay["monkeys"]] = np.take(MONKEY_ROWS, monkeys.astype(np.intp), axis=0)
    obs[:, lay["face_down"].start] = (loc == FACE_DOWN).sum(axis=1, dtype=np.uint8) / t
    return obs


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
    if not slot.strip().isdigit():
        raise ValueError(f"{where}: tile {ref!r} names no slot number after '@'")
    return kind, int(slot)


def describe(state: State, i: int = 0) -> dict:
    """Complete JSON-able picture of game `i`, hidden parts under `"hidden"`.

    Tiles taken from the table are written `'<tile> @<slot>'` (the slot they lay in this round).
    `money` is derived from the sets and the card, and ignored by `from_description`.
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
    drawn = [int(c) for c in state.deck[i, : int(state.deck_pos[i])]]
    return {
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
            "pile": [int(c) for c in state.deck[i, int(state.deck_pos[i]) :]],
            "committed": committed,
        },
    }


def from_description(d: dict) -> State:
    """The batch-of-1 state that `describe` pictured.

    Convenient for building positions by hand: tiles may omit '@slot' (they take free slots), and
    every tile not named lies face down in a free slot; `card` may stand for `cards_drawn` (the pile
    then follows in card order); seat phases default to 'place' for a seat holding a tile, else 'flip';
    `to_move` defaults to the first seat without a choice in `hidden.committed`.
    """
    if d.get("game", SPEC.id) != SPEC.id:
        raise ValueError(f"description is of {d.get('game')!r}, not {SPEC.id!r}")
    if int(d.get("version", SPEC.version)) != SPEC.version:
        raise ValueError(f"description is of version {d['version']}, rules are v{SPEC.version}")
    cfg = SPEC.config_from_dict(d["config"])
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    hidden = d.get("hidden", {})

    def seat_of(name: str, where: str) -> int:
        if name not in seats:
            raise ValueError(f"{where}: {name!r} is not a seat; seats are {seats}")
        return seats.index(name)

    key = int(d.get("rng_key", 0))
    state = init(cfg, np.array([key], dtype=np.uint64))
    state.keys[0] = np.uint64(key)
    tiles = tiles_in_play(cfg)
    t = len(tiles)
    left = np.bincount(tiles.astype(np.int64), minlength=C.N_KINDS)
    layout = np.full(t, -1, dtype=np.int64)
    location = np.full(t, -1, dtype=np.int64)
    later = []  # (kind, code) of tiles named without a slot

    def claim(kind: int, slot: int | None, code: int, where: str) -> None:
        left[kind] -= 1
        if left[kind] < 0:
            raise ValueError(f"{where}: more {C.tile_name(kind)!r} tiles than the {t} tiles in play hold")
        if slot is None:
            later.append((kind, code))
            return
        if not 0 <= slot < t:
            raise ValueError(f"{where}: slot {slot} does not exist; slots are 0..{t - 1}")
        if location[slot] >= 0:
            raise ValueError(f"{where}: slot {slot} is named twice")
        layout[slot], location[slot] = kind, code

    for code, table, where in (
        (FACE_UP, d.get("face_up", {}), "face_up"),
        (FACE_DOWN, hidden.get("face_down", {}), "face_down"),
    ):
        for slot, name in table.items():
            kind, _ = _parse_ref(name, where)
            if not str(slot).isdigit():
                raise ValueError(f"{where}: keys are slot numbers, got {slot!r}")
            claim(kind, int(slot), code, where)
    for name, ref in d.get("held", {}).items():
        k = seat_of(name, "held")
        kind, slot = _parse_ref(ref, f"held by {name}")
        if kind == C.MONKEY:
            raise ValueError(f"held by {name}: a monkey stays face up where it was flipped and cannot be held")
        claim(kind, slot, HELD_BASE + k, f"held by {name}")
    for name, zone in d.get("sets", {}).items():
        k = seat_of(name, "sets")
        if len(zone) > S:
            raise ValueError(f"sets of {name}: at most {S} sets per zone, got {len(zone)}")
        for s, members in enumerate(zone):
            if not members:
                raise ValueError(f"sets of {name}: set {s} is empty; a set holds at least one tile")
            for ref in members:
                kind, slot = _parse_ref(ref, f"set {s} of {name}")
                if kind == C.MONKEY:
                    raise ValueError(f"set {s} of {name}: a monkey cannot be placed in a set")
                claim(kind, slot, SET_BASE + k * S + s, f"set {s} of {name}")
        state.num_sets[0, k] = len(zone)
    free = list(np.flatnonzero(location < 0))
    for kind, code in later:
        slot = free.pop(0)
        layout[slot], location[slot] = kind, code
    rest = np.repeat(np.arange(C.N_KINDS), left)
    layout[free], location[free] = rest, FACE_DOWN
    state.layout[0], state.location[0] = layout, location
    state.up_count[0] = face_up_counts(state)[0]
    state.kind_slots[0] = np.argsort(layout, kind="stable")

    state.held[0] = NO_SLOT
    for k in range(p):
        in_hand = np.flatnonzero(location == HELD_BASE + k)
        if len(in_hand) > 1:
            raise ValueError(f"{seats[k]} holds {len(in_hand)} tiles; a player uses only 1 hand")
        if len(in_hand):
            state.held[0, k] = in_hand[0]

    drawn = d.get("cards_drawn")
    if drawn is None:
        drawn = [int(d.get("card", 0))]
    drawn = [int(c) for c in drawn]
    if not drawn or any(not 0 <= c < C.N_CARDS for c in drawn):
        raise ValueError(f"cards_drawn must list card ids in 0..{C.N_CARDS - 1}, the current card last; got {drawn}")
    length = deck_length(cfg)
    pile = hidden.get("pile")
    if pile is None:
        pile = []
        for start in range(0, length, C.N_CARDS):
            block = drawn[start : start + C.N_CARDS]
            pile += [c for c in range(C.N_CARDS) if c not in block][: max(0, C.N_CARDS - len(block))]
    deck = drawn + [int(c) for c in pile]
    if len(deck) != length:
        raise ValueError(f"cards drawn and pile must hold {length} cards together, got {len(deck)}")
    state.deck[0] = deck
    state.deck_pos[0] = len(drawn)
    card = int(d.get("card", drawn[-1]))
    if not 0 <= card < C.N_CARDS:
        raise ValueError(f"card must be a card id in 0..{C.N_CARDS - 1}, got {card}")
    state.card[0] = card

    occupied = location[:, None] == SET_BASE + np.arange(p * S)[None, :]  # (T, P*S)
    kinds = layout
    state.set_size[0] = occupied.sum(axis=0).reshape(p, S)
    state.set_bits[0] = np.array(
        [np.bitwise_or.reduce(C.KIND_BITS[kinds[occupied[:, j]]]) if occupied[:, j].any() else 0 for j in range(p * S)]
    ).reshape(p, S)
    state.set_bonus[0] = (occupied & C.IS_BONUS[card, kinds][:, None]).sum(axis=0).reshape(p, S)

    for k in range(p):
        state.cards_won[0, k] = d.get("cards_won", {}).get(seats[k], 0)
    state.round_index[0] = int(d.get("round", 1)) - 1
    state.starter[0] = seat_of(d.get("starter", "player_0"), "starter")
    phases = d.get("seat_phases", {})
    for k in range(p):
        default = "place" if state.held[0, k] >= 0 else "flip"
        name = phases.get(seats[k], default)
        if name not in PHASE_NAMES[:3]:
            raise ValueError(f"seat_phases of {seats[k]}: {name!r} is not one of {list(PHASE_NAMES[:3])}")
        state.seat_phase[0, k] = PHASE_NAMES.index(name)
    committed = hidden.get("committed", {})
    for name, action in committed.items():
        k = seat_of(name, "committed")
        a = int(action) if isinstance(action, (int, np.integer)) else string_to_action(cfg, action)
        if not 0 <= a < NUM_ACTIONS or not legal_mask(state, k)[0, a]:
            phase = PHASE_NAMES[state.seat_phase[0, k]]
            raise ValueError(f"committed: {action!r} is not legal for {name} in phase {phase!r}")
        state.committed[0, k] = a
    chosen = sorted(seats.index(name) for name in committed)
    if chosen != list(range(len(chosen))) or len(chosen) == p:
        raise ValueError(
            f"committed: seats choose in seat order and the last choice resolves the tick, so the seats "
            f"that have chosen are player_0 .. player_k with k < {p - 1}; got {sorted(committed)}"
        )
    to_move = seat_of(d.get("to_move", seats[len(chosen)]), "to_move")
    if to_move != len(chosen):
        raise ValueError(f"to_move must be {seats[len(chosen)]}, the first seat that has not chosen this tick")
    state.to_move[0] = to_move
    state.done[0] = d.get("done", False)
    state.truncated[0] = d.get("truncated", False)
    state.step_count[0] = d.get("step_count", 0)
    state.phase[0] = OVER if state.done[0] else state.seat_phase[0, to_move]
    problems = invariants(state)
    if problems:
        raise ValueError("description is not a consistent Quickity Pickity position: " + "; ".join(problems))
    return state


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
    lines = [
        f"Quickity Pickity - {p} players - round {d['round']} - {status}",
        C.card_text(d["card"]),
        f"monkeys face up: {monkeys}/{C.MONKEYS_TO_STOP} - cards won: "
        + ", ".join(f"{k} {v}" for k, v in d["cards_won"].items())
        + f" (first to {cfg.rounds_to_win} wins) - starting player {d['starter']}",
        "table (+ sweet, - sour; colour and shape initials; [face down]; . taken):",
    ]
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
        for s in range(int(state.num_sets[i, k])):
            size, bits = int(state.set_size[i, k, s]), int(state.set_bits[i, k, s])
            ok = "legal" if set_is_legal(bits, cfg.family) else "BROKEN -10"
            tiles = " ".join(_short(layout[t]) for t in np.flatnonzero(loc == SET_BASE + k * S + s))
            lines.append(f"    set {s} ({size}, {ok}): {tiles}")
    if d["done"]:
        won = [seat for seat, w in zip(d["cards_won"], winners(state.take(i))[0], strict=True) if w]
        lines.append(f"winner: {', '.join(won)} with {max(d['cards_won'].values())} cards")
    return "\n".join(lines)


def redeal_hidden(state: State, player: int, keys: np.ndarray) -> State:
    """Re-deal what `player` cannot see: the tiles under face-down slots, the pile's order (within
    what has not been drawn of each shuffle), the other seats' choices of this tick, the random key.

    Test utility (not a hot path): loops over the games of the batch.
    """
    s = state.copy()
    p = s.config.num_players
    gen_keys = np.asarray(keys, dtype=np.uint64)
    for g in range(s.batch_size):
        local = np.random.default_rng(int(gen_keys[g]))
        down = np.flatnonzero(s.location[g] == FACE_DOWN)
        s.layout[g, down] = local.permutation(s.layout[g, down])
        s.kind_slots[g] = np.argsort(s.layout[g], kind="stable")
        pos = int(s.deck_pos[g])
        for start in range(0, s.deck.shape[1], C.N_CARDS):
            lo = max(start, pos)
            hi = start + C.N_CARDS
            if lo < hi:
                s.deck[g, lo:hi] = local.permutation(s.deck[g, lo:hi])
        for k in range(p):
            if k != player and s.committed[g, k] != NO_ACTION:
                single = s.take(g)
                single.committed[0, k] = NO_ACTION
                s.committed[g, k] = local.choice(np.flatnonzero(legal_mask(single, k)[0]))
        s.keys[g] = np.uint64(local.integers(0, 2**63))
    return s


def invariants(state: State) -> list[str]:
    """Problems with a batch (empty when sound): tiles conserved, sets agree with their tiles, hands,
    phases, choices in seat order, cards conserved, game over exactly when someone has enough cards."""
    cfg = state.config
    n, p = state.batch_size, cfg.num_players
    problems = []
    tiles = tiles_in_play(cfg)
    loc = state.location.astype(np.int64)
    layout = state.layout.astype(np.int64)
    t = len(tiles)
    if layout.shape[1] != t or (layout < 0).any() or (layout >= C.N_KINDS).any():
        problems.append(f"tiles not conserved: the layout must hold {t} tile kinds in 0..{C.N_KINDS - 1}")
        return problems
    counts = np.bincount((np.arange(n)[:, None] * C.N_KINDS + layout).reshape(-1), minlength=n * C.N_KINDS)
    wrong = (counts.reshape(n, C.N_KINDS) != np.bincount(tiles, minlength=C.N_KINDS)[None, :]).any(axis=1)
    if wrong.any():
        problems.append(
            f"tiles not conserved: the {t} tiles in play differ from the layout of game {np.flatnonzero(wrong)[0]}"
        )
        return problems
    valid = (loc == FACE_DOWN) | (loc == FACE_UP) | ((loc >= HELD_BASE) & (loc < HELD_BASE + p))
    valid |= (loc >= SET_BASE) & (loc < SET_BASE + p * S)
    if not valid.all():
        problems.append(f"a tile lies nowhere valid in game {np.flatnonzero(~valid.all(axis=1))[0]}")
    if ((layout == C.MONKEY) & (loc >= HELD_BASE)).any():
        problems.append("a monkey was taken")
    rows = np.arange(n)
    if (face_up_counts(state) != state.up_count).any():
        problems.append("face-up counts disagree with the tile slots")
    kind_slots = state.kind_slots.astype(np.int64)
    if (kind_slots < 0).any() or (kind_slots >= t).any():
        problems.append("kind_slots is not the slots sorted by kind")
    else:
        by_kind = np.take_along_axis(layout, kind_slots, axis=1)
        each_once = np.bincount((rows[:, None] * t + kind_slots).reshape(-1), minlength=n * t) == 1
        if (by_kind != tiles[None, :]).any() or not each_once.all():
            problems.append("kind_slots is not the slots sorted by kind")
    holders = (loc[:, :, None] == HELD_BASE + np.arange(p)[None, None, :]).sum(axis=1)  # (n, P)
    held = state.held.astype(np.int64)
    held_ok = np.where(held >= 0, loc[rows[:, None], np.maximum(held, 0)] == HELD_BASE + np.arange(p), True)
    if (holders != (held >= 0)).any() or not held_ok.all():
        problems.append("tiles in hand disagree with the held slots")
    in_set = loc >= SET_BASE
    g_of, t_of = np.nonzero(in_set)
    flat = g_of * (p * S) + loc[g_of, t_of] - SET_BASE
    kinds = layout[g_of, t_of]
    size = np.bincount(flat, minlength=n * p * S)
    bits = np.zeros(n * p * S, dtype=np.int64)
    np.bitwise_or.at(bits, flat, C.KIND_BITS[kinds].astype(np.int64))
    bonus = np.bincount(flat, weights=C.IS_BONUS[state.card[g_of].astype(np.int64), kinds], minlength=n * p * S)
    if (size != state.set_size.reshape(-1)).any() or (bits != state.set_bits.reshape(-1)).any():
        problems.append("set sizes or attributes disagree with the tiles placed")
    if (bonus != state.set_bonus.reshape(-1)).any():
        problems.append("bonus counts disagree with the tiles placed and the round's card")
    started = np.arange(S)[None, None, :] < state.num_sets[:, :, None]
    if ((state.set_size > 0) != started).any():
        problems.append("sets are not numbered 0 .. num_sets - 1 without gaps")
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
    if (state.deck_pos < 1).any() or (state.deck_pos > state.deck.shape[1]).any():
        problems.append("cards drawn out of range")
    elif (live & (state.card != state.deck[rows, state.deck_pos.astype(np.int64) - 1])).any():
        problems.append("the round's card is not the card drawn last")
    return problems
