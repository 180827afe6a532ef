"""Juicy Fruits score attack: OUR OWN single-player mode, registered as a game of its own.

Not the official solo mode: those rules are on a supplementary sheet we do not have (COMPONENTS.md
§4.9). This is a single-agent benchmark built from the Juicy Fruits rules: one island, the 2-player
business display refreshed by a rival at the end of every round, the game over when the license
marker reaches X or after `rounds` rounds; the reward is the points scored. Every rule of the mode
is ASSUMED and listed in `fruit_envs/games/juicy_fruits/components.py`.

Design: the mode needs no rules of its own beyond what `fruit_envs.games.juicy_fruits.rules`
already does for a game of one player (`is_solo`), so this module only declares a second `GameSpec`
(own id, Gymnasium id `fruit_envs/JuicyFruitsSolo-v1`, one player, options of
`JuicyFruitsSoloConfig`) and a `State` subclass carrying that id (saved states and the AEC env tell
the two games apart); every function of the rules contract is Juicy Fruits' own. The core stays
game-agnostic: to the registry, the adapters, the training script and the tests this is just
another game with one seat.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fruit_envs.core.spec import Config, GameSpec
from fruit_envs.games.juicy_fruits import rules as R
from fruit_envs.games.juicy_fruits import text as T
from fruit_envs.games.juicy_fruits.rules import (  # noqa: F401  (the rules contract, shared with Juicy Fruits)
    NUM_ACTIONS,
    OBSERVATION_HIGH,
    PHASE_NAMES,
    JuicyFruitsSoloConfig,
    acting,
    action_to_string,
    advance,
    describe,
    field_bounds,
    final_scores,
    invariants,
    legal_mask,
    max_game_length,
    observation_layout,
    observation_shape,
    observe,
    redeal_hidden,
    render,
    reward_bounds,
    step,
    string_to_action,
    winners,
)


@dataclass
class State(R.State):
    """A batch of score attacks: Juicy Fruits' state with one seat, under this game's id."""

    GAME = "juicy_fruits_solo"


SPEC = GameSpec(
    id="juicy_fruits_solo",
    name="Juicy Fruits score attack",
    env_name="JuicyFruitsSolo",
    version=1,
    player_counts=(1,),
    default_num_players=1,
    config_cls=JuicyFruitsSoloConfig,
    num_actions=NUM_ACTIONS,
    observation_dtype=np.dtype(np.float32),
    chance=True,  # setup, and the display refilled from the face-down pile at the end of every round
    hidden_information=False,  # the pile's contents are public (the rest of the 23 or 24 tokens); its order is drawn
    simultaneous=False,
    rules_module=__name__,
    capabilities=("PHASE_NAMES", "advance", "field_bounds"),
)


def init(config: Config, keys: np.ndarray) -> State:
    """`len(keys)` score attacks, each from its own key."""
    if not isinstance(config, JuicyFruitsSoloConfig):
        raise ValueError(f"the score attack needs a JuicyFruitsSoloConfig (SPEC.make_config()), got {config!r}")
    return State(config=config, **R.init(config, keys).arrays())


def from_description(d: dict) -> State:
    """The batch-of-1 score attack `describe` pictured (see Juicy Fruits' `from_description`)."""
    return T.from_description(d, SPEC, State)


__all__ = list(R.__all__)  # the same contract, over the score attack's State and init
