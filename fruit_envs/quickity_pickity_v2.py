"""Quickity Pickity (Oink Games 2022, Mashiu) as PettingZoo, Gymnasium and batched environments.

| | |
|---|---|
| Import | `from fruit_envs import quickity_pickity_v2` |
| Gymnasium id | `fruit_envs/QuickityPickity-v2` (single learner) / `gymnasium.make_vec(...)` (batched) |
| Actions | Discrete(99) |
| Agents | `player_0` ... `player_{n-1}`, n = 2..5 (the box says 2-5) |
| Observation | Box(0, 100, (O,), float32); O = 419 + 21n + F(n + 15) [+ 64: hidden box]; F fruit in play; 1069 (2p) |
| Parallel API | yes: every player acts in every tick |

**Play.** 64 fruit tiles (32 types = 2 expressions x 4 colours x 4 shapes, 2 copies each) and 3
monkeys lie face down. All players race at once through the same cycle: flip a face-down tile, take
a face-up fruit into the hand, place it into one of their sets or start a new set ("You can build
any number of sets."). A set must share one facial expression and one colour or one shape; a single
wrong fruit makes the whole set worth -10. When the third monkey turns up everyone stops; a fruit
still in hand is not placed. The round's marketplace card pays each set by its size (1 .. 7+) plus
a bonus per bonus fruit; the richest player (ties: most fruit; still tied: all of them) takes a
card, and the first to 3 cards wins.

**Two players.** "Once only 2 players remain (not counting the monkeys), return about half the
fruit tiles to the box.": at setup a uniformly random half of the 64 fruit (32 tiles) goes back to
the box, unseen by everyone, for the whole game; the 3 monkeys stay (35 tiles). Which fruit are in
play is hidden and learned by flipping: the tiles are reshuffled every round, so a seat knows per
fruit type the most copies it has seen in one round, and in how many rounds it saw exactly one copy
(each such round doubles the odds that both copies are in play). Sets of 5, 6 and 7+ fruit can be
built when enough of a colour or shape is in play. Option `two_player_tiles` keeps the known half
(`"one_of_each"`) or all tiles (`"all"`).

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
every tick reveals, takes or places a tile, so a round lasts at most T + 2F ticks (T tiles, F fruit)
and games are never truncated (`max_game_length` = rounds x ticks x players, with at most
n (rounds_to_win - 1) + 1 rounds).

**What a seat knows** (the observation is a function of it, nothing more, nothing less; checked by
`fruit_envs.testing.check_game` against `picture.knowledge(view)`): the round's card; of the pile,
the cards shown as round cards since it was last shuffled and how many cards tied winners took face
down since (which card comes next is uniform over the rest); per fruit type the copies face up and
the copies taken into hands or sets; monkeys up; tiles still face down; with a hidden box, the fruit
seen in play in earlier rounds; every seat's phase, fruit in hand and sets; cards won; the round's
starting player; its own choice of this tick; the options. Each set is known by its size, the
attributes present (expressions, colours, shapes), its bonus fruit and its money: sets cannot be
rearranged and a set's future depends only on these (a fruit joins legally when the attributes stay
one expression and one colour or shape; the card pays by size, the bonus by bonus fruit), while the
fruit that left the middle are kept per type, so what may still lie face down stays known. Left out
because no rule reads them: where each tile lies (face-down slots are exchangeable and a take names
a type), round and tick numbers, which earlier round showed which card, and who has chosen this tick
(the order in which seats are asked is not part of the game). Seats are symmetric (no rule depends on
a seat's number), so every block over seats lists the observer first and the starting player is
given relative to it.

**Observation** blocks, in order (named slices in `rules.observation_layout(config)`):

* `card` (32): the round's card one-hot, its values for sizes 1..7+ as (v + 10) / 10, bonus colour
  and shape one-hot, bonus / 3;
* `pile` (17): the 16 cards, 1 when shown as a round card since the pile was last shuffled (the
  current card included); then the cards taken face down since;
* `face_up` (32): face-up copies of each fruit type (what the take actions take);
* `taken` (32): copies of each fruit type in hands or sets this round;
* `monkeys` (3): monkeys face up (0, 1, 2) one-hot (zero once the game is over);
* `face_down` (1): share of the tile slots still face down;
* `seen` (32 x 2, only with a hidden box): per fruit type, the most copies seen in one earlier round
  and the earlier rounds in which exactly one copy was seen;
* `phases` (n x 3): each player's phase, one-hot (zero once the game is over);
* `held` (n x 12): the fruit in each hand (hands are in plain view): holding, expression, colour,
  shape, bonus fruit;
* `sets` (F x (n + 15)): one row per set, the observer's sets first (row s is its set s, the target
  of action `33 + s`), then each other player's in seat order, empty rows last (every set holds a
  fruit, so F rows always suffice): owner one-hot, size, bonus fruit, broken, value on the card as
  (v+, v-) / 10, the 10 attribute bits present (2 expressions, 4 colours, 4 shapes);
* `players` (n x 5): sets started, fruit placed, money this round as (m+, m-) / 10, cards won;
* `starter` (n): the round's starting player, one-hot;
* `choice` (2): whether the observer has chosen this tick, and its choice as (action + 1) / 99;
* `options` (3): rounds_to_win / 5, family rule, hidden box;
* `gains` (99 x 3): per action, the observer's money gained and lost right now by it, as (g+, g-) / 10,
  and whether every one of its sets stays legal: a place action puts the held fruit into that set
  (new set: on its own); a take action is the fruit's best immediate placement (any own set, a broken
  one included, or a new set; "stays legal": it fits one of the observer's legal sets). Flip and
  wait: zeros. This is public arithmetic any player does at the table (the card's values and the
  sets in plain view), given so that a network need not learn set legality once per set row
  (`rules.action_gains`), like Fruit Picking's `plant_targets`.

Never shown: what lies under a face-down tile, which fruit are in the box, the order of the
marketplace pile, the cards taken face down, any other player's choice of the current tick.
`rules.redeal_hidden(state, seat, keys)` resamples exactly these from what the seat knows (the box
from its exact posterior), batched: the function a search agent calls to sample positions.

**Action mask.** `action_mask` (int8): `flip` in phases flip and take; the face-up fruit types in
phase take; the player's existing sets and a new set in phase place (a new set is always legal when
holding a fruit). `wait` is legal only for a seat with nothing legal in its phase, which a live
round never produces; it is the parallel env's wait action.

**Actions.** `0` flip; `1..32` take a fruit of type `k - 1 = 16 expression + 4 colour + shape`
(expressions sweet, sour; colours red, yellow, green, purple; shapes round, long, bunch, drop);
`33..96` place into own set 0..63 (64 = the most sets a zone can hold, one per fruit); `97` place
as a new set; `98` wait.

**Rewards.** `reward="terminal"` (default): +1 to each player holding the most cards when the game
ends (all who reached `rounds_to_win` together), -1 to each other, 0 to all if everyone ties.
`reward="score"` (shaping): each placement pays the change of the placing player's money this
round (the set's new value minus its old value, plus the bonus for a bonus fruit); a round's
placements therefore add up to the money its sets earn, and nothing is paid back when money
resets. `rules.final_scores` is the cards won. `rules.potential` (what `train_ppo --shaping` reads)
is a running score every player can count: 10 per card won plus this round's money.

**Truncation.** None: play cannot stall (above), so no game is ever truncated (`SPEC.truncation` is
None; 0 of 1,000 random or greedy games at 2-5 players,
`python -m fruit_envs.benchmarks.truncation --game quickity_pickity`).

**Options.**

* `family` (default `False`): the rulebook's family rule, facial expressions are ignored.
* `two_player_tiles` (default `"random_half"`): with 2 players the rulebook returns "about half the
  fruit tiles to the box"; `"random_half"` returns a uniformly random 32 of the 64 fruit unseen for
  the whole game, `"one_of_each"` plays one copy of each of the 32 types (the known half of v0: no
  set can exceed 4 fruit), `"all"` all 67 tiles. No effect with 3-5 players.
* `rounds_to_win` (1..5, default 3): marketplace cards that win the game.
* `reward` (`"terminal"` or `"score"`).

**Assumptions** (where the rulebook is silent; listed with their reasons in
`fruit_envs/games/quickity_pickity/components.py`): fruit types are 2 expressions x 4 colours x
4 shapes; 15 of the 16 marketplace cards are reconstructed (the rulebook's example card is exact);
a bonus fruit earns its bonus in a broken (-10) set too; "about half" of the fruit with 2 players is
exactly 32 tiles drawn at random; taking is optional (a player in `take` may flip another tile
instead, as one does at the table); the tick model above; the fruit counted for the round tie-break
are those in the sets; tied round winners take cards in seat order from the starting player, the
first of them taking the current card and starting the next round, the others drawing face down
from the pile unseen; players reaching 3 cards in the same round share the win (they tied in money
and fruit, so no further tie-break can separate them); when players x `rounds_to_win` exceeds 16 an
exhausted pile is reshuffled from all 16 card faces.

**Global state** (PettingZoo's `state()` and `state_space`, for centralized critics such as
MAPPO's): `Box(n x O + S)` float32: every seat's observation, seat 0 first, then every field of
`rules.State` but the random key, raw (`fruit_envs.core.global_state.layout(game, config)` names
each slice). It is the referee's view and holds what no seat may see: the face-down tiles, which
fruit lie in the box, the order of the marketplace pile, the cards taken face down and the choices
made this tick. Train a critic on it, never feed it to a policy. Each agent's `info["action_mask"]`
repeats its observation's mask (AgileRL reads it there). With `mask_in_observation=False` (any
constructor) the observation is the array alone and the mask is only in the info, as AgileRL's
multi-agent algorithms want.

**Illegal actions.** `raw_env()` raises `IllegalActionError` and leaves the game unchanged; `env()`
follows PettingZoo classic (the offender gets -1, the game ends, a warning is logged); the parallel
env does the same.

**Version history.**

* v2: the observation gains the `gains` block (public arithmetic per action, above); rules and
  actions unchanged. `quickity_pickity_v1` and `fruit_envs/QuickityPickity-v1` are retired.
* v1: any number of sets (64 set slots, "new set" always legal; actions 0..98); the two-player game
  returns a random hidden half of the fruit to the box (option `two_player_tiles`: `"random_half"`
  default, `"one_of_each"` the old fixed half, `"all"`); tied winners' extra cards are taken face
  down; the observation holds exactly what a seat knows (sets by size, attributes and bonus fruit,
  fruit taken per type, the pile, fruit seen in play, starting player, own choice, options; no tile
  slots). `quickity_pickity_v0` and `fruit_envs/QuickityPickity-v0` are retired.
* v0: first release (at most 8 sets per zone; one copy of each fruit type with 2 players).
"""

from __future__ import annotations

from fruit_envs.core.aec import pettingzoo_constructors

GAME = "quickity_pickity"

raw_env, env, parallel_env = pettingzoo_constructors(
    __name__,
    GAME,
    num_players=2,
    parallel_doc="Every player acts in every step: one step is one tick of the race.",
)
