"""Fruit Picking (2014, Jun-ichi Shinde) as PettingZoo, Gymnasium and batched environments.

| | |
|---|---|
| Import | `from fruit_envs import fruit_picking_v0` |
| Gymnasium id | `fruit_envs/FruitPicking-v0` (single learner) / `gymnasium.make_vec(...)` (batched) |
| Actions | Discrete(16) |
| Agents | `player_0` ... `player_{n-1}`, n = 2..4; `player_0` is the initial player |
| Observation | Box(0, 30, (O,), float32); O = 180 + 18 n (216 for 2 players) |
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

**Observation** (named slices in `rules.observation_layout(config)`; blocks over players list the
observer first): farm order (6 x 6 one-hot); seeds on every farm card of every player (n x 7);
storages (n); market slots (4 x 11 one-hot: 10 card codes or empty) and their prices (4); market
cards owned per kind (n x 5); the public composition of the unseen cards (stack plus a pending
two-card draw, 10); cards the observer put at the bottom of the stack (10); the observer's own two
drawn cards (2 x 10); stack size / 30; phase (plant, target, draw, keep); target position (7);
whose turn (n); sets completed by each player (n x 4); last-round flag; rounds / max_rounds; the
target position planting each of the observer's cards 1..6 would reach (6 x 7 one-hot, zero for a
card without seeds) - public arithmetic, given so a network need not learn to count seeds.
The stack's order and what another player saw in a two-card draw never appear.

**Actions.** `0..5` plant from farm position 1..6; `6` no-seeds refill (forced); `7` water; `8..11`
buy the card in market slot 0..3 (slot 0 next to the stack); `12` draw one card; `13` pay 1 seed
and draw two (market operation); `14, 15` keep the first / second drawn card in the market.

**Rewards.** `reward="terminal"` (default): +1 each winner, -1 each other player (0 to all if all
share the win); nothing when a game is truncated. `reward="score"`: the fruits on each market card
bought, when it is bought.

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
each slice). It is the referee's view and holds what no seat may see: the order of the market stack.
Train a critic on it, never feed it to a policy. Each agent's `info["action_mask"]` repeats its
observation's mask (AgileRL reads it there).

**Illegal actions.** `raw_env()` raises `IllegalActionError` and leaves the game unchanged; `env()`
follows PettingZoo classic (the offender gets -1, the game ends, a warning is logged).

**Version history.** v0: first release.
"""

from __future__ import annotations

from fruit_envs.core.aec import FruitAECEnv, make_aec_env

GAME = "fruit_picking"


def raw_env(num_players: int = 2, render_mode: str | None = None, **options) -> FruitAECEnv:
    """The AEC env without wrappers: illegal actions raise `IllegalActionError`."""
    return FruitAECEnv(GAME, num_players=num_players, render_mode=render_mode, **options)


def env(num_players: int = 2, render_mode: str | None = None, **options):
    """The AEC env wrapped like PettingZoo classic environments."""
    return make_aec_env(GAME, num_players=num_players, render_mode=render_mode, **options)
