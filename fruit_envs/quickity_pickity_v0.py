"""Quickity Pickity (Oink Games 2022, Mashiu) as PettingZoo, Gymnasium and batched environments.

| | |
|---|---|
| Import | `from fruit_envs import quickity_pickity_v0` |
| Gymnasium id | `fruit_envs/QuickityPickity-v0` (single learner) / `gymnasium.make_vec(...)` (batched) |
| Actions | Discrete(43) |
| Agents | `player_0` ... `player_{n-1}`, n = 2..5 (the box says 2-5) |
| Observation | Box(0, 100, (O,), float32); O = 14 T + 68 + 148 n; T = 35 tiles (2 players) or 67 |
| Parallel API | yes: every player acts in every tick |

**Play.** 64 fruit tiles (32 types = 2 expressions x 4 colours x 4 shapes, 2 copies each) and 3
monkeys lie face down. All players race at once through the same cycle: flip a face-down tile, take
a face-up fruit into the hand, place it into one of their sets or start a new set. A set must share
one facial expression and one colour or one shape; a single wrong fruit makes the whole set worth
-10. When the third monkey turns up everyone stops; a fruit still in hand is not placed. The round's
marketplace card pays each set by its size (1 .. 7+) plus a bonus per bonus fruit; the richest
player (ties: most fruit; still tied: all of them) takes a card, and the first to 3 cards wins.

**Real time as ticks.** Each tick every player takes one step of the cycle, all at the same moment.
Every agent acts in every step of `parallel_env()`; the AEC env, the Gymnasium envs and the batched
rules collect the choices seat by seat (`player_0` first) and nobody's observation shows a choice
of the current tick, so the order changes nothing. Within a tick flips happen first: if they bring
the third monkey up, that tick's takes and places do not happen. Per-player phase:

* `flip` (at the start of a round and after placing): the only action is `flip`.
* `take` (after a flip): take a face-up fruit type, or `flip` another tile instead (declining).
* `place` (holding a fruit): into an own set, or as a new set.

Flipping is one action: face-down tiles are shuffled and indistinguishable, so the tile a player
turns is the next face-down slot of the shuffled layout - a uniformly random tile. Players flipping
in the same tick turn different tiles; only when more players flip than tiles lie face down do two
turn the same tile, and then both have revealed it (a tick used each). A take names a fruit type,
since copies are identical: when more players take a type than copies lie face up at the start of
the tick, the copies go to takers drawn uniformly at random from the game's seeded key
(`fruit_envs.core.rng`) and the other takes fail (the player stays in `take`). Play cannot stall:
every tick reveals, takes or places a tile, so a round lasts at most T + 2 x fruit ticks and games
are never truncated (`max_game_length` = rounds x ticks x players, with at most
n (rounds_to_win - 1) + 1 rounds).

**Observation** (blocks over seats list the observer first), named slices in
`rules.observation_layout(config)`:

* `slots` (T x 14): each tile slot as face down / gone (in a hand or a set) / the face-up tile
  (monkey, sweet, sour, 4 colours, 4 shapes) and whether it is this card's bonus fruit;
* `face_up` (32): face-up copies of each fruit type (what the take actions take);
* `phases` (n x 3): each player's phase, one-hot (zero once the game is over);
* `held` (n x 12): the fruit in each hand (hands are in plain view): holding, expression, colour,
  shape, bonus fruit;
* `sets` (n x 8 x 16): every set of every zone: exists, size, the 10 attribute bits present
  (2 expressions, 4 colours, 4 shapes), bonus fruit, broken, value on the card as (v+, v-) / 10;
* `players` (n x 5): sets started, fruit placed, money this round as (m+, m-) / 10, cards won;
* `card` (32): the round's card one-hot, its values for sizes 1..7+ as (v + 10) / 10, bonus colour
  and shape one-hot, bonus / 3;
* `monkeys` (3): monkeys face up (0, 1, 2) one-hot; `face_down` (1): share of tiles still face down.

Never shown: what lies under a face-down tile, the order of the marketplace pile, any player's
choice of the current tick.

**Action mask.** `action_mask` (int8): `flip` in phases flip and take; the face-up fruit types in
phase take; existing sets and (below the cap of 8 sets) a new set in phase place. `wait` is legal
only for a seat with nothing legal in its phase, which a live round never produces; it is the
parallel env's wait action.

**Actions.** `0` flip; `1..32` take a fruit of type `k - 1 = 16 expression + 4 colour + shape`
(expressions sweet, sour; colours red, yellow, green, purple; shapes round, long, bunch, drop);
`33..40` place into own set 0..7; `41` place as a new set; `42` wait.

**Rewards.** `reward="terminal"` (default): +1 to each player holding the most cards when the game
ends (all who reached `rounds_to_win` together), -1 to each other, 0 to all if everyone ties.
`reward="score"` (shaping): each placement pays the change of the placing player's money this
round (the set's new value minus its old value, plus the bonus for a bonus fruit); a round's
placements therefore add up to the money its sets earn, and nothing is paid back when money
resets. `rules.final_scores` is the cards won.

**Options.**

* `family` (default `False`): the rulebook's family rule, facial expressions are ignored.
* `two_player_tiles` (default `"half"`): with 2 players the rulebook returns "about half the fruit
  tiles to the box"; `"half"` plays one copy of each of the 32 fruit types and the 3 monkeys
  (35 tiles), `"all"` all 67. No effect with 3-5 players.
* `rounds_to_win` (1..5, default 3): marketplace cards that win the game.
* `reward` (`"terminal"` or `"score"`).

**Assumptions** (where the rulebook is silent; listed with their reasons in
`fruit_envs/games/quickity_pickity/components.py`): fruit types are 2 expressions x 4 colours x
4 shapes; 15 of the 16 marketplace cards are reconstructed (the rulebook's example card is exact);
a bonus fruit earns its bonus in a broken (-10) set too; at most 8 sets per zone; taking is optional
(a player in `take` may flip another tile instead, as one does at the table); the tick model above;
the fruit counted for the round tie-break are those in the sets; tied round winners take cards in
seat order from the starting player, the first of them taking the current card and starting the
next round; players reaching 3 cards in the same round share the win (they tied in money and fruit,
so no further tie-break can separate them); when players x `rounds_to_win` exceeds 16 an exhausted
pile is reshuffled from all 16 card faces.

**Global state** (PettingZoo's `state()` and `state_space`, for centralized critics such as
MAPPO's): `Box(n x O + S)` float32: every seat's observation, seat 0 first, then every field of
`rules.State` but the random key, raw (`fruit_envs.core.global_state.layout(game, config)` names
each slice). It is the referee's view and holds what no seat may see: the face-down tiles, the order
of the marketplace deck and the choices made this tick. Train a critic on it, never feed it to a
policy. Each agent's `info["action_mask"]` repeats its observation's mask (AgileRL reads it there).

**Illegal actions.** `raw_env()` raises `IllegalActionError` and leaves the game unchanged; `env()`
follows PettingZoo classic (the offender gets -1, the game ends, a warning is logged); the parallel
env does the same.

**Version history.** v0: first release.
"""

from __future__ import annotations

from fruit_envs.core.aec import FruitAECEnv, FruitParallelEnv, make_aec_env

GAME = "quickity_pickity"


def raw_env(num_players: int = 2, render_mode: str | None = None, **options) -> FruitAECEnv:
    """The AEC env without wrappers: illegal actions raise `IllegalActionError`."""
    return FruitAECEnv(GAME, num_players=num_players, render_mode=render_mode, **options)


def env(num_players: int = 2, render_mode: str | None = None, **options):
    """The AEC env wrapped like PettingZoo classic environments."""
    return make_aec_env(GAME, num_players=num_players, render_mode=render_mode, **options)


def parallel_env(num_players: int = 2, render_mode: str | None = None, **options) -> FruitParallelEnv:
    """Every player acts in every step: one step is one tick of the race."""
    return FruitParallelEnv(GAME, num_players=num_players, render_mode=render_mode, **options)
