"""Fruit Picking (2014, Jun-ichi Shinde) as PettingZoo, Gymnasium and batched environments.

| | |
|---|---|
| Import | `from fruit_envs import fruit_picking_v1` |
| Gymnasium id | `fruit_envs/FruitPicking-v1` (single learner) / `gymnasium.make_vec(...)` (batched) |
| Actions | Discrete(16) |
| Agents | `player_0` ... `player_{n-1}`, n = 2..4; `player_0` is the initial player |
| Observation | Box(0, 30, (O,), float32); O = 301 + 35 n (371 for 2 players, 406 for 3, 441 for 4) |
| Parallel API | no: turns are sequential |

**Play.** Every player has the same farm: the House, then six cards (rain and five fruits) in a
shuffled order shared by all, clockwise. A turn plants all seeds of one card (not the House), one
per card clockwise; the last card sown is the target. A House target means planting again; rain
means watering; a fruit means watering (seeds from storage, as many as the card shows) or buying a
market card of that fruit with seeds from the House (fruits on the card + 3/2/1/0 by slot from the
stack side), which also returns the target's seeds to storage. With no seeds on any farm card a
player returns up to 3 House seeds to storage and puts 1 seed on each of the first three cards.
The game ends after the round in which someone completes a set (Variety: five kinds; Greedy: four
of a kind; Smiley: three pairs; Family: three of a kind and a pair) or the last stack card is drawn.

**What a seat knows.** The observation of a seat is a function of what that seat may know under
the rules, nothing more and nothing less (checked both ways by `fruit_envs.testing.check_game`
against the seat's view, `fruit_envs.games.fruit_picking.picture.view`):

* the table: the farm order, every farm's seeds and storage, the market and its prices, every
  player's market cards, whose turn it is and in which phase, the target, rounds played, whether
  this is the last round;
* its place in the turn order: its seat (`player_0` is the initial player and a round ends after
  the last seat, so completing a set ends the game at once only for the last seat);
* of the face-down cards (the stack, and a pending two-card draw): their composition, which is
  public (the 30 cards less those face up); the stack's order is hidden;
* the public history that still matters: which cards were put under the stack (market operation)
  and in what order, so where each one lies, and who knows each of them (its drawer, earlier
  knowers, everyone when its umbrella was shown on drawing); likewise for a pending two-card draw;
* its private knowledge: the face of every such card it knows (perfect recall: what it drew, what
  another player's draw brought back up that it had put under, what an umbrella showed everyone).

ASSUMED where the rulebook is silent (also in `components.py`): the card put under the stack goes
face down, seen by its drawer only, while everyone sees that it went under; players remember what
they saw; an umbrella shown by a two-card draw identifies the card (one umbrella per kind).
What can no longer matter is left out: which owned market cards carry an umbrella (the composition
of the face-down cards, which is what that changes, is observed).

**Observation**, block by block (named slices in `rules.observation_layout(config)`; blocks over
players list the observer first, then clockwise; knower flags likewise):

| block | size | values |
|---|---|---|
| `seat` | n | the observer's seat, one-hot (0 = the initial player) |
| `to_move` | n | whose turn, relative to the observer, one-hot (zero once the game is over) |
| `turns_left` | n | turns still to come in this round after the one in progress, one-hot 0..n-1 |
| `phase` | 4 | plant, target, draw, keep, one-hot (zero once over) |
| `target` | 7 | target position of the turn, one-hot |
| `last_round` | 1 | the end was triggered: this round is the last |
| `round` | 1 | rounds played / max_rounds |
| `farm_order` | 36 | type of farm positions 1..6 (rain + 5 fruits), one-hot |
| `seeds` | 7 n | seeds on every farm card of every player |
| `storage` | n | seeds in each storage |
| `bought` | 5 n | market cards owned, per fruit |
| `sets` | 4 n | sets completed (variety, greedy, smiley, family) |
| `market` | 44 | each of the 4 slots (slot 0 next to the stack): 10 card codes (5 fruits, 5 umbrella cards) or empty |
| `price` | 4 | price of each slot's card (0 if empty) |
| `stack_size` | 1 | cards in the stack / 30 |
| `face_down` | 10 | composition of the stack and a pending two-card draw, per card code |
| `under_depth` | 1 | cards above the first card put under the stack / 30 |
| `under_cards` | 130 | cards put under the stack (up to 13), next first: code one-hot where the observer knows it |
| `under_knowers` | 13 n | who knows each of them, a flag per player |
| `drawn` | 20 | the two cards of a pending two-card draw: card code one-hot where the observer knows it |
| `drawn_knowers` | 2 n | who knows each drawn card |
| `plant_targets` | 42 | for each of the observer's cards 1..6, the position planting it reaches, one-hot (1) |

(1) Zero for a card without seeds; public arithmetic, given so a network need not learn to count seeds.

At most 13 cards put under the stack can lie in it at once: each market operation shrinks the stack
by one and puts one card under, so they are at most half of the 27 cards left after setup; and they
always lie below every card nobody has seen, in the order they went under.

**Actions.** `0..5` plant from farm position 1..6; `6` no-seeds refill (forced); `7` water; `8..11`
buy the card in market slot 0..3 (slot 0 next to the stack); `12` draw one card; `13` pay 1 seed
and draw two (market operation); `14, 15` keep the first / second drawn card in the market.

**Rewards.** `reward="terminal"` (default): +1 each winner, -1 each other player (0 to all if all
share the win); nothing when a game is truncated. `reward="score"`: the fruits on each market card
bought, when it is bought.

**Truncation** (the contract of every game: `fruit_envs.core.spec.outcome_rewards`). Players may
water for ever, so the engine cuts a game off, as a safety net and not as a rule, after `max_rounds`
rounds (default 100) or 12 decisions per turn on average (House replanting loops): `truncated=True`,
no outcome, no winner, counted as unfinished by evaluations. With the defaults no random or greedy
game reaches a cap (0 of 1,000 at 2, 3 and 4 players each;
`python -m fruit_envs.benchmarks.truncation --game fruit_picking --games 1000`).

**Winner.** A set completer; between several, most fruits on market cards; then most seeds on farm
cards including the House; otherwise a shared win. If nobody completed a set (the stack ran out) the
same tie-breaks decide among all players.

**Options.** `umbrella` (drawing an umbrella card - setup included - makes every player move seeds
from storage onto their farm card of that fruit, as many as it shows), `market_operation` (after a
purchase the drawer may pay 1 House seed to draw two cards, keep one in the market and put the other
at the bottom of the stack), `beginner` (3 market slots, no added price, the game ends when a player
owns 5 cards), `umbrella_trigger` ("drawn" or "placed": which cards of a two-card draw trigger their
umbrella), `max_rounds` (default 100: an unfinished game is truncated). The assumptions behind these
readings are listed in `fruit_envs/games/fruit_picking/components.py`.

**Global state** (PettingZoo's `state()` and `state_space`, for centralized critics such as
MAPPO's): `Box(n x O + S)` float32: every seat's observation, seat 0 first, then every field of
`rules.State` but the random key, raw (`fruit_envs.core.global_state.layout(game, config)` names
each slice). It is the referee's view and holds what no seat may see: the order of the stack and the
faces of the cards put under it or drawn two at a time. Train a critic on it, never feed it to a
policy. Each agent's `info["action_mask"]` repeats its observation's mask (AgileRL reads it there).
With `mask_in_observation=False` (any constructor) the observation is the array alone and the mask
is only in the info, as AgileRL's multi-agent algorithms want.

**Parallel env.** `parallel_env()` serves clients that take parallel envs only (AgileRL, BenchMARL):
each step the seat to move makes one decision; every other seat sends the wait action this env adds,
action 16 (one past the game's last), the only one its mask allows, so its spaces have 17 actions.

**Illegal actions.** `raw_env()` raises `IllegalActionError` and leaves the game unchanged; `env()`
follows PettingZoo classic (the offender gets -1, the game ends, a warning is logged).

**Resampling.** `rules.redeal_hidden(state, seat, keys)` draws, for a batch of games at once, a
state the seat cannot tell apart from the true one (the face-down cards it does not know, shuffled
among their places, with what it saw kept): the function a search agent calls to sample from its
information state.

**Version history.** v0: first release. v1: the observation says the observer's seat and the turns
left in the round, and what the seat knows of the stack: the cards put under it, in order, each with
who knows it (several knowers kept), their faces where the seat knows them, umbrellas shown by a
two-card draw known to all; `drawn_known_by`/`stack_known_by` in descriptions. Rules unchanged.
"""

from __future__ import annotations

from fruit_envs.core.aec import pettingzoo_constructors

GAME = "fruit_picking"

raw_env, env, parallel_env = pettingzoo_constructors(
    __name__,
    GAME,
    num_players=2,
    parallel_doc="One decision per step: the seat to move acts, every other seat sends the added wait action.",
)
