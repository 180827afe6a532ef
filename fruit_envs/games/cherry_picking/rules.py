"""Cherry Picking rules as pure, batched numpy functions (imports numpy only).

Decisions, one flat action space of 60:

* `0..52`  play the hand card of that type (commit phase; ids in `components`: 0 ladder,
  1 wildcard, 2..43 fruits `2 + 7 * sort + value`, 44..52 baskets 0, 2, 3, ..., 9);
* `53..58` harvest from plant 0..5 (pineapple, pear, banana, cherry, orange, grape), the choice of
  a lone ladder, a lone wildcard or a basket after the reveal;
* `59`     wait: the only legal action of a seat that has nothing to decide (parallel env only).

A trick: every seat commits a card face down (seat by seat, hidden from the others); once the last
seat has committed the cards are revealed and resolved in rulebook order, stopping at each choice a
player must make. A set ends when the hands are empty; three sets make a game.
"""

from __future__ import annotations

import itertools
import operator
from dataclasses import dataclass
from functools import cache

import numpy as np

from fruit_envs.core import rng, validate
from fruit_envs.core.lazy import StateKernels, kernels_of
from fruit_envs.core.spec import Config, GameSpec, option, outcome_rewards
from fruit_envs.core.state import BatchState, advance_buffers, every_seat, game_rows, seat_array
from fruit_envs.games.cherry_picking import components as C

N_CARDS = C.N_CARD_TYPES  # 53
CHOOSE_BASE = N_CARDS  # 53..58: choose plant
WAIT = CHOOSE_BASE + C.N_PLANTS  # 59
NUM_ACTIONS = WAIT + 1  # 60

COMMIT, CHOOSE, OVER = 0, 1, 2
PHASE_NAMES = ("commit", "choose", "over")
NO_CARD = -1


@dataclass(frozen=True)
class CherryPickingConfig(Config):
    """Options of Cherry Picking."""

    same_sort_bonus: str = option(
        "repeat",
        ("repeat", "once"),
        "'repeat': a sort's cards split into groups of 4 (10) and 5 (20), each paying; "
        "'once': at most one same-sort bonus per sort",
    )


@dataclass
class State(BatchState):
    """Cherry Picking batch. `n` games, `P` seats, 53 card types (see `components`)."""

    phase: np.ndarray  # (n,) int8: COMMIT, CHOOSE or OVER
    set_index: np.ndarray  # (n,) int8: 0, 1, 2 while playing; 3 when the game is over
    hands: np.ndarray  # (n, P, 53) int8: cards in each hand
    piles: np.ndarray  # (n, P, 53) int8: each harvest pile of the current set
    plants: np.ndarray  # (n, 6) int8: card lying below each plant
    played: np.ndarray  # (n, P) int8: card committed this trick and not yet resolved, -1 none
    aside: np.ndarray  # (n,) int8: card set aside unseen at the deal, -1 none
    set_scores: np.ndarray  # (n, 3, P) int16: score of each finished set
    scores: np.ndarray  # (n, P) int16: total of finished sets

    GAME = "cherry_picking"


SPEC = GameSpec(
    id="cherry_picking",
    name="Cherry Picking",
    env_name="CherryPicking",
    version=0,
    player_counts=(2, 3, 4, 5, 6),
    rulebook_player_counts=(2, 3, 4),
    default_num_players=2,
    config_cls=CherryPickingConfig,
    num_actions=NUM_ACTIONS,
    observation_dtype=np.dtype(np.float32),
    chance=True,
    hidden_information=True,
    simultaneous=True,
    rules_module=__name__,
    symmetric_seats=True,  # no start player; ties are settled by card values, never by seat
    wait_action=WAIT,
    capabilities=("PHASE_NAMES", "advance", "legal_masks", "potential", "field_bounds", "position_invariants"),
)


# ----------------------------------------------------------------------------------------------
# Declared facts


@cache
def observation_layout(config: Config) -> dict[str, slice]:
    """Named slices of a seat's observation vector; seat-relative blocks list the observer first."""
    p = config.num_players
    sizes = [
        ("hand", N_CARDS),  # own hand counts
        ("committed", N_CARDS),  # own card committed this trick (one-hot)
        ("plants", C.N_PLANTS * N_CARDS),  # card under each plant (one-hot per plant)
        ("piles", p * N_CARDS),  # every harvest pile of this set (counts)
        ("revealed", p * N_CARDS),  # cards revealed this trick and not yet resolved
        ("phase", 2),  # commit, choose
        ("chooser", p),  # who is choosing a plant (choose phase)
        ("set", C.SETS_PER_GAME),  # which set of rounds
        ("scores", p),  # totals of finished sets / 100
        ("tricks_left", 1),  # cards left in the observer's hand before committing / hand size
    ]
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


def observation_shape(config: Config) -> tuple[int]:
    return (observation_layout(config)["tricks_left"].stop,)


OBSERVATION_HIGH = 100.0  # every entry is a small count, a one-hot bit or a score / 100


def max_game_length(config: Config) -> int:
    # per trick: one commit per seat plus at most one plant choice per seat
    return C.SETS_PER_GAME * C.hand_size(config.num_players) * 2 * config.num_players


def reward_bounds(config: Config) -> tuple[float, float]:
    if config.reward == "terminal":
        return (-1.0, 1.0)
    # scores only grow with cards, so a pile of every card in play bounds a set's score
    everything = C.deck_counts(config.num_players).astype(np.int64)
    return (0.0, float(score_piles(everything[None], config.same_sort_bonus)[0]))


# ----------------------------------------------------------------------------------------------
# Scoring (pure, callable on any pile)


@cache
def _same_sort_table(mode: str, size: int = 80) -> np.ndarray:
    """Same-sort bonus for 0..size-1 fruits of one sort."""
    table = np.zeros(size, dtype=np.int64)
    for count in range(size):
        if mode == "once":
            table[count] = C.BONUS_FIVE if count >= 5 else C.BONUS_FOUR if count == 4 else 0
        else:
            table[count] = max(
                C.BONUS_FOUR * fours + C.BONUS_FIVE * fives
                for fives in range(count // 5 + 1)
                for fours in range((count - 5 * fives) // 4 + 1)
            )
    return table


@cache
def _wildcard_assignments(wild: int) -> np.ndarray:
    """Every way to give exactly `wild` wildcards to the six sorts, `(K, 6)` int64."""
    rows = [combo for combo in itertools.product(range(wild + 1), repeat=len(C.SORTS)) if sum(combo) == wild]
    return np.array(rows, dtype=np.int64)


@cache
def _wildcard_table(max_wild: int) -> tuple[np.ndarray, np.ndarray]:
    """Every assignment of 0..max_wild wildcards to the six sorts, padded: `(W+1, K, 6)` and row counts."""
    rows = [_wildcard_assignments(w) for w in range(max_wild + 1)]
    table = np.zeros((max_wild + 1, max(len(r) for r in rows), len(C.SORTS)), dtype=np.int64)
    for w, r in enumerate(rows):
        table[w, : len(r)] = r
    return table, np.array([len(r) for r in rows], dtype=np.int64)


def score_tables(mode: str, max_wild: int = C.N_WILDCARDS) -> tuple:
    """The tables the `score_pile` kernel scores a pile with: same-sort bonus by count, and each wildcard
    count's assignments to sorts (and how many), for up to `max_wild` wildcards."""
    return (_same_sort_table(mode), *_wildcard_table(max_wild))


def score_piles(piles: np.ndarray, same_sort_bonus: str = "repeat") -> np.ndarray:
    """Points of harvest piles given as card counts `(..., 53)`; returns `(...)` int64.

    Card values + ladders squared + 10 per complete set of the six sorts + same-sort bonuses;
    each wildcard stands for exactly one fruit, chosen to maximise the pile's score.
    """
    piles = np.asarray(piles, dtype=np.int64)
    if piles.shape[-1] != N_CARDS:
        raise ValueError(f"a pile is {N_CARDS} card counts, got shape {piles.shape}")
    if (piles < 0).any() or (piles > np.iinfo(np.int8).max).any():
        raise ValueError(f"pile card counts must be non-negative and at most {np.iinfo(np.int8).max}")
    flat = np.ascontiguousarray(piles.reshape(-1, N_CARDS))
    fruit = flat[:, C.FRUIT_BASE : C.BASKET_BASE].reshape(len(flat), len(C.SORTS), -1).sum(axis=2)
    limit = len(_same_sort_table(same_sort_bonus))
    if len(flat) and (fruit.max(axis=1) + flat[:, C.WILDCARD]).max() >= limit:
        raise ValueError(f"a pile may hold fewer than {limit} fruits (wildcards included) of one sort")
    out = np.empty(len(flat), dtype=np.int64)
    max_wild = max(C.N_WILDCARDS, int(flat[:, C.WILDCARD].max(initial=0)))
    # int8, the state's own type: the `score_pile` kernel `step` uses is then compiled once
    _kernels().score_many(flat.astype(np.int8), *score_tables(same_sort_bonus, max_wild), out)
    return out.reshape(piles.shape[:-1])


def score_breakdown(pile: np.ndarray, same_sort_bonus: str = "repeat") -> dict[str, int]:
    """One pile's score by rulebook line (values, ladders squared, bonuses), for display and tests."""
    pile = np.asarray(pile, dtype=np.int64)
    total = int(score_piles(pile, same_sort_bonus))
    values = int(pile @ C.CARD_VALUE.astype(np.int64))
    ladders = int(pile[C.LADDER]) ** 2
    return {"card_values": values, "ladders_squared": ladders, "bonuses": total - values - ladders, "total": total}


# ----------------------------------------------------------------------------------------------
# Setup


_kernels = kernels_of(__package__)  # the compiled kernels, imported on first use
_state_kernels = StateKernels(__package__, State)  # those taking state arrays, given the state itself


@cache
def _deck(num_players: int) -> np.ndarray:
    """`(D,)` int8: every card in play, in id order (the order a shuffle permutes)."""
    return np.repeat(np.arange(N_CARDS, dtype=np.int8), C.deck_counts(num_players))


def init(config: Config, keys: np.ndarray) -> State:
    """`len(keys)` games set up as the rulebook says, each from its own key."""
    keys = np.asarray(keys, dtype=np.uint64).reshape(-1)
    n, p = len(keys), config.num_players
    state = State(
        config=config,
        keys=keys.copy(),
        done=np.zeros(n, dtype=bool),
        truncated=np.zeros(n, dtype=bool),
        to_move=np.zeros(n, dtype=np.int8),
        step_count=np.zeros(n, dtype=np.int32),
        phase=np.zeros(n, dtype=np.int8),
        set_index=np.zeros(n, dtype=np.int8),
        hands=np.zeros((n, p, N_CARDS), dtype=np.int8),
        piles=np.zeros((n, p, N_CARDS), dtype=np.int8),
        plants=np.zeros((n, C.N_PLANTS), dtype=np.int8),
        played=np.full((n, p), NO_CARD, dtype=np.int8),
        aside=np.full(n, NO_CARD, dtype=np.int8),
        set_scores=np.zeros((n, C.SETS_PER_GAME, p), dtype=np.int16),
        scores=np.zeros((n, p), dtype=np.int16),
    )
    _state_kernels.deal_all(state, _deck(p), C.hand_size(p))
    return state


# ----------------------------------------------------------------------------------------------
# Masks


def legal_mask(state: State, player=None) -> np.ndarray:
    """`(n, 60)` bool: the legal actions of `player` (default: the seat to move) in each game.

    During the commit phase every seat that has not committed may choose a hand card; after the
    reveal only the seat to move chooses a plant. Finished games have no legal action.
    """
    seat = seat_array(state, player)
    return _masks(state, game_rows(state.batch_size), seat)


def legal_masks(state: State) -> np.ndarray:
    """`(n, P, 60)` bool: every seat's `legal_mask` in one call (the commit phase asks all seats at once)."""
    n, p = state.batch_size, state.config.num_players
    return _masks(state, *every_seat(n, p)).reshape(n, p, NUM_ACTIONS)


def _masks(state: State, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    mask = np.zeros((len(seats), NUM_ACTIONS), dtype=bool)
    _state_kernels.legal_mask(games, seats, state, mask)
    return mask


def acting(state: State) -> np.ndarray:
    """`(n, P)` bool: seats with a decision pending before anything public changes."""
    p = state.config.num_players
    seats = np.arange(p)[None, :]
    committing = (state.phase == COMMIT)[:, None] & (state.played == NO_CARD)
    choosing = (state.phase == CHOOSE)[:, None] & (seats == state.to_move[:, None])
    return (committing | choosing) & ~state.done[:, None]


# ----------------------------------------------------------------------------------------------
# Step


def step(
    state: State, actions: np.ndarray, active: np.ndarray | None = None, *, in_place: bool = False
) -> tuple[State, np.ndarray]:
    """Apply one decision per game; returns `(new_state, rewards (n, P) float32)`.

    Actions must be legal for the games that move (adapters check this). Games that are finished,
    or not `active` (`(n,)` bool, default all), are left untouched and ignore their action.

    `in_place=True` changes `state` itself and returns it: for an owner of the state whose actions are
    already checked against the mask (an env), it saves the copy.
    """
    s = state if in_place else state.copy()
    n, p = s.batch_size, s.config.num_players
    actions = np.asarray(actions, dtype=np.int64).reshape(n)
    live = ~s.done if active is None else ~s.done & np.asarray(active, dtype=bool)
    rewards = np.zeros((n, p), dtype=np.float32)
    ended = np.zeros(n, dtype=bool)
    _state_kernels.step(
        actions, live, s, rewards, ended, _deck(p), C.hand_size(p), s.config.reward == "score",
        *score_tables(s.config.same_sort_bonus),
    )  # fmt: skip
    if s.config.reward == "terminal" and ended.any():
        rewards[ended] = terminal_rewards(s.scores[ended])
    return s, rewards


def advance(state: State, action: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One game (batch of one) stepped in place by a legal `action`, then every seat: returns the rewards
    `(P,)`, every seat's mask `(P, 60)` and the observation `(O,)` of the seat to move afterwards, equal
    to `step(..., in_place=True)`, `legal_masks` and `observe` but in one kernel call (the AEC env's step)."""
    s = state
    p, size, terminal, fixed = advance_constants(s.config)
    rewards, ended, masks, obs = advance_buffers(p, NUM_ACTIONS, size)
    _state_kernels.advance(operator.index(action), s, rewards, ended, masks, obs, *fixed)
    if terminal and ended[0]:
        rewards[0] = terminal_rewards(s.scores)[0]
    return rewards[0], masks, obs[0]


@cache
def advance_constants(config: Config) -> tuple:
    """What `advance` needs of the configuration alone: players, observation size, whether the reward is
    the outcome, and `kernels.advance`'s last arguments in its order (one cached lookup per call: `advance`
    is the one-game hot path). Search's compiled rollouts take the same (`agents/greedy`)."""
    p = config.num_players
    scoring = score_tables(config.same_sort_bonus)
    fixed = (_deck(p), C.hand_size(p), config.reward == "score", *scoring)
    return p, observation_shape(config)[0], config.reward == "terminal", fixed


def terminal_rewards(scores: np.ndarray) -> np.ndarray:
    """+1 each player with the highest total, -1 each other, 0 all round when everyone ties."""
    return outcome_rewards(scores == scores.max(axis=1, keepdims=True))


def final_scores(state: State) -> np.ndarray:
    """`(n, P)` each seat's total over the finished sets."""
    return state.scores.astype(np.int64)


def potential(state: State) -> np.ndarray:
    """`(n, P)` each seat's running score: finished sets plus what its harvest pile of this set would
    score now (public: piles may be looked at any time; used for reward shaping)."""
    return state.scores.astype(np.int64) + score_piles(state.piles, state.config.same_sort_bonus)


def winners(state: State) -> np.ndarray:
    """`(n, P)` bool: the players with the highest total (meaningful once `done`)."""
    return state.scores == state.scores.max(axis=1, keepdims=True)


# ----------------------------------------------------------------------------------------------
# Observation


def observe(state: State, player) -> np.ndarray:
    """`(n, O)` float32: what `player` (int or `(n,)` ints) may know, nothing more.

    Own hand and own committed card; plants; every harvest pile (harvests are public, so a player
    with perfect memory knows every pile); cards revealed this trick; phase, chooser, set, scores.
    Never another hand, the card set aside, or another seat's card before the reveal.
    """
    cfg = state.config
    seat = seat_array(state, player)
    obs = np.zeros((state.batch_size,) + observation_shape(cfg), dtype=np.float32)
    _state_kernels.observe(seat, state, C.hand_size(cfg.num_players), obs)
    return obs


# ----------------------------------------------------------------------------------------------
# Referee's view, text, hidden information


def action_to_string(config: Config, action: int) -> str:
    action = int(action)
    if 0 <= action < N_CARDS:
        return f"play {C.CARD_NAMES[action]}"
    if CHOOSE_BASE <= action < WAIT:
        return f"harvest at the {C.SORTS[action - CHOOSE_BASE]} plant"
    if action == WAIT:
        return "wait"
    raise ValueError(f"Cherry Picking actions are 0..{NUM_ACTIONS - 1}, got {action}")


def string_to_action(config: Config, text: str) -> int:
    text = text.strip().lower()
    for a in range(NUM_ACTIONS):
        label = action_to_string(config, a)
        if text in (label, label.removeprefix("play "), label.removeprefix("harvest at the ").removesuffix(" plant")):
            return a
    raise ValueError(f"no Cherry Picking action is called {text!r}")


def _cards(counts: np.ndarray) -> list[str]:
    return [C.CARD_NAMES[c] for c in range(N_CARDS) for _ in range(int(counts[c]))]


def describe(state: State, i: int = 0) -> dict:
    """Complete JSON-able picture of game `i`, hidden parts under `"hidden"`."""
    cfg = state.config
    p = cfg.num_players
    seats = [f"player_{k}" for k in range(p)]
    card = lambda c: None if c < 0 else C.CARD_NAMES[int(c)]  # noqa: E731
    revealed = int(state.phase[i]) == CHOOSE
    played = {seats[k]: card(state.played[i, k]) for k in range(p)}
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
        "set": int(state.set_index[i]) + 1,
        "plants": {C.SORTS[k]: card(state.plants[i, k]) for k in range(C.N_PLANTS)},
        "piles": {seats[k]: _cards(state.piles[i, k]) for k in range(p)},
        "revealed": played if revealed else {},
        "set_scores": [[int(x) for x in row] for row in state.set_scores[i]],
        "scores": {seats[k]: int(state.scores[i, k]) for k in range(p)},
        "hidden": {
            "hands": {seats[k]: _cards(state.hands[i, k]) for k in range(p)},
            "aside": card(state.aside[i]),
            "committed": {} if revealed else {k: v for k, v in played.items() if v is not None},
        },
    }


def from_description(d: dict) -> State:
    """The batch-of-1 state that `describe` pictured. Left out: `phase` (commit, or over when done),
    `to_move` (player_0), `set` (1), piles and hands (empty), nothing revealed or committed, no card
    aside, set scores 0 and totals their sums. A malformed or inconsistent description raises
    `DescriptionError` naming the field (or the position's problem)."""
    read = validate.Reader(SPEC)
    cfg, header = validate.read_header(read, d)
    allowed = (*validate.HEADER, "phase", "to_move", "set", "plants", "piles", "revealed", "set_scores", "scores")
    read.mapping(d, "", (*allowed, "hidden"), required=("plants",))
    p = cfg.num_players
    deck = C.deck_counts(p)

    def card(value, path: str) -> int:
        try:
            return C.card_from_name(read.string(value, path))
        except ValueError as error:
            read.fail(path, str(error))

    state = init(cfg, np.array([header["rng_key"]], dtype=np.uint64))
    state.keys[0] = np.uint64(header["rng_key"])
    state.done[0], state.truncated[0], state.step_count[0] = header["done"], header["truncated"], header["step_count"]
    default_phase = "over" if header["done"] and not header["truncated"] else "commit"
    state.phase[0] = read.choice(d.get("phase", default_phase), "phase", PHASE_NAMES)
    state.to_move[0] = read.seat(d.get("to_move", "player_0"), "to_move", p)
    state.set_index[0] = read.integer(d.get("set", 1), "set", 1, C.SETS_PER_GAME + 1) - 1
    plants = read.mapping(d["plants"], "plants", C.SORTS, C.SORTS)
    for k, sort in enumerate(C.SORTS):
        state.plants[0, k] = card(plants[sort], f"plants.{sort}")
    hidden = read.mapping(d.get("hidden", {}), "hidden", ("hands", "aside", "committed"))
    hands = read.seats_mapping(hidden.get("hands", {}), "hidden.hands", p)
    piles = read.seats_mapping(d.get("piles", {}), "piles", p)
    for k in range(p):
        seat = f"player_{k}"
        for where, cards, target in (("hidden.hands", hands, state.hands), ("piles", piles, state.piles)):
            names = read.items(cards.get(seat, []), f"{where}.{seat}")
            ids = [card(name, f"{where}.{seat}[{j}]") for j, name in enumerate(names)]
            counts = np.bincount(np.array(ids, dtype=np.int64), minlength=N_CARDS)
            if (counts > deck).any():
                c = int(np.flatnonzero(counts > deck)[0])
                read.fail(f"{where}.{seat}", f"holds {counts[c]} x {C.CARD_NAMES[c]}; the game has {deck[c]}")
            target[0, k] = counts
    state.played[0] = NO_CARD
    for where in ("revealed", "hidden.committed"):
        node = d.get("revealed", {}) if where == "revealed" else hidden.get("committed", {})
        for seat, name in read.seats_mapping(node, where, p).items():
            if name is not None:
                k = int(seat.removeprefix("player_"))
                if state.played[0, k] != NO_CARD:
                    read.fail(f"{where}.{seat}", "this seat's card is given both as revealed and as committed")
                state.played[0, k] = card(name, f"{where}.{seat}")
    aside = hidden.get("aside")
    state.aside[0] = NO_CARD if aside is None else card(aside, "hidden.aside")
    if "set_scores" in d:
        rows = read.items(d["set_scores"], "set_scores", length=C.SETS_PER_GAME)
        for r, row in enumerate(rows):
            for k, value in enumerate(read.items(row, f"set_scores[{r}]", length=p)):
                state.set_scores[0, r, k] = read.integer(value, f"set_scores[{r}][{k}]", 0, 10_000)
    scores = read.seats_mapping(d.get("scores", {}), "scores", p)
    for k in range(p):
        seat = f"player_{k}"
        total = int(state.set_scores[0, :, k].sum())
        state.scores[0, k] = read.integer(scores.get(seat, total), f"scores.{seat}", 0, 30_000)
    revealed = state.phase[0] == CHOOSE
    if not revealed and d.get("revealed"):
        read.fail("revealed", "cards are revealed only while a plant is chosen (phase 'choose')")
    if revealed and hidden.get("committed"):
        read.fail("hidden.committed", "after the reveal committed cards are listed under 'revealed'")
    return validate.finish(read, state)


def render(state: State, i: int = 0) -> str:
    d = describe(state, i)
    lines = [
        f"Cherry Picking - {state.config.num_players} players - set {min(d['set'], 3)}/3 - "
        f"{'game over' if d['done'] else d['phase'] + ', ' + d['to_move'] + ' to move'}",
        "plants: " + " | ".join(f"{sort}: {card}" for sort, card in d["plants"].items()),
    ]
    if d["revealed"]:
        lines.append("revealed: " + ", ".join(f"{k}: {v}" for k, v in d["revealed"].items() if v))
    for k in range(state.config.num_players):
        seat = f"player_{k}"
        hand = d["hidden"]["hands"][seat]
        lines.append(
            f"{seat}: score {d['scores'][seat]:>3}  hand [{', '.join(hand)}]  pile [{', '.join(d['piles'][seat])}]"
        )
    if d["done"]:
        best = max(d["scores"].values())
        won = [s for s, v in d["scores"].items() if v == best]
        lines.append(f"winner: {', '.join(won)} with {best} points")
    return "\n".join(lines)


def redeal_hidden(state: State, player, keys: np.ndarray) -> State:
    """Resample from `player`'s information state: a position drawn uniformly from those it cannot tell apart.

    `player` is a seat (int, or `(n,)` ints, one per game) and `keys` one random key per game. The
    cards `player` cannot see - the other hands, the card set aside, the other seats' commitments not
    yet revealed - are dealt again from their pooled multiset, each place keeping its number of cards;
    everything `player` knows stays. Every game's random key is replaced (drawn from `keys`), so future
    deals are not the true ones either. The result depends only on what `player` knows and on `keys`:
    re-dealing first and then calling this with the same keys gives the same state. Batched numpy (no
    loop over games): a search agent calls it on thousands of games at once.
    """
    s = state.copy()
    n, p = s.batch_size, s.config.num_players
    seat = seat_array(s, player)
    keys, shuffle_keys = rng.split(np.asarray(keys, dtype=np.uint64).reshape(n))
    rows = np.arange(n)
    other = np.arange(p)[None, :] != seat[:, None]  # (n, P)
    played_hidden = other & (s.phase == COMMIT)[:, None] & (s.played >= 0)  # (n, P)
    # the pooled multiset of unseen cards, as counts (n, 53)
    pool = (s.hands.astype(np.int64) * other[:, :, None]).sum(axis=1)
    g, k = np.nonzero(played_hidden)
    np.add.at(pool, (g, s.played[g, k].astype(np.int64)), 1)
    aside = s.aside >= 0
    np.add.at(pool, (rows[aside], s.aside[aside].astype(np.int64)), 1)
    # the pool in card order (a canonical list), then shuffled: unused places sort last
    size = pool.sum(axis=1)
    width = max(int(size.max()), 1) if n else 1
    place = np.arange(width)[None, :]
    cumulative = pool.cumsum(axis=1) + rows[:, None] * (width + 1)
    sorted_cards = np.searchsorted(cumulative.ravel(), (place + rows[:, None] * (width + 1)).ravel(), side="right")
    sorted_cards = sorted_cards.reshape(n, width) - rows[:, None] * N_CARDS
    order = np.argsort(np.where(place < size[:, None], rng.uniform(shuffle_keys, width), 2.0), axis=1, kind="stable")
    cards = np.take_along_axis(sorted_cards, order, axis=1)  # (n, width): the first `size` are the deal
    # places in seat order: each other hand, then that seat's hidden commitment; the card aside last
    start = np.zeros(n, dtype=np.int64)
    for k in range(p):
        hand = np.where(other[:, k], s.hands[:, k].sum(axis=1, dtype=np.int64), 0)
        mine = (place >= start[:, None]) & (place < (start + hand)[:, None])
        dealt = np.zeros((n, N_CARDS), dtype=np.int64)
        np.add.at(dealt, (np.broadcast_to(rows[:, None], mine.shape)[mine], cards[mine]), 1)
        s.hands[:, k] = np.where(other[:, k, None], dealt, s.hands[:, k])
        start += hand
        hidden = played_hidden[:, k]
        s.played[hidden, k] = cards[hidden, np.minimum(start[hidden], width - 1)]
        start += hidden
    s.aside[aside] = cards[aside, np.minimum(start[aside], width - 1)]
    s.keys = rng.split(keys)[0]
    return s


def field_bounds(config: Config) -> dict[str, tuple]:
    """Inclusive value bounds of the game's fields (per card type where it matters), checked on every
    loaded state before the invariants."""
    deck = C.deck_counts(config.num_players).astype(np.int64)
    most = int(reward_bounds(config.__class__(num_players=config.num_players, reward="score"))[1])
    return {
        "phase": (0, OVER),
        "set_index": (0, C.SETS_PER_GAME),
        "hands": (0, deck),
        "piles": (0, deck),
        "plants": (0, N_CARDS - 1),
        "played": (NO_CARD, N_CARDS - 1),
        "aside": (NO_CARD, N_CARDS - 1),
        "set_scores": (0, most),
        "scores": (0, C.SETS_PER_GAME * most),
    }


def invariants(state: State, complete: bool = True) -> list[str]:
    """Problems with a batch (empty when sound): cards conserved, hand sizes, sets played, and each
    phase's bookkeeping (who has committed, who may choose a plant).

    `complete=False` accepts hand-built positions that leave cards out: no card may then appear
    more often than it is in play, and hands may be smaller than dealt (`position_invariants`).
    """
    cfg = state.config
    p = cfg.num_players
    problems = []
    deck = C.deck_counts(p).astype(np.int64)
    total = state.hands.sum(axis=1).astype(np.int64) + state.piles.sum(axis=1)
    n = state.batch_size
    rows = np.arange(n)
    np.add.at(total, (rows[:, None].repeat(C.N_PLANTS, 1), state.plants.astype(np.int64)), 1)
    g, seat = np.nonzero(state.played >= 0)
    np.add.at(total, (g, state.played[g, seat].astype(np.int64)), 1)
    has_aside = state.aside >= 0
    np.add.at(total, (rows[has_aside], state.aside[has_aside].astype(np.int64)), 1)
    wrong = total != deck[None] if complete else total > deck[None]
    bad = np.flatnonzero(wrong.any(axis=1))
    if len(bad):
        extra = total[bad[0]] - deck
        diff = {C.CARD_NAMES[c]: int(extra[c]) for c in np.flatnonzero(wrong[bad[0]])}
        what = "cards not conserved" if complete else "more copies than are in play"
        problems.append(f"{what} in game {bad[0]} (difference per card: {diff})")
    if (state.hands < 0).any() or (state.piles < 0).any():
        problems.append("negative card counts")
    committed = state.played >= 0
    hand_sizes = state.hands.sum(axis=2) + committed * (state.phase == COMMIT)[:, None]
    live = ~state.done
    # every trick takes one card from each hand: uneven hands would leave a seat with nothing to play
    uneven = live & (hand_sizes.min(axis=1) != hand_sizes.max(axis=1))
    if uneven.any():
        problems.append(f"hand sizes differ in game {np.flatnonzero(uneven)[0]}")
    if complete and (hand_sizes.max(axis=1) > C.hand_size(p)).any():
        problems.append("a hand holds more cards than were dealt")
    problems += _phase_problems(state, committed, live)
    if (state.scores != state.set_scores.sum(axis=1)).any():
        problems.append("totals differ from the sum of the set scores")
    unplayed = np.arange(C.SETS_PER_GAME)[None, :] >= state.set_index[:, None]  # (n, 3): sets not yet scored
    if (unplayed[:, :, None] & (state.set_scores != 0)).any():
        problems.append("a set that is not over has a score")
    return problems


def position_invariants(state: State) -> list[str]:
    """What any position must satisfy, a hand-built one included (cards may be left out)."""
    return invariants(state, complete=False)


def _phase_problems(state: State, committed: np.ndarray, live: np.ndarray) -> list[str]:
    """Each phase's bookkeeping: seats commit in turn, a plant is chosen only by the card whose turn it is."""
    problems = []
    p = state.config.num_players
    seats = np.arange(p)[None, :]
    ended = state.done & ~state.truncated
    if ((state.phase == OVER) != ended).any() or ((state.set_index == C.SETS_PER_GAME) != ended).any():
        problems.append("a game is over exactly when three sets are played (phase 'over', set 4)")
    commit = live & (state.phase == COMMIT)
    wrong_turn = commit & (committed != (seats < state.to_move[:, None])).any(axis=1)
    if wrong_turn.any():
        problems.append(
            f"game {np.flatnonzero(wrong_turn)[0]}: while committing, exactly the seats before the one to move "
            "have a card committed"
        )
    choose = np.flatnonzero(live & (state.phase == CHOOSE))
    if len(choose):
        played = state.played[choose]
        card = played[np.arange(len(choose)), state.to_move[choose]]
        ladders, wildcards = (played == C.LADDER).sum(axis=1), (played == C.WILDCARD).sum(axis=1)
        fruits = ((played >= C.FRUIT_BASE) & (played < C.BASKET_BASE)).any(axis=1)
        highest_basket = np.where(played >= C.BASKET_BASE, played, NO_CARD).max(axis=1)
        lone_ladder = (card == C.LADDER) & (ladders == 1)
        lone_wildcard = (card == C.WILDCARD) & (ladders == 0) & (wildcards == 1)
        basket = (card >= C.BASKET_BASE) & (card == highest_basket) & (ladders + wildcards == 0) & ~fruits
        wrong = ~(lone_ladder | lone_wildcard | basket)
        if wrong.any():
            problems.append(
                f"game {choose[np.flatnonzero(wrong)[0]]}: a plant is chosen by a lone ladder, then a lone "
                "wildcard, then the highest basket once the fruits are harvested; the seat to move holds none of these"
            )
    return problems
