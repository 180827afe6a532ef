"""Juicy Fruits score attack, OUR OWN single-player mode (not the official solo rules), as PettingZoo and Gymnasium.

| | |
|---|---|
| Import | `from fruit_envs import juicy_fruits_solo_v1` |
| Gymnasium id | `fruit_envs/JuicyFruitsSolo-v1` (single agent) / `gymnasium.make_vec(...)` (batched) |
| Actions | Discrete(66), as Juicy Fruits |
| Agents | `player_0` |
| Observation | Box(0, 100, (2592,), float32); 2622 with `score_board="juicy"` |
| Rewards | the points scored (per-step score deltas); the return is the game's score |

The official solo rules are on a supplementary sheet we do not have; this mode is ours, for
single-agent RL: one island, the 2-player business display refreshed by a rival at the end of every
round, the end when the license marker reaches X or after `rounds` rounds (default 15). Rules,
decisions, actions, observation and options are documented on the Juicy Fruits page
(`fruit_envs.juicy_fruits_v2`, section "Score attack"); every assumption is in
`fruit_envs/games/juicy_fruits/components.py`.

The round limit is a rule of this mode: a game that reaches it is terminated (stalls scored), never
truncated (`SPEC.truncation` is None; the Juicy Fruits round cap and frozen-game cut-off do not apply).

**Global state** (PettingZoo's `state()` and `state_space`): the observation, then every field of
`rules.State` but the random key, raw (`fruit_envs.core.global_state.layout(game, config)` names
each slice); nothing is hidden after setup. `info["action_mask"]` repeats the observation's mask.
With `mask_in_observation=False` (any constructor) the observation is the array alone and the mask
is only in the info, as AgileRL's multi-agent algorithms want. `parallel_env()` serves clients that
take parallel envs only: the one seat acts every step.

**Version history.** v0: first release. Juicy Fruits v1 (issue 16: no outcome at a cut-off, a
100-round cap, frozen games cut off) changes nothing here, so the score attack stays v0.
v1 (issue 17): the observation gains Juicy Fruits v2's per-action hints block (66 x 20); rules and
rewards are unchanged.
"""

from __future__ import annotations

from fruit_envs.core.aec import pettingzoo_constructors

GAME = "juicy_fruits_solo"

raw_env, env, parallel_env = pettingzoo_constructors(
    __name__,
    GAME,
    num_players=1,
    parallel_doc="The one seat acts every step (the parallel API for clients that only take it).",
)
