"""Fruit Picking rules as pure, batched numpy functions (imports numpy and the core only).

Decisions, one flat action space of 16:

* `0..5`   plant the seeds of farm position 1..6 (the House is position 0 and cannot be chosen);
* `6`      no seeds on any farm card: return up to 3 House seeds, put 1 seed on each of the first
  three cards (forced, ends the turn);
* `7`      water the target card;
* `8..11`  buy the market card in slot 0..3 (slot 0 lies next to the stack);
* `12, 13` market operation, after buying: draw one card as usual / pay 1 seed to draw two;
* `14, 15` market operation: put the first / second drawn card in the market (the other goes to
  the bottom of the stack).

A turn: plant (again while the target is the House), then water or buy; a purchase refills the
market (with market operation: a choice to draw one or two, then which card to keep).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import cache

import numpy as np

from fruit_envs.core import rng, validate
from fruit_envs.core.lazy import StateKernels, kernels_of
from fruit_envs.core.spec import Config, GameSpec, option, outcome_rewards
from fruit_envs.core.state import BatchState, advance_buffers, seat_array
from fruit_envs.games.fruit_picking import components as C

PLANT_BASE, REFILL, WATER, BUY_BASE = 0, 6, 7, 8
DRAW_ONE, DRAW_TWO, KEEP_BASE = 12, 13, 14
NUM_ACTIONS = 16
MAX_SLOTS = 4
DECK_SIZE = int(C.deck_counts().sum())  # 30
# Most cards put under the stack that can lie in it at once: each market operation shrinks the stack by
# one and puts one card under, so at most half of the 27 cards left after a 3-slot setup.
MAX_UNDER = (DECK_SIZE - 3) // 2  # 13

PLANT, TARGET, DRAW, KEEP, OVER = 0, 1, 2, 3, 4
PHASE_NAMES = ("plant", "target", "draw", "keep", "over")
NO_CARD = C.NO_CARD


@dataclass(frozen=True)
class FruitPickingConfig(Config):
    """Options of Fruit Picking (the rulebook's variants and engine bounds)."""

    umbrella: bool = option(False, (False, True), "umbrella cards make every player add seeds when drawn")
    market_operation: bool = option(False, (False, True), "a drawer may pay 1 seed to draw 2 and keep one")
    beginner: bool = option(False, (False, True), "3 market slots, no added price, game ends at 5 cards")
    umbrella_trigger: str = option(
        "drawn",
        ("drawn", "placed"),
        "with market operation: 'drawn' = every card taken from the stack triggers its umbrella, "
        "'placed' = only cards put face up in the market",
    )
    max_rounds: int = option(100, None, "rounds after which an unfinished game is truncated", kind=int)

    def __post_init__(self):
        if self.max_rounds < 1:
            raise ValueError(f"max_rounds must be a positive integer, got {self.max_rounds}")

    @property
    def slots(self) -> int:
        return 3 if self.beginner else 4

    @property
    def surcharge(self) -> np.ndarray:
        return np.array(C.SLOT_SURCHARGE_BEGINNER if self.beginner else C.SLOT_SURCHARGE, dtype=np.int16)


@dataclass
class State(BatchState):
    """Fruit Picking batch: `n` games, `P` players; positions 0..6 clockwise, the House at 0."""

    phase: np.ndarray  # (n,) int8: PLANT, TARGET, DRAW, KEEP, OVER
    farm_order: np.ndarray  # (n, 7) int8: farm card type at each position (shared by all players)
    seeds: np.ndarray  # (n, P, 7) int8: seeds on each farm card of each player
    storage: np.ndarray  # (n, P) int8
    target: np.ndarray  # (n,) int8: target position of the turn in progress, -1 none
    market: np.ndarray  # (n, 4) int8: card code in each slot (slot 0 next to the stack), -1 empty
    stack: np.ndarray  # (n, 30) int8: card codes, index 0 = top; -1 past the end
    stack_size: np.ndarray  # (n,) int8
    # (n, 30) uint8, bit k set: seat k knows this stack card (it drew it in a two-card draw, or saw it
    # shown by its umbrella); non-zero only for cards put under the stack, which lie below all others
    stack_knowers: np.ndarray
    drawn: np.ndarray  # (n, 2) int8: two cards drawn by market operation awaiting the keep choice
    drawn_knowers: np.ndarray  # (n, 2) uint8: who knows each drawn card (the drawer, earlier knowers, all if shown)
    bought: np.ndarray  # (n, P, 10) int8: market cards owned, by card code
    rounds: np.ndarray  # (n,) int16: completed rounds
    turn_steps: np.ndarray  # (n,) int16: decisions in the turn in progress
    last_round: np.ndarray  # (n,) bool: the end was triggered; the round is being completed

    GAME = "fruit_picking"


SPEC = GameSpec(
    id="fruit_picking",
    name="Fruit Picking",
    env_name="FruitPicking",
    version=1,
    player_counts=(2, 3, 4),
    default_num_players=2,
    config_cls=FruitPickingConfig,
    num_actions=NUM_ACTIONS,
    observation_dtype=np.dtype(np.float32),
    chance=True,
    hidden_information=True,
    simultaneous=False,
    rules_module=__name__,
    truncation="after max_rounds rounds (option, default 100), or at 12 decisions per turn on average "
    "(components.DECISIONS_PER_TURN_CAP: House replanting loops)",
    capabilities=("PHASE_NAMES", "advance", "field_bounds", "position_invariants", "truncation_causes"),
)


# ----------------------------------------------------------------------------------------------
# Declared facts


@cache
def observation_layout(config: Config) -> dict[str, slice]:
    """Named slices of a seat's observation; blocks over seats list the observer first, then clockwise."""
    p = config.num_players
    sizes = [
        ("seat", p),  # the observer's seat, one-hot (seat 0 is the initial player, the round ends after seat p-1)
        ("to_move", p),  # whose turn, relative to the observer
        ("turns_left", p),  # turns still to come in this round after the one in progress, one-hot 0..p-1
        ("phase", 4),  # plant, target, draw, keep (all zero once the game is over)
        ("target", C.N_POSITIONS),  # target position of the turn
        ("last_round", 1),  # the end was triggered: this round is the last
        ("round", 1),  # rounds played / max_rounds
        ("farm_order", 6 * 6),  # type of positions 1..6 (rain + 5 kinds), one-hot
        ("seeds", p * C.N_POSITIONS),  # seeds on every farm card of every player
        ("storage", p),  # seeds in each player's storage
        ("bought", p * len(C.KINDS)),  # market cards owned, per kind
        ("sets", p * len(C.SETS)),  # sets each player has completed
        ("market", MAX_SLOTS * (C.N_CODES + 1)),  # card code per slot, or empty
        ("price", MAX_SLOTS),  # price of each slot's card (0 if empty)
        ("stack_size", 1),  # cards in the stack / 30
        ("face_down", C.N_CODES),  # composition of the stack and a pending two-card draw (public)
        ("under_depth", 1),  # cards above the first card put under the stack / 30
        ("under_cards", MAX_UNDER * C.N_CODES),  # cards put under, in the order they come up: known ones
        ("under_knowers", MAX_UNDER * p),  # who knows each card put under
        ("drawn", 2 * C.N_CODES),  # the two cards of a pending two-card draw that the observer knows
        ("drawn_knowers", 2 * p),  # who knows each of them
        ("plant_targets", 6 * C.N_POSITIONS),  # where planting each of the observer's cards 1..6 would end
    ]
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def observation_shape(config: Config) -> tuple[int]:
    return (observation_layout(config)["plant_targets"].stop,)


OBSERVATION_HIGH = 30.0


def max_game_length(config: Config) -> int:
    return config.max_rounds * config.num_players * C.DECISIONS_PER_TURN_CAP


def reward_bounds(config: Config) -> tuple[float, float]:
    if config.reward == "terminal":
        return (-1.0, 1.0)
    return (0.0, float(C.MARKET_COUNT.max()))  # one purchase per step at most


# ----------------------------------------------------------------------------------------------
# Setup and shared helpers


_kernels = kernels_of(__package__)  # the compiled kernels, imported on first use
_state_kernels = StateKernels(__package__, State)  # those taking state arrays, given the state itself


_DECK = np.repeat(np.arange(C.N_CODES, dtype=np.int8), C.deck_counts())  # every market card, in code order


def everyone(config: Config) -> int:
    """The knower bits of a card every seat knows."""
    return (1 << config.num_players) - 1


def _shown_by_umbrella(config: Config, cards: np.ndarray) -> np.ndarray:
    """Bool, shaped like `cards`: drawing these in a two-card draw shows them to everyone (their umbrella fires)."""
    return (cards >= len(C.KINDS)) & config.umbrella & (config.umbrella_trigger == "drawn")


def init(config: Config, keys: np.ndarray) -> State:
    """`len(keys)` games set up as the rulebook says, each from its own key."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1).copy()
    n, p = len(keys), config.num_players
    state = State(
        config=config,
        keys=keys,
        done=np.zeros(n, dtype=bool),
        truncated=np.zeros(n, dtype=bool),
        to_move=np.zeros(n, dtype=np.int8),
        step_count=np.zeros(n, dtype=np.int32),
        phase=np.zeros(n, dtype=np.int8),
        farm_order=np.zeros((n, C.N_POSITIONS), dtype=np.int8),
        seeds=np.zeros((n, p, C.N_POSITIONS), dtype=np.int8),
        storage=np.zeros((n, p), dtype=np.int8),
        target=np.full(n, -1, dtype=np.int8),
        market=np.full((n, MAX_SLOTS), NO_CARD, dtype=np.int8),
        stack=np.full((n, DECK_SIZE), NO_CARD, dtype=np.int8),
        stack_size=np.full(n, DECK_SIZE, dtype=np.int8),
        stack_knowers=np.zeros((n, DECK_SIZE), dtype=np.uint8),
        drawn=np.full((n, 2), NO_CARD, dtype=np.int8),
        drawn_knowers=np.zeros((n, 2), dtype=np.uint8),
        bought=np.zeros((n, p, C.N_CODES), dtype=np.int8),
        rounds=np.zeros(n, dtype=np.int16),
        turn_steps=np.zeros(n, dtype=np.int16),
        last_round=np.zeros(n, dtype=bool),
    )
    # the farm, the stack, the first seeds and "take 4 cards from the Market stack" (umbrellas count)
    _state_kernels.setup(state, config.slots, config.umbrella, _DECK)
    return state


def kind_counts(state: State) -> np.ndarray:
    """`(n, P, 5)` market cards owned per kind."""
    return state.bought[:, :, : len(C.KINDS)] + state.bought[:, :, len(C.KINDS) :]


def market_fruits(state: State) -> np.ndarray:
    """`(n, P)` fruits on each player's market cards (the first tie-break)."""
    return (kind_counts(state).astype(np.int64) * C.MARKET_COUNT).sum(axis=2)


def _completes(counts: np.ndarray, beginner: bool) -> np.ndarray:
    """`(...)` bool from kind counts `(..., 5)`: a set is complete (beginner rules: 5 cards owned)."""
    counts = np.asarray(counts, dtype=np.int64)
    flat = np.ascontiguousarray(counts.reshape(-1, len(C.KINDS)))
    out = np.zeros(len(flat), dtype=bool)
    _kernels().completes_many(flat, bool(beginner), out)
    return out.reshape(counts.shape[:-1])


def completed(state: State) -> np.ndarray:
    """`(n, P)` bool: completed a set (beginner rules: owns 5 market cards)."""
    return _completes(kind_counts(state), state.config.beginner)


# Lookup tables indexed by card code + 1 (index 0 = empty slot).
_SLOT_FRUITS = np.concatenate([[0], C.MARKET_COUNT[np.arange(C.N_CODES) % len(C.KINDS)]]).astype(np.int64)


@cache
def _price_table(config: Config) -> np.ndarray:
    """`(11, 4)` price of a card code (+1) in each slot: its fruits plus the slot's added price."""
    surcharge = np.zeros(MAX_SLOTS, dtype=np.int64)
    surcharge[: config.slots] = config.surcharge
    table = _SLOT_FRUITS[:, None] + surcharge[None, :]
    table[0] = 0
    return table


def prices(state: State) -> np.ndarray:
    """`(n, 4)` price of the card in each slot: its fruits plus the slot's added price (0 if empty)."""
    return _price_table(state.config)[state.market.astype(np.int64) + 1, np.arange(MAX_SLOTS)]


def sow(seeds: np.ndarray, position: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Plant the seeds of `position` clockwise, one per card; returns `(new_seeds (m, 7), target (m,))`.

    `seeds` is `(m, 7)` for one player per row. Seeds pass the House and may come round to the
    card they were taken from; the target is the card that receives the last seed.
    """
    out = np.array(seeds, copy=True)
    position = np.broadcast_to(np.asarray(position, dtype=np.int64), (len(out),))
    target = np.zeros(len(out), dtype=np.int64)
    _kernels().sow_many(out, np.ascontiguousarray(position), target)
    return out, target


# ----------------------------------------------------------------------------------------------
# Masks


def legal_mask(state: State, player=None) -> np.ndarray:
    """`(n, 16)` bool: legal actions of `player` (default: the player to move) in each game."""
    n = state.batch_size
    seat = seat_array(state, player)
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
    _state_kernels.legal_mask(seat, state, _price_table(state.config), mask)
    return mask


def acting(state: State) -> np.ndarray:
    """`(n, P)` bool: the player to move (Fruit Picking is turn-based)."""
    seats = np.arange(state.config.num_players)[None, :]
    return (seats == state.to_move[:, None]) & ~state.done[:, None]


# ----------------------------------------------------------------------------------------------
# Step


def step(
    state: State, actions: np.ndarray, active: np.ndarray | None = None, *, in_place: bool = False
) -> tuple[State, np.ndarray]:
    """Apply one decision per game; returns `(new_state, rewards (n, P) float32)`.

    Actions must be legal for the games that move (adapters check this). Games that are finished,
    or not `active`, are left untouched and ignore their action.

    `in_place=True` changes `state` itself and returns it: for an owner of the state whose actions are
    already checked against the mask (an env), it saves the copy.
    """
    s = state if in_place else state.copy()
    cfg = s.config
    n, p = s.batch_size, cfg.num_players
    actions = np.asarray(actions, dtype=np.int64).reshape(n)
    live = ~s.done if active is None else ~s.done & np.asarray(active, dtype=bool)
    rewards = np.zeros((n, p), dtype=np.float32)
    ended = np.zeros(n, dtype=bool)
    _state_kernels.step(
        actions, live, s, rewards, ended, _price_table(cfg), _shows(cfg), cfg.umbrella,
        cfg.umbrella_trigger == "drawn", cfg.umbrella_trigger == "placed", cfg.market_operation, cfg.beginner,
        cfg.max_rounds, max_game_length(cfg), cfg.reward == "score",
    )  # fmt: skip
    if cfg.reward == "terminal" and ended.any():
        over = np.flatnonzero(ended)
        rewards[over] = outcome_rewards(winners(s.take(over)))
    return s, rewards


def advance(state: State, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One game (batch of one) stepped in place by a legal `action`: returns the rewards `(P,)`, every
    seat's mask `(P, 16)` and the observation `(O,)` of the seat to move afterwards, equal to
    `step(..., in_place=True)`, `legal_mask` and `observe` but in one kernel call (the AEC env's step)."""
    s, cfg = state, state.config
    size, *fixed, offsets = advance_constants(cfg)
    rewards, ended, masks, obs = advance_buffers(cfg.num_players, NUM_ACTIONS, size)
    _state_kernels.advance(operator.index(action), s, rewards, ended, *fixed, offsets, masks, obs)
    if cfg.reward == "terminal" and ended[0]:
        rewards[0] = outcome_rewards(winners(s))[0]
    return rewards[0], masks, obs[0]


@cache
def advance_constants(config: Config) -> tuple:
    """The observation's size, then `kernels.advance`'s arguments that depend on the configuration alone,
    in its order (one cached lookup per call: `advance` is the one-game hot path; search's compiled rollouts
    take the same, `agents/greedy`)."""
    cfg = config
    return (
        observation_shape(cfg)[0], _price_table(cfg), _shows(cfg), cfg.umbrella, cfg.umbrella_trigger == "drawn",
        cfg.umbrella_trigger == "placed", cfg.market_operation, cfg.beginner, cfg.max_rounds, max_game_length(cfg),
        cfg.reward == "score", MAX_UNDER, _offsets(cfg),
    )  # fmt: skip


@cache
def _shows(config: Config) -> np.ndarray:
    """`(10,)` bool per card code: drawn in a two-card draw, it shows itself to everyone (its umbrella fires)."""
    return _shown_by_umbrella(config, np.arange(C.N_CODES))


def truncation_causes(state: State) -> dict[str, np.ndarray]:
    """`(n,)` bool per cause of a cut-off: the round cap (`max_rounds`), or the decision cap before it."""
    capped = state.truncated & (state.rounds >= state.config.max_rounds)
    return {"round cap": capped, "decision cap": state.truncated & ~capped}


def winners(state: State) -> np.ndarray:
    """`(n, P)` bool: set completers (or everyone if none), then most market fruits, then most farm seeds."""
    candidates = completed(state)
    candidates = np.where(candidates.any(axis=1, keepdims=True), candidates, True)
    fruits = np.where(candidates, market_fruits(state), -1)
    candidates &= fruits == fruits.max(axis=1, keepdims=True)
    farm = np.where(candidates, state.seeds.sum(axis=2).astype(np.int64), -1)
    return candidates & (farm == farm.max(axis=1, keepdims=True))


def final_scores(state: State) -> np.ndarray:
    """`(n, P)` fruits on each player's market cards."""
    return market_fruits(state)


# ----------------------------------------------------------------------------------------------
# Observation


def observe(state: State, player) -> np.ndarray:
    """`(n, O)` float32: what `player` (int or `(n,)` ints) may know, losslessly.

    The table is public, and so is the order of turns (the observer's seat is given). Of the face-down
    cards the composition is public; which cards were put under the stack, in which order, and who has
    seen each is public history; a card's identity only reaches the seats that have seen it (its
    drawer, earlier knowers, everyone when its umbrella showed it).
    """
    cfg = state.config
    n = state.batch_size
    seat = seat_array(state, player)
    offsets = _offsets(cfg)
    obs = np.zeros((n, observation_shape(cfg)[0]), dtype=np.float32)
    _state_kernels.observe(seat, state, _price_table(cfg), cfg.max_rounds, MAX_UNDER, offsets, obs)
    return obs


@cache
def _offsets(config: Config) -> np.ndarray:
    """Start of each observation block, in `observation_layout`'s order (what the kernel fills)."""
    return np.array([part.start for part in observation_layout(config).values()], dtype=np.int64)


def _counts(cards: np.ndarray) -> np.ndarray:
    """`(n, 10)` count of each card code in `cards (n, k)` (-1 entries ignored)."""
    n = len(cards)
    index = (np.arange(n)[:, None] * (C.N_CODES + 1) + cards.astype(np.int64) + 1).ravel()
    return np.bincount(index, minlength=n * (C.N_CODES + 1)).reshape(n, -1)[:, 1:].astype(np.float32)


# ----------------------------------------------------------------------------------------------
# Referee's view, text, hidden information


def action_to_string(config: Config, action: int) -> str:
    action = int(action)
    if PLANT_BASE <= action < REFILL:
        return f"plant from position {action - PLANT_BASE + 1}"
    names = {REFILL: "no seeds: refill", WATER: "water", DRAW_ONE: "draw one card", DRAW_TWO: "pay 1 seed, draw two"}
    if action in names:
        return names[action]
    if BUY_BASE <= action < DRAW_ONE:
        return f"buy slot {action - BUY_BASE}"
    if KEEP_BASE <= action < NUM_ACTIONS:
        return f"keep drawn card {action - KEEP_BASE}"
    raise ValueError(f"Fruit Picking actions are 0..{NUM_ACTIONS - 1}, got {action}")


def string_to_action(config: Config, text: str) -> int:
    text = text.strip().lower()
    for a in range(NUM_ACTIONS):
        if text == action_to_string(config, a):
            return a
    raise ValueError(f"no Fruit Picking action is called {text!r}")


def _card_list(cards) -> list[str]:
    return [C.card_name(int(c)) for c in cards if c >= 0]


def knower_names(bits: int, num_players: int) -> list[str]:
    """The seats set in knower `bits`, in seat order."""
    return [f"player_{k}" for k in range(num_players) if int(bits) >> k & 1]


def describe(state: State, i: int = 0) -> dict:
    """Complete JSON-able picture of game `i`: the stack's and a pending draw's cards under `"hidden"`;
    who knows each of those cards (`stack_known_by`, top first, and `drawn_known_by`) is public."""
    cfg = state.config
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    size = int(state.stack_size[i])
    drawn = state.drawn[i] >= 0
    return {
        "game": SPEC.id,
        "version": SPEC.version,
        "config": cfg.to_dict(),
        "rng_key": str(int(state.keys[i])),
        "done": bool(state.done[i]),
        "truncated": bool(state.truncated[i]),
        "step_count": int(state.step_count[i]),
        "phase": PHASE_NAMES[int(state.phase[i])],
        "to_move": seats[int(state.to_move[i])],
        "rounds": int(state.rounds[i]),
        "turn_steps": int(state.turn_steps[i]),
        "last_round": bool(state.last_round[i]),
        "farm_order": [C.FARM_TYPES[int(t)] for t in state.farm_order[i]],
        "target": None if state.target[i] < 0 else int(state.target[i]),
        "farms": {
            seats[k]: {"seeds": [int(x) for x in state.seeds[i, k]], "storage": int(state.storage[i, k])}
            for k in range(p)
        },
        "market": [C.card_name(int(c)) for c in state.market[i, : cfg.slots]],
        "bought": {
            seats[k]: [C.card_name(c) for c in range(C.N_CODES) for _ in range(state.bought[i, k, c])] for k in range(p)
        },
        "stack_size": size,
        "stack_known_by": [knower_names(b, p) for b in state.stack_knowers[i, :size]],
        "drawn_known_by": [knower_names(b, p) for b in state.drawn_knowers[i][drawn]],
        "hidden": {
            "stack": _card_list(state.stack[i, :size]),
            "drawn": _card_list(state.drawn[i]),
        },
    }


def from_description(d: dict) -> State:
    """The batch-of-1 state that `describe` pictured; `hidden.stack` lists the stack from the top.

    Left out: `phase` (plant, or over when done), `to_move` (player_0), rounds, steps and knowers (none),
    `farm_order`, `farms`, `market` and the stack (those of a game set up with `rng_key`), `bought`
    (nothing). A malformed description, or a position no game reaches (a target in the wrong phase,
    drawn cards outside the keep choice, knowers that are not seats or lie above cards nobody knows,
    ...), raises `DescriptionError` naming the field (or the position's problem).
    """
    read = validate.Reader(SPEC)
    cfg, header = validate.read_header(read, d)
    fields = ("phase", "to_move", "rounds", "turn_steps", "last_round", "farm_order", "target", "farms")
    more = ("market", "bought", "stack_size", "stack_known_by", "drawn_known_by", "hidden")
    read.mapping(d, "", (*validate.HEADER, *fields, *more))
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]

    def card(value, path: str) -> int:
        try:
            return C.card_from_name(read.string(value, path))
        except ValueError as error:
            read.fail(path, str(error))

    key = header["rng_key"]
    state = init(cfg, np.array([key], dtype=np.uint64))
    state.keys[0] = np.uint64(key)
    state.done[0], state.truncated[0], state.step_count[0] = header["done"], header["truncated"], header["step_count"]
    state.phase[0] = read.choice(d.get("phase", "over" if header["done"] else "plant"), "phase", PHASE_NAMES)
    state.to_move[0] = read.seat(d.get("to_move", "player_0"), "to_move", p)
    state.rounds[0] = read.integer(d.get("rounds", 0), "rounds", 0, cfg.max_rounds)
    state.turn_steps[0] = read.integer(d.get("turn_steps", 0), "turn_steps", 0, field_bounds(cfg)["turn_steps"][1])
    state.last_round[0] = read.boolean(d.get("last_round", False), "last_round")
    if "farm_order" in d:
        names = read.items(d["farm_order"], "farm_order", length=C.N_POSITIONS)
        order = [read.choice(name, f"farm_order[{k}]", C.FARM_TYPES) for k, name in enumerate(names)]
        if order[0] != C.HOUSE or sorted(order) != list(range(C.N_POSITIONS)):
            read.fail("farm_order", f"must start with the house and hold each farm card once, got {names}")
        state.farm_order[0] = order
    target = d.get("target")
    if target is not None:
        if not validate.is_int(target) or not 1 <= target < C.N_POSITIONS:
            read.fail(
                "target",
                f"must be None or a farm position 1..6 (the House is never a target: it means planting again), "
                f"got {target!r}",
            )
    state.target[0] = -1 if target is None else target
    farms = read.seats_mapping(d.get("farms", {}), "farms", p)
    bought = read.seats_mapping(d.get("bought", {}), "bought", p)
    for k, seat in enumerate(seats):
        if seat in farms:
            path = f"farms.{seat}"
            farm = read.mapping(farms[seat], path, ("seeds", "storage"), ("seeds", "storage"))
            values = read.items(farm["seeds"], f"{path}.seeds", length=C.N_POSITIONS)
            state.seeds[0, k] = [
                read.integer(v, f"{path}.seeds[{j}]", 0, C.SEEDS_PER_PLAYER) for j, v in enumerate(values)
            ]
            state.storage[0, k] = read.integer(farm["storage"], f"{path}.storage", 0, C.SEEDS_PER_PLAYER)
        names = read.items(bought.get(seat, []), f"bought.{seat}", max_length=DECK_SIZE)
        state.bought[0, k] = np.bincount(
            np.array([card(name, f"bought.{seat}[{j}]") for j, name in enumerate(names)], dtype=np.int64),
            minlength=C.N_CODES,
        )
    if "market" in d:
        names = read.items(d["market"], "market", max_length=cfg.slots)
        state.market[0] = NO_CARD
        for slot, name in enumerate(names):
            state.market[0, slot] = NO_CARD if name == "empty" else card(name, f"market[{slot}]")
    hidden = read.mapping(d.get("hidden", {}), "hidden", ("stack", "drawn"))
    if "stack" in hidden or "market" in d:
        names = read.items(hidden.get("stack", []), "hidden.stack", max_length=DECK_SIZE)
        stack = [card(name, f"hidden.stack[{j}]") for j, name in enumerate(names)]
        if "stack_size" in d and d["stack_size"] != len(stack):
            read.fail("stack_size", f"must be {len(stack)}, the cards in hidden.stack; got {d['stack_size']!r}")
        state.stack[0] = NO_CARD
        state.stack_knowers[0] = 0
        state.stack[0, : len(stack)] = stack
        state.stack_knowers[0, : len(stack)] = _knower_bits(
            read, d.get("stack_known_by"), len(stack), seats, "stack_known_by"
        )
        state.stack_size[0] = len(stack)
    elif "stack_size" in d and d["stack_size"] != int(state.stack_size[0]):
        read.fail("stack_size", "a stack of another size needs its cards in hidden.stack")
    names = read.items(hidden.get("drawn", []), "hidden.drawn", max_length=2)
    state.drawn[0] = NO_CARD
    state.drawn[0, : len(names)] = [card(name, f"hidden.drawn[{j}]") for j, name in enumerate(names)]
    state.drawn_knowers[0] = 0
    state.drawn_knowers[0, : len(names)] = _knower_bits(
        read, d.get("drawn_known_by"), len(names), seats, "drawn_known_by"
    )
    problems = _phase_problems(state)
    if problems:
        read.fail(None, "not a consistent Fruit Picking position: " + "; ".join(problems))
    return validate.finish(read, state)


def _knower_bits(read, lists, count: int, seats: list[str], field: str) -> list[int]:
    """Knower bits of `count` cards from lists of seat names (missing: nobody knows them)."""
    if lists is None:
        return [0] * count
    if not isinstance(lists, list) or len(lists) != count:
        read.fail(field, f"must list the knowers of each of the {count} cards, got {lists!r}")
    bits = []
    for j, names in enumerate(lists):
        if (
            not isinstance(names, list)
            or not all(isinstance(name, str) and name in seats for name in names)
            or len(set(names)) != len(names)
        ):
            read.fail(f"{field}[{j}]", f"entries must be lists of distinct seats among {seats}, got {names!r}")
        bits.append(sum(1 << seats.index(name) for name in names))
    return bits


def _phase_problems(state: State) -> list[str]:
    """What each phase keeps of the turn in progress (empty when every game of the batch can occur)."""
    cfg = state.config
    phase, target = state.phase, state.target.astype(np.int64)
    drawn = (state.drawn >= 0).sum(axis=1)
    size = state.stack_size.astype(np.int64)
    rows = np.arange(state.batch_size)
    problems = []

    def check(bad: np.ndarray, message: str) -> None:
        if bad.any():
            problems.append(f"{message} (game {int(np.flatnonzero(bad)[0])})")

    check(state.done != (phase == OVER), "done must be true exactly in phase 'over'")
    check((phase == PLANT) & (target >= 0), "target must be None in phase 'plant' (no target before planting)")
    check((phase == TARGET) & (target < 0), "phase 'target' needs a target (a farm position 1..6)")
    check(target == 0, "the House is never a target (a farm position 1..6)")
    buying = (phase == DRAW) | (phase == KEEP)
    check(buying & (not cfg.market_operation), "phases 'draw' and 'keep' need the market_operation option")
    fruit = state.farm_order[rows, np.maximum(target, 0)] >= 2
    check(buying & ((target < 0) | ~fruit), "phases 'draw' and 'keep' follow a purchase: target must be a fruit")
    check(buying & (state.market[:, 0] >= 0), "phases 'draw' and 'keep' follow a purchase: market slot 0 is empty")
    check((phase == DRAW) & (size < 2), "phase 'draw' needs two stack cards (otherwise the card is drawn as usual)")
    check((phase == KEEP) & (drawn != 2), "phase 'keep' needs two drawn cards in hidden.drawn")
    truncated_in_keep = (phase == OVER) & state.truncated
    check((phase != KEEP) & (drawn > 0) & ~truncated_in_keep, "hidden.drawn must be empty outside phase 'keep'")
    drawer_knows = ((state.drawn_knowers.astype(np.int64) >> state.to_move[:, None].astype(np.int64)) & 1) == 1
    check((phase == KEEP) & ~drawer_knows.all(axis=1), "drawn_known_by must name the drawer (to_move) for both cards")
    empty_slot = (state.market[:, : cfg.slots] < 0).any(axis=1)
    check(
        ((phase == PLANT) | (phase == TARGET)) & empty_slot & (size > 0),
        "a market slot may stay empty only once the stack is empty",
    )
    return problems


def render(state: State, i: int = 0) -> str:
    d = describe(state, i)
    cfg = state.config
    status = "game over" if d["done"] else f"{d['phase']}, {d['to_move']} to move"
    lines = [
        f"Fruit Picking - {cfg.num_players} players - round {d['rounds'] + 1} - {status}"
        + (" - last round" if d["last_round"] and not d["done"] else ""),
        "farm: " + " > ".join(f"{k}:{t}" for k, t in enumerate(d["farm_order"])),
        "market (stack side first): "
        + " | ".join(f"{c} ({pr})" for c, pr in zip(d["market"], prices(state)[i, : cfg.slots], strict=True))
        + f"   stack: {d['stack_size']} cards",
    ]
    if d["target"] is not None:
        lines.append(f"target: position {d['target']} ({d['farm_order'][d['target']]})")
    for seat, farm in d["farms"].items():
        lines.append(
            f"{seat}: seeds {farm['seeds']} storage {farm['storage']:>2}  cards [{', '.join(d['bought'][seat])}]"
        )
    if d["done"]:
        won = [f"player_{k}" for k in np.flatnonzero(winners(state.take(i))[0])]
        lines.append(("truncated; leading: " if d["truncated"] else "winner: ") + ", ".join(won))
    return "\n".join(lines)


def redeal_hidden(state: State, player, keys: np.ndarray) -> State:
    """A state drawn from what `player` cannot tell apart from `state`: resample from its information state.

    `player` is a seat (int or `(n,)` ints), `keys` one random key per game. The stack cards and the
    cards of another player's pending two-card draw that `player` does not know are shuffled among
    their places; everything public (table, who knows which stack card) and every card `player` knows
    stays. With umbrellas shown on drawing (`umbrella_trigger="drawn"`), a card that went through a
    two-card draw without being shown is no umbrella card, so umbrellas stay among the cards nobody
    has seen. Every arrangement consistent with what `player` saw is equally likely. Batched numpy: a
    search agent may call it on thousands of games at once.
    """
    s = state.copy()
    n = s.batch_size
    seat = np.broadcast_to(np.asarray(player, dtype=np.int64), (n,))
    keys, sub_places = rng.split(np.asarray(keys, dtype=np.uint64).reshape(n))
    keys, sub_cards = rng.split(keys)
    cards = np.concatenate([s.stack, s.drawn], axis=1)  # (n, 32): stack top first, then a pending draw
    knowers = np.concatenate([s.stack_knowers, s.drawn_knowers], axis=1).astype(np.int64)
    unknown = (cards >= 0) & (((knowers >> seat[:, None]) & 1) == 0)
    # places (and cards) that hold an umbrella in some consistent arrangement sort first, each group in a
    # random order; known places keep their own index, so the i-th card sorted goes to the i-th place
    width = cards.shape[1]
    fixed = 2.0 + np.arange(width)[None, :]
    no_umbrella = (knowers != 0) & (s.config.umbrella and s.config.umbrella_trigger == "drawn")
    umbrella = cards >= len(C.KINDS)
    place_key = np.where(unknown, no_umbrella + rng.uniform(sub_places, width), fixed)
    card_key = np.where(unknown, ~umbrella + rng.uniform(sub_cards, width), fixed)
    rows = np.arange(n)[:, None]
    dealt = np.empty_like(cards)
    dealt[rows, np.argsort(place_key, axis=1)] = cards[rows, np.argsort(card_key, axis=1)]
    s.stack, s.drawn = dealt[:, :DECK_SIZE].copy(), dealt[:, DECK_SIZE:].copy()
    s.keys = keys
    return s


def invariants(state: State, complete: bool = True) -> list[str]:
    """Problems with a batch (empty when sound): each player's 18 seeds, the 30 market cards."""
    problems = []
    total = state.storage.astype(np.int64) + state.seeds.sum(axis=2)
    bad = (
        (total != C.SEEDS_PER_PLAYER).any(axis=1) | (state.seeds < 0).any(axis=(1, 2)) | (state.storage < 0).any(axis=1)
    )
    if bad.any():
        g = int(np.flatnonzero(bad)[0])
        problems.append(
            f"seeds not conserved in game {g}: storage + farm = {total[g].tolist()}, expected 18 each, none negative"
        )
    cards = (
        _counts(np.where(state.stack >= 0, state.stack, -1))
        + _counts(state.market)
        + _counts(state.drawn)
        + state.bought.sum(axis=1)
    )
    deck = C.deck_counts()[None, :]
    wrong = cards != deck if complete else cards > deck
    if wrong.any():
        g = int(np.flatnonzero(wrong.any(axis=1))[0])
        problems.append(
            f"market cards not conserved in game {g}: {cards[g].astype(int).tolist()} vs {deck[0].tolist()}"
        )
    size = state.stack_size.astype(np.int64)
    filled = (state.stack >= 0).sum(axis=1)
    if (filled != size).any() or ((state.stack >= 0) != (np.arange(DECK_SIZE)[None, :] < size[:, None])).any():
        problems.append("stack entries do not match stack_size")
    if (state.market[:, state.config.slots :] >= 0).any():
        problems.append("a card lies in a market slot this variant does not have")
    problems += _knower_problems(state)
    problems += _phase_problems(state)
    return problems


def position_invariants(state: State) -> list[str]:
    """What any position must satisfy, a hand-built one included (market cards may be left out)."""
    return invariants(state, complete=False)


def field_bounds(config: Config) -> dict[str, tuple]:
    """Inclusive value bounds of the game's fields, checked on every loaded state before the invariants."""
    card = (NO_CARD, C.N_CODES - 1)
    return {
        "phase": (0, OVER),
        "farm_order": (0, C.N_POSITIONS - 1),
        "seeds": (0, C.SEEDS_PER_PLAYER),
        "storage": (0, C.SEEDS_PER_PLAYER),
        "target": (-1, C.N_POSITIONS - 1),
        "market": card,
        "stack": card,
        "stack_size": (0, DECK_SIZE),
        "stack_knowers": (0, everyone(config)),
        "drawn": card,
        "drawn_knowers": (0, everyone(config)),
        "bought": (0, C.deck_counts().astype(np.int64)),
        "rounds": (0, config.max_rounds),
        "turn_steps": (0, min(max_game_length(config), np.iinfo(np.int16).max)),
    }


def _knower_problems(state: State) -> list[str]:
    """Knowledge that no game produces: knowers that are not seats, a known card above one nobody knows
    (cards are put under the bottom), too many cards put under, an umbrella shown on drawing yet not public."""
    cfg = state.config
    problems = []
    stack_bits, drawn_bits = state.stack_knowers.astype(np.int64), state.drawn_knowers.astype(np.int64)
    if (stack_bits > everyone(cfg)).any() or (drawn_bits > everyone(cfg)).any():
        problems.append(f"knowers must be seats player_0..player_{cfg.num_players - 1}")
    if ((stack_bits != 0) & (state.stack < 0)).any() or ((drawn_bits != 0) != (state.drawn >= 0)).any():
        problems.append("knowers belong to cards: every drawn card has its drawer among them, an empty place none")
    known = stack_bits != 0
    under = known.sum(axis=1)
    bottom = np.arange(DECK_SIZE)[None, :] >= (state.stack_size.astype(np.int64) - under)[:, None]
    if (known & ~bottom).any() or (under > MAX_UNDER).any():
        problems.append(
            f"cards somebody knows must lie below every card nobody knows (they were put under the stack), "
            f"at most {MAX_UNDER} of them"
        )
    hidden_stack = _shown_by_umbrella(cfg, state.stack) & known & (stack_bits != everyone(cfg))
    hidden_drawn = _shown_by_umbrella(cfg, state.drawn) & (drawn_bits != everyone(cfg))
    if hidden_stack.any() or hidden_drawn.any():
        problems.append("an umbrella card seen in a two-card draw was shown to everyone: its knowers must be all seats")
    return problems
