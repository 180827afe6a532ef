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

from dataclasses import dataclass
from functools import cache

import numpy as np

from fruit_envs.core import rng
from fruit_envs.core.spec import Config, GameSpec, option, outcome_rewards
from fruit_envs.core.state import BatchState
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
)


# ----------------------------------------------------------------------------------------------
# Declared facts


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


def _draw_top(state: State, games: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Take the top card of each game's stack (in place); returns its codes (-1 if empty) and knowers."""
    top, knowers = state.stack[games, 0].copy(), state.stack_knowers[games, 0].copy()
    state.stack[games, :-1] = state.stack[games, 1:]
    state.stack[games, -1] = NO_CARD
    state.stack_knowers[games, :-1] = state.stack_knowers[games, 1:]
    state.stack_knowers[games, -1] = 0
    state.stack_size[games] = np.maximum(state.stack_size[games] - 1, 0)
    return top, knowers


def everyone(config: Config) -> int:
    """The knower bits of a card every seat knows."""
    return (1 << config.num_players) - 1


def _shown_by_umbrella(config: Config, cards: np.ndarray) -> np.ndarray:
    """Bool, shaped like `cards`: drawing these in a two-card draw shows them to everyone (their umbrella fires)."""
    return (cards >= len(C.KINDS)) & config.umbrella & (config.umbrella_trigger == "drawn")


def _umbrella(state: State, games: np.ndarray, cards: np.ndarray) -> None:
    """Every player adds min(fruits on that farm card, storage) seeds to their card of the umbrella's fruit."""
    if not state.config.umbrella:
        return
    hit = cards >= len(C.KINDS)
    games, cards = games[hit], cards[hit]
    if len(games) == 0:
        return
    farm_type = 2 + C.code_kind(cards)  # FARM_TYPES index of the fruit
    position = np.argmax(state.farm_order[games] == farm_type[:, None], axis=1)
    amount = np.minimum(C.FARM_COUNT[farm_type][:, None], state.storage[games])  # (m, P)
    p = state.config.num_players
    for seat in range(p):  # a small fixed loop over players
        np.add.at(state.seeds, (games, seat, position), amount[:, seat])
        np.add.at(state.storage, (games, seat), -amount[:, seat])


def init(config: Config, keys: np.ndarray) -> State:
    """`len(keys)` games set up as the rulebook says, each from its own key."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    n, p = len(keys), config.num_players
    keys, sub_farm = rng.split(keys)
    keys, sub_deck = rng.split(keys)
    farm = np.zeros((n, C.N_POSITIONS), dtype=np.int8)
    farm[:, 1:] = (1 + rng.permutations(sub_farm, 6)).astype(np.int8)  # rain and the 5 fruits, shuffled
    deck = np.repeat(np.arange(C.N_CODES, dtype=np.int8), C.deck_counts())
    stack = deck[rng.permutations(sub_deck, DECK_SIZE)]
    seeds = np.zeros((n, p, C.N_POSITIONS), dtype=np.int8)
    seeds[:, :, 1:4] = np.array(C.INITIAL_SEEDS, dtype=np.int8)
    state = State(
        config=config,
        keys=keys,
        done=np.zeros(n, dtype=bool),
        truncated=np.zeros(n, dtype=bool),
        to_move=np.zeros(n, dtype=np.int8),
        step_count=np.zeros(n, dtype=np.int32),
        phase=np.zeros(n, dtype=np.int8),
        farm_order=farm,
        seeds=seeds,
        storage=np.full((n, p), C.SEEDS_PER_PLAYER - sum(C.INITIAL_SEEDS), dtype=np.int8),
        target=np.full(n, -1, dtype=np.int8),
        market=np.full((n, MAX_SLOTS), NO_CARD, dtype=np.int8),
        stack=stack,
        stack_size=np.full(n, DECK_SIZE, dtype=np.int8),
        stack_knowers=np.zeros((n, DECK_SIZE), dtype=np.uint8),
        drawn=np.full((n, 2), NO_CARD, dtype=np.int8),
        drawn_knowers=np.zeros((n, 2), dtype=np.uint8),
        bought=np.zeros((n, p, C.N_CODES), dtype=np.int8),
        rounds=np.zeros(n, dtype=np.int16),
        turn_steps=np.zeros(n, dtype=np.int16),
        last_round=np.zeros(n, dtype=bool),
    )
    games = np.arange(n)
    for slot in range(config.slots):  # "take 4 cards from the Market stack" (umbrellas count at setup)
        card, _ = _draw_top(state, games)
        state.market[:, slot] = card
        _umbrella(state, games, card)
    return state


def kind_counts(state: State) -> np.ndarray:
    """`(n, P, 5)` market cards owned per kind."""
    return state.bought[:, :, : len(C.KINDS)] + state.bought[:, :, len(C.KINDS) :]


def market_fruits(state: State) -> np.ndarray:
    """`(n, P)` fruits on each player's market cards (the first tie-break)."""
    return (kind_counts(state).astype(np.int64) * C.MARKET_COUNT).sum(axis=2)


def _completes(counts: np.ndarray, beginner: bool) -> np.ndarray:
    """`(...)` bool from kind counts `(..., 5)`: a set is complete (beginner rules: 5 cards owned)."""
    if beginner:
        return counts.sum(axis=-1) >= C.BEGINNER_CARDS_TO_END
    return C.completed_sets(counts).any(axis=-1)


def completed(state: State) -> np.ndarray:
    """`(n, P)` bool: completed a set (beginner rules: owns 5 market cards)."""
    return _completes(kind_counts(state), state.config.beginner)


# Lookup tables indexed by card code + 1 (index 0 = empty slot).
_SLOT_TYPE = np.concatenate([[-1], 2 + np.arange(C.N_CODES) % len(C.KINDS)]).astype(np.int64)  # farm type
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
    rows = np.arange(len(seeds))
    taken = seeds[rows, position].astype(np.int64)
    out = seeds.astype(np.int64)
    out[rows, position] = 0
    offset = (np.arange(C.N_POSITIONS)[None, :] - position[:, None]) % C.N_POSITIONS
    offset = np.where(offset == 0, C.N_POSITIONS, offset)  # the origin card is reached last
    out += np.where(taken[:, None] >= offset, (taken[:, None] - offset) // C.N_POSITIONS + 1, 0)
    return out.astype(seeds.dtype), (position + taken) % C.N_POSITIONS


# ----------------------------------------------------------------------------------------------
# Masks


def legal_mask(state: State, player=None) -> np.ndarray:
    """`(n, 16)` bool: legal actions of `player` (default: the player to move) in each game."""
    n = state.batch_size
    rows = np.arange(n)
    seat = state.to_move.astype(np.int64) if player is None else np.broadcast_to(np.asarray(player), (n,))
    mine = ~state.done & (state.to_move == seat)
    mask = np.zeros((n, NUM_ACTIONS), dtype=bool)
    seeds = state.seeds[rows, seat]  # (n, 7)
    planting = mine & (state.phase == PLANT)
    can_plant = seeds[:, 1:] > 0
    mask[:, PLANT_BASE : PLANT_BASE + 6] = planting[:, None] & can_plant
    mask[:, REFILL] = planting & ~can_plant.any(axis=1)
    targeting = mine & (state.phase == TARGET)
    mask[:, WATER] = targeting
    target = np.maximum(state.target, 0).astype(np.int64)
    target_type = state.farm_order[rows, target].astype(np.int64)
    slot_kind = _SLOT_TYPE[state.market.astype(np.int64) + 1]
    affordable = prices(state) <= seeds[:, C.HOUSE, None]
    buyable = (slot_kind == target_type[:, None]) & (target_type[:, None] >= 2) & affordable
    mask[:, BUY_BASE : BUY_BASE + MAX_SLOTS] = targeting[:, None] & buyable
    drawing = mine & (state.phase == DRAW)
    mask[:, DRAW_ONE] = drawing
    mask[:, DRAW_TWO] = drawing
    mask[:, KEEP_BASE : KEEP_BASE + 2] = (mine & (state.phase == KEEP))[:, None]
    return mask


def acting(state: State) -> np.ndarray:
    """`(n, P)` bool: the player to move (Fruit Picking is turn-based)."""
    seats = np.arange(state.config.num_players)[None, :]
    return (seats == state.to_move[:, None]) & ~state.done[:, None]


# ----------------------------------------------------------------------------------------------
# Step


def step(state: State, actions: np.ndarray, active: np.ndarray | None = None) -> tuple[State, np.ndarray]:
    """Apply one decision per game; returns `(new_state, rewards (n, P) float32)`.

    Actions must be legal for the games that move (adapters check this). Games that are finished,
    or not `active`, are left untouched and ignore their action.
    """
    s = state.copy()
    cfg = s.config
    n, p = s.batch_size, cfg.num_players
    actions = np.asarray(actions, dtype=np.int64).reshape(n)
    live = ~s.done if active is None else ~s.done & np.asarray(active, dtype=bool)
    seat = s.to_move.astype(np.int64)
    rewards = np.zeros((n, p), dtype=np.float32)
    ends_turn = np.zeros(n, dtype=bool)
    s.step_count[live] += 1
    s.turn_steps[live] += 1

    # plant: sow, then the target decides what follows
    g = np.flatnonzero(live & (actions < REFILL) & (s.phase == PLANT))
    if len(g):
        new_seeds, target = sow(s.seeds[g, seat[g]], actions[g] - PLANT_BASE + 1)
        s.seeds[g, seat[g]] = new_seeds
        s.target[g] = np.where(target == C.HOUSE, -1, target)
        s.phase[g] = np.where(target == C.HOUSE, PLANT, TARGET)  # the House: plant again

    # no seeds on the farm: return up to 3 House seeds, put 1 on each of the first three cards
    g = np.flatnonzero(live & (actions == REFILL))
    if len(g):
        back = np.minimum(s.seeds[g, seat[g], C.HOUSE], C.REFILL_HOUSE_RETURN)
        s.seeds[g, seat[g], C.HOUSE] -= back
        s.storage[g, seat[g]] += back
        s.seeds[g, seat[g], 1 : 1 + C.REFILL_SOW] += 1
        s.storage[g, seat[g]] -= C.REFILL_SOW
        ends_turn[g] = True

    # water: take the card's fruits (or raindrops) from storage, all that is left if fewer
    g = np.flatnonzero(live & (actions == WATER))
    if len(g):
        target = s.target[g].astype(np.int64)
        want = C.FARM_COUNT[s.farm_order[g, target]]
        amount = np.minimum(want, s.storage[g, seat[g]])
        s.seeds[g, seat[g], target] += amount
        s.storage[g, seat[g]] -= amount
        ends_turn[g] = True

    # buy: pay the price from the House, return the target's seeds, take the card, shift the market
    g = np.flatnonzero(live & (actions >= BUY_BASE) & (actions < DRAW_ONE))
    if len(g):
        slot = actions[g] - BUY_BASE
        price = prices(s)[g, slot]
        card = s.market[g, slot].astype(np.int64)
        target = s.target[g].astype(np.int64)
        s.seeds[g, seat[g], C.HOUSE] -= price.astype(np.int8)
        s.storage[g, seat[g]] += price.astype(np.int8) + s.seeds[g, seat[g], target]
        s.seeds[g, seat[g], target] = 0
        s.bought[g, seat[g], card] += 1
        if cfg.reward == "score":
            rewards[g, seat[g]] += C.MARKET_COUNT[C.code_kind(card)]
        # cards between the stack and the bought one move one slot away from the stack
        j = np.arange(MAX_SLOTS)[None, :]
        shifted = np.where(j <= slot[:, None], np.roll(s.market[g], 1, axis=1), s.market[g])
        shifted[:, 0] = NO_CARD
        s.market[g] = shifted
        # market operation is a real choice only when two cards and the fee are there
        operation = (
            cfg.market_operation & (s.stack_size[g] >= 2) & (s.seeds[g, seat[g], C.HOUSE] >= C.MARKET_OPERATION_FEE)
        )
        s.phase[g[operation]] = DRAW
        _refill_slot(s, g[~operation])
        ends_turn[g[~operation]] = True

    # market operation: draw one as usual, or pay a seed and draw two
    g = np.flatnonzero(live & (actions == DRAW_ONE))
    if len(g):
        _refill_slot(s, g)
        ends_turn[g] = True
    g = np.flatnonzero(live & (actions == DRAW_TWO))
    if len(g):
        s.seeds[g, seat[g], C.HOUSE] -= C.MARKET_OPERATION_FEE
        s.storage[g, seat[g]] += C.MARKET_OPERATION_FEE
        for k in range(2):
            card, knew = _draw_top(s, g)
            s.drawn[g, k] = card
            shown = _shown_by_umbrella(cfg, card)
            s.drawn_knowers[g, k] = np.where(shown, everyone(cfg), knew | (1 << seat[g])).astype(np.uint8)
            if cfg.umbrella_trigger == "drawn":
                _umbrella(s, g, card.astype(np.int64))
        s.last_round[g[s.stack_size[g] == 0]] = True  # the last card was drawn
        s.phase[g] = KEEP
    g = np.flatnonzero(live & (actions >= KEEP_BASE))
    if len(g):
        keep = actions[g] - KEEP_BASE
        kept = s.drawn[g, keep].astype(np.int64)
        other = s.drawn[g, 1 - keep]
        s.market[g, 0] = kept
        bottom = s.stack_size[g].astype(np.int64)
        s.stack[g, bottom] = other
        s.stack_knowers[g, bottom] = s.drawn_knowers[g, 1 - keep]  # who saw it keeps knowing it
        s.stack_size[g] += 1
        s.drawn[g] = NO_CARD
        s.drawn_knowers[g] = 0
        if cfg.umbrella_trigger == "placed":
            _umbrella(s, g, kept)
        ends_turn[g] = True

    _end_turns(s, np.flatnonzero(ends_turn), rewards)
    stuck = np.flatnonzero(live & ~s.done & (s.step_count >= max_game_length(cfg)))
    s.done[stuck] = s.truncated[stuck] = True
    s.phase[stuck] = OVER
    return s, rewards


def _refill_slot(s: State, games: np.ndarray) -> None:
    """Turn the top card of the stack face up into slot 0 (the slot next to the stack)."""
    games = games[s.stack_size[games] > 0]
    if len(games) == 0:
        return
    card, _ = _draw_top(s, games)
    s.market[games, 0] = card
    _umbrella(s, games, card.astype(np.int64))
    s.last_round[games[s.stack_size[games] == 0]] = True  # the last card was drawn


def _end_turns(s: State, games: np.ndarray, rewards: np.ndarray) -> None:
    if len(games) == 0:
        return
    cfg = s.config
    p = cfg.num_players
    seat = s.to_move[games].astype(np.int64)
    own = s.bought[games, seat]
    finished = _completes(own[:, : len(C.KINDS)] + own[:, len(C.KINDS) :], cfg.beginner)
    s.last_round[games[finished]] = True
    s.phase[games] = PLANT
    s.target[games] = -1
    s.turn_steps[games] = 0
    round_over = seat == p - 1
    s.rounds[games[round_over]] += 1
    s.to_move[games] = (seat + 1) % p
    over = games[round_over & s.last_round[games]]
    if len(over):
        s.done[over] = True
        s.phase[over] = OVER
        if cfg.reward == "terminal":
            rewards[over] = outcome_rewards(winners(s.take(over)))
    capped = games[round_over & ~s.done[games] & (s.rounds[games] >= cfg.max_rounds)]
    s.done[capped] = s.truncated[capped] = True
    s.phase[capped] = OVER


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
    n, p = state.batch_size, cfg.num_players
    rows = np.arange(n)
    seat = np.broadcast_to(np.asarray(player, dtype=np.int64), (n,))
    order = (seat[:, None] + np.arange(p)[None, :]) % p  # absolute seat of each relative place
    lay = observation_layout(cfg)
    obs = np.zeros((n, lay["plant_targets"].stop), dtype=np.float32)
    live = ~state.done
    to_move = state.to_move.astype(np.int64)
    obs[rows, lay["seat"].start + seat] = 1.0
    obs[rows[live], lay["to_move"].start + ((to_move - seat) % p)[live]] = 1.0
    obs[rows[live], lay["turns_left"].start + (p - 1 - to_move)[live]] = 1.0
    obs[rows[live], lay["phase"].start + state.phase[live].astype(np.int64)] = 1.0
    targeted = state.target >= 0
    obs[rows[targeted], lay["target"].start + state.target[targeted].astype(np.int64)] = 1.0
    obs[:, lay["last_round"]] = state.last_round[:, None]
    obs[:, lay["round"]] = (state.rounds / cfg.max_rounds)[:, None]

    farm = np.zeros((n, 6, 6), dtype=np.float32)
    farm[rows[:, None], np.arange(6)[None, :], state.farm_order[:, 1:] - 1] = 1.0
    obs[:, lay["farm_order"]] = farm.reshape(n, -1)
    obs[:, lay["seeds"]] = state.seeds[rows[:, None], order].reshape(n, -1)
    obs[:, lay["storage"]] = state.storage[rows[:, None], order]
    kinds = kind_counts(state)[rows[:, None], order]
    obs[:, lay["bought"]] = kinds.reshape(n, -1)
    obs[:, lay["sets"]] = C.completed_sets(kinds).reshape(n, -1)
    market = np.zeros((n, MAX_SLOTS, C.N_CODES + 1), dtype=np.float32)
    market[rows[:, None], np.arange(MAX_SLOTS)[None, :], np.where(state.market >= 0, state.market, C.N_CODES)] = 1
    obs[:, lay["market"]] = market.reshape(n, -1)
    obs[:, lay["price"]] = prices(state)

    size = state.stack_size.astype(np.int64)
    obs[:, lay["stack_size"]] = (size / DECK_SIZE)[:, None]
    obs[:, lay["face_down"]] = _counts(state.stack) + _counts(state.drawn)
    under = (state.stack_knowers != 0).sum(axis=1)  # the cards put under lie at the bottom, in order
    first = size - under
    obs[:, lay["under_depth"]] = (first / DECK_SIZE)[:, None]
    index = np.minimum(first[:, None] + np.arange(MAX_UNDER)[None, :], DECK_SIZE - 1)
    in_under = np.arange(MAX_UNDER)[None, :] < under[:, None]
    cards = np.take_along_axis(state.stack, index, axis=1)
    knowers = np.where(in_under, np.take_along_axis(state.stack_knowers, index, axis=1), 0)
    obs[:, lay["under_cards"]] = _known_onehot(cards, knowers, seat).reshape(n, -1)
    obs[:, lay["under_knowers"]] = _relative_bits(knowers, order).reshape(n, -1)
    obs[:, lay["drawn"]] = _known_onehot(state.drawn, state.drawn_knowers, seat).reshape(n, -1)
    obs[:, lay["drawn_knowers"]] = _relative_bits(state.drawn_knowers, order).reshape(n, -1)

    own = state.seeds[rows, seat, 1:].astype(np.int64)  # public arithmetic, spelled out for a network:
    target = (np.arange(1, C.N_POSITIONS)[None, :] + own) % C.N_POSITIONS  # the last of k seeds sown lands k on
    plant = obs[:, lay["plant_targets"]].reshape(n, 6, C.N_POSITIONS)
    plant[rows[:, None], np.arange(6)[None, :], target] = own > 0
    obs[:, lay["plant_targets"]] = plant.reshape(n, -1)
    return obs


def _known_onehot(cards: np.ndarray, knowers: np.ndarray, seat: np.ndarray) -> np.ndarray:
    """`(n, k, 10)` one-hot codes of `cards (n, k)` where `seat (n,)` is among their `knowers`, else zero."""
    known = ((knowers.astype(np.int64) >> seat[:, None]) & 1) == 1
    return (np.where(known & (cards >= 0), cards, -1)[:, :, None] == np.arange(C.N_CODES)).astype(np.float32)


def _relative_bits(knowers: np.ndarray, order: np.ndarray) -> np.ndarray:
    """`(n, k, P)` knower bits `(n, k)` as flags per seat in the observer-first `order (n, P)`."""
    return ((knowers.astype(np.int64)[:, :, None] >> order[:, None, :]) & 1).astype(np.float32)


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

    A position that no game can reach is refused with a `ValueError` naming the field and what is
    allowed (a target in the wrong phase, drawn cards outside the keep choice, knowers that are not
    seats or lie above cards nobody knows, ...).
    """
    if d.get("game", SPEC.id) != SPEC.id:
        raise ValueError(f"description is of {d.get('game')!r}, not {SPEC.id!r}")
    if int(d.get("version", SPEC.version)) != SPEC.version:
        raise ValueError(
            f"description is of {SPEC.id} v{d['version']}, rules are v{SPEC.version} ({SPEC.pettingzoo_name}); "
            "positions cannot cross rule versions"
        )
    cfg = SPEC.config_from_dict(d["config"])
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    key = int(d.get("rng_key", 0))
    state = init(cfg, np.array([key], dtype=np.uint64))
    state.keys[0] = np.uint64(key)
    state.done[0] = d.get("done", False)
    state.truncated[0] = d.get("truncated", False)
    state.step_count[0] = d.get("step_count", 0)
    phase = d.get("phase", "plant")
    if phase not in PHASE_NAMES:
        raise ValueError(f"phase must be one of {list(PHASE_NAMES)}, got {phase!r}")
    state.phase[0] = PHASE_NAMES.index(phase)
    to_move = d.get("to_move", "player_0")
    if to_move not in seats:
        raise ValueError(f"to_move must be one of {seats}, got {to_move!r}")
    state.to_move[0] = seats.index(to_move)
    rounds = d.get("rounds", 0)
    if not isinstance(rounds, int) or not 0 <= rounds <= cfg.max_rounds:
        raise ValueError(f"rounds must be an integer in 0..max_rounds={cfg.max_rounds}, got {rounds!r}")
    state.rounds[0] = rounds
    state.turn_steps[0] = d.get("turn_steps", 0)
    state.last_round[0] = d.get("last_round", False)
    if "farm_order" in d:
        order = [C.FARM_TYPES.index(t) for t in d["farm_order"]]
        if order[0] != C.HOUSE or sorted(order) != list(range(7)):
            raise ValueError(f"farm_order must start with the house and hold each farm card once: {d['farm_order']}")
        state.farm_order[0] = order
    target = d.get("target")
    if target is not None and (isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= 6):
        raise ValueError(
            f"target must be None or a farm position 1..6 (the House is never a target: it means planting again), "
            f"got {target!r}"
        )
    state.target[0] = -1 if target is None else target
    for k, seat in enumerate(seats):
        farm = d.get("farms", {}).get(seat)
        if farm is not None:
            state.seeds[0, k] = farm["seeds"]
            state.storage[0, k] = farm["storage"]
        state.bought[0, k] = 0
        for name in d.get("bought", {}).get(seat, []):
            state.bought[0, k, C.card_from_name(name)] += 1
    if "market" in d:
        state.market[0] = NO_CARD
        for slot, name in enumerate(d["market"]):
            state.market[0, slot] = NO_CARD if name == "empty" else C.card_from_name(name)
    hidden = d.get("hidden", {})
    if "stack" in hidden or "market" in d:
        stack = [C.card_from_name(c) for c in hidden.get("stack", [])]
        if "stack_size" in d and d["stack_size"] != len(stack):
            raise ValueError(f"stack_size must be {len(stack)}, the cards in hidden.stack; got {d['stack_size']!r}")
        state.stack[0] = NO_CARD
        state.stack_knowers[0] = 0
        state.stack[0, : len(stack)] = stack
        known = _knower_bits(d.get("stack_known_by"), len(stack), seats, "stack_known_by")
        state.stack_knowers[0, : len(stack)] = known
        state.stack_size[0] = len(stack)
    state.drawn[0] = NO_CARD
    drawn = hidden.get("drawn", [])
    if len(drawn) > 2:
        raise ValueError(f"hidden.drawn holds the two cards of a two-card draw, got {len(drawn)}")
    for k, name in enumerate(drawn):
        state.drawn[0, k] = C.card_from_name(name)
    state.drawn_knowers[0] = 0
    state.drawn_knowers[0, : len(drawn)] = _knower_bits(d.get("drawn_known_by"), len(drawn), seats, "drawn_known_by")
    problems = _impossible(state) + invariants(state, complete=False)
    if problems:
        raise ValueError("description is not a consistent Fruit Picking position: " + "; ".join(problems))
    return state


def _knower_bits(lists, count: int, seats: list[str], field: str) -> list[int]:
    """Knower bits of `count` cards from lists of seat names (missing: nobody knows them)."""
    if lists is None:
        return [0] * count
    if not isinstance(lists, list) or len(lists) != count:
        raise ValueError(f"{field} must list the knowers of each of the {count} cards, got {lists!r}")
    bits = []
    for names in lists:
        if not isinstance(names, list) or len(set(names)) != len(names) or not set(names) <= set(seats):
            raise ValueError(f"{field} entries must be lists of distinct seats among {seats}, got {names!r}")
        bits.append(sum(1 << seats.index(name) for name in names))
    return bits


def _impossible(state: State) -> list[str]:
    """What makes game 0 of a hand-built batch a position no game reaches (empty when it can occur)."""
    cfg = state.config
    phase, target = PHASE_NAMES[int(state.phase[0])], int(state.target[0])
    drawn = int((state.drawn[0] >= 0).sum())
    size = int(state.stack_size[0])
    problems = []
    if bool(state.done[0]) != (phase == "over"):
        problems.append(f"done must be true exactly in phase 'over' (phase {phase!r}, done {bool(state.done[0])})")
    if phase == "plant" and target >= 0:
        problems.append("target must be None in phase 'plant' (a turn has no target before its seeds are planted)")
    if phase == "target" and target < 0:
        problems.append("phase 'target' needs a target (a farm position 1..6)")
    if phase in ("draw", "keep"):
        if not cfg.market_operation:
            problems.append(f"phase {phase!r} needs the market_operation option")
        if target < 0 or state.farm_order[0, target] < 2:
            problems.append(f"phase {phase!r} follows a purchase: target must be a fruit position")
        if state.market[0, 0] >= 0:
            problems.append(f"phase {phase!r} follows a purchase: market slot 0 must be empty")
    if phase == "draw" and size < 2:
        problems.append("phase 'draw' needs two stack cards (otherwise the card is drawn as usual)")
    truncated_in_keep = phase == "over" and bool(state.truncated[0])
    if phase == "keep" and drawn != 2:
        problems.append(f"phase 'keep' needs two drawn cards in hidden.drawn, got {drawn}")
    if phase != "keep" and drawn and not truncated_in_keep:
        problems.append(f"hidden.drawn must be empty outside phase 'keep' (phase {phase!r}, {drawn} drawn)")
    if phase == "keep" and ((state.drawn_knowers[0] >> state.to_move[0]) & 1 == 0).any():
        problems.append("drawn_known_by must name the drawer (to_move) for both drawn cards")
    if phase not in ("draw", "keep", "over") and (state.market[0, : cfg.slots] < 0).any() and size > 0:
        problems.append("a market slot may stay empty only once the stack is empty")
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
    return problems


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
