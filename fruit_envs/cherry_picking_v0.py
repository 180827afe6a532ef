"""Cherry Picking (Zoch 2014, Jeroen Geenen) as PettingZoo, Gymnasium and batched environments.

| | |
|---|---|
| Import | `from fruit_envs import cherry_picking_v0` |
| Gymnasium id | `fruit_envs/CherryPicking-v0` (single learner) / `gymnasium.make_vec(...)` (batched) |
| Actions | Discrete(60) |
| Agents | `player_0` ... `player_{n-1}`, n = 2..6 (5-6 players: our assumption, no cards removed) |
| Observation | Box(0, 100, (O,), float32); O = 430 + 108 n (646 for 2 players) |
| Parallel API | yes: card choices are simultaneous |

**Play.** Six plants each have one card below them; hands are dealt from what is left. Every
player commits a hand card face down; all are revealed and resolved in rulebook order: a lone ladder
harvests from a plant of its player's choice (several ladders go to their players' piles), then a
lone wildcard likewise, then fruits from their own plant (higher value first), then baskets
(highest first, each choosing a plant). A harvesting player takes the card below the plant and
leaves the played card there. Hands empty -> the set is scored; three sets make a game.

**Observation** (seat-relative: blocks over seats list the observer first), named slices in
`rules.observation_layout(config)`: own hand counts (53); own committed card (53); card under each
plant, one-hot (6 x 53); every harvest pile of this set, counts (n x 53) - harvests happen face up,
so a player with perfect memory knows every pile; cards revealed this trick and not yet resolved
(n x 53); phase (commit, choose); who chooses (n); set number (3); totals of finished sets / 100
(n); cards left in the observer's hand / hand size. Other hands, the card set aside and other
seats' committed cards before the reveal never appear.

**Action mask.** `action_mask` (int8) marks the legal actions: hand cards while committing, the six
plants when choosing, only `wait` for a seat with nothing to decide (parallel env).

**Actions.** `0..52` play a card type (0 ladder, 1 wildcard, 2..43 fruit `2 + 7 * sort + value` with
sorts pineapple, pear, banana, cherry, orange, grape, 44..52 baskets 0, 2, 3, ..., 9); `53..58`
harvest at plant 0..5 (same sort order); `59` wait.

**Rewards.** `reward="terminal"` (default): +1 each player with the highest three-set total, -1
each other, 0 to all if everyone ties. `reward="score"`: each set's score when it ends (shaping).

**Truncation.** None: three sets of a fixed number of tricks always end the game by its rules, so it
is never truncated (`SPEC.truncation` is None; 0 of 1,000 random or greedy games at 2-6 players,
`python -m fruit_envs.benchmarks.truncation --game cherry_picking`).

**Scoring.** Card values + ladders squared + 10 per complete set of the six sorts + same-sort bonus
(4 of a sort 10, 5 of a sort 20); a card counts for both bonuses; each wildcard stands for exactly
one fruit, assigned to maximise the score. `rules.score_piles(counts)` scores any pile.
`same_sort_bonus="repeat"` (default) pays a sort's groups of 4 and 5 more than once (9 cherries =
30), `"once"` at most one per sort.

**Global state** (PettingZoo's `state()` and `state_space`, for centralized critics such as
MAPPO's): `Box(n x O + S)` float32: every seat's observation, seat 0 first, then every field of
`rules.State` but the random key, raw (`fruit_envs.core.global_state.layout(game, config)` names
each slice). It is the referee's view and holds what no seat may see: every hand, the card set aside
and the cards committed but not yet revealed. Train a critic on it, never feed it to a policy. Each
agent's `info["action_mask"]` repeats its observation's mask (AgileRL reads it there). With
`mask_in_observation=False` (any constructor) the observation is the array alone and the mask is
only in the info, as AgileRL's multi-agent algorithms want.

**Illegal actions.** `raw_env()` raises `IllegalActionError` and leaves the game unchanged; `env()`
follows PettingZoo classic (the offender gets -1, the game ends, a warning is logged); the parallel
env does the same.

**Version history.** v0: first release.
"""

from __future__ import annotations

from fruit_envs.core.aec import pettingzoo_constructors

GAME = "cherry_picking"

raw_env, env, parallel_env = pettingzoo_constructors(
    __name__,
    GAME,
    num_players=2,
    parallel_doc="All players commit their cards in one step; plant choices are taken one player per step.",
)
