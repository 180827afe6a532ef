"""Ray RLlib `MultiAgentEnv` over any registered game (needs the `distributed` extra).

    from fruit_envs.rllib_env import FruitMultiAgentEnv
    env = FruitMultiAgentEnv({"game": "cherry_picking", "num_players": 3})

Written once for every game, like the PettingZoo AEC env: one game (a batch of one) driven by its
rules, agents `player_0..player_{P-1}`.

* Turns. Only the seat to move receives an observation, so RLlib asks only that agent for an
  action; every step takes exactly one action (one env step = one decision). Simultaneous phases
  (Cherry Picking's commit) are played seat by seat, as the rules collect them: nobody's
  observation shows another's pending choice.
* Observation. `{"observations": float32 (O,), "action_mask": float32 (A,)}` with 1.0 = legal, the
  Dict form RLlib's `ActionMaskingTorchRLModule` (new API stack) reads: it masks the logits with
  `log(action_mask)`, so an illegal action is never sampled.
* Rewards. What each seat earns accumulates and is delivered when that seat next receives an
  observation (its next decision) or when the game ends, never to another seat. Over a game each
  seat's delivered rewards sum to what the rules paid it (with terminal rewards: +1 winner, -1
  loser, 0 all round in a full draw).
* Episode end. When the game ends every seat gets its final observation and remaining reward in
  one step, with `terminateds["__all__"]` set for all at once when the rules ended it, or
  `truncateds["__all__"]` when a cap cut it off (then no outcome is in the rewards: the contract of
  `fruit_envs.core.spec.outcome_rewards`; the final infos say `truncated`).
* Illegal actions (a bug: the masking module never picks one). `illegal_action="lose"` (default)
  follows PettingZoo classic: the offender gets `illegal_reward`, the game ends, and the final
  infos count it (`info["illegal_actions"]`, read by the training script's metrics);
  `illegal_action="raise"` raises `IllegalActionError` and changes nothing. Something that is not an
  action at all (a bool, float, string, or an id outside `0..A-1`) raises `InvalidActionError` in
  either mode, as in every API.

Env config keys (RLlib passes one dict): `game`, `num_players`, `illegal_action`, `illegal_reward`,
`render_mode` ("ansi"), and any game option (`reward="score"`, `same_sort_bonus="once"`, ...).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

try:
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
except ImportError as error:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "fruit_envs.rllib_env needs Ray RLlib: pip install 'fruit_envs[distributed]' (or ./dev setup)"
    ) from error

from fruit_envs.core import rng as frng
from fruit_envs.core import validate
from fruit_envs.core.errors import IllegalActionError, ResetNeededError, StateError
from fruit_envs.core.rules_api import phase_name
from fruit_envs.core.spec import get_spec

OBS_KEY, MASK_KEY = "observations", "action_mask"  # the keys ActionMaskingTorchRLModule reads


def observation_space(spec, config) -> gymnasium.spaces.Dict:
    """The Dict space of every agent: the game's observation and a float 0/1 action mask."""
    return gymnasium.spaces.Dict(
        {
            MASK_KEY: gymnasium.spaces.Box(0.0, 1.0, shape=(spec.num_actions,), dtype=np.float32),
            OBS_KEY: gymnasium.spaces.Box(
                0.0, spec.rules.OBSERVATION_HIGH, shape=spec.observation_shape(config), dtype=np.float32
            ),
        }
    )


class FruitMultiAgentEnv(MultiAgentEnv):
    """One game as an RLlib multi-agent env: the seat to move observes and acts, rewards wait for their seat."""

    metadata = {"render_modes": ["ansi"]}

    @property
    def game_state(self):
        """The batched state of the one game (batch of 1), as `game_state` of the PettingZoo and Gymnasium
        envs; `state` is the same object (RLlib has no `state()` method to clash with)."""
        return self.state

    def __init__(self, config: dict | None = None):
        super().__init__()
        options = dict(config or {})  # RLlib's EnvContext is a dict with extra attributes
        game = options.pop("game", "cherry_picking")
        num_players = options.pop("num_players", None)
        self.illegal_action = options.pop("illegal_action", "lose")
        self.illegal_reward = float(options.pop("illegal_reward", -1.0))
        self.render_mode = options.pop("render_mode", None)
        if self.illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {self.illegal_action!r}")
        if self.render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {self.render_mode!r}")
        self.game_spec = get_spec(game)
        self.config = self.game_spec.make_config(num_players, **options)
        self.possible_agents = [f"player_{k}" for k in range(self.config.num_players)]
        self.agents = self.possible_agents[:]
        space = observation_space(self.game_spec, self.config)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(self.possible_agents, gymnasium.spaces.Discrete(self.game_spec.num_actions))
        self._seed_rng = np.random.default_rng()
        self.state = None
        self.pending = np.zeros(self.config.num_players, dtype=np.float64)  # earned, not yet delivered
        self.illegal_actions = 0  # in the current game

    @property
    def rules(self):
        """The game's rules module (a property: modules do not pickle, and Ray pickles envs)."""
        return self.game_spec.rules

    # -- helpers ---------------------------------------------------------------------------------

    def _observation(self, seat: int, mask: np.ndarray | None = None) -> dict[str, np.ndarray]:
        if mask is None:
            mask = self.rules.legal_mask(self.state, seat)[0]
        return {
            MASK_KEY: mask.astype(np.float32),
            OBS_KEY: self.rules.observe(self.state, seat)[0].astype(np.float32, copy=False),
        }

    def _observe_mover(self) -> tuple[str, dict[str, np.ndarray]]:
        """The seat to move and its observation; its mask is kept to check the action it sends."""
        seat = int(self.state.to_move[0])
        self._mover_mask = self.rules.legal_mask(self.state, seat)[0]
        return self.possible_agents[seat], self._observation(seat, self._mover_mask)

    def _require_reset(self, what: str) -> None:
        if self.state is None:
            raise ResetNeededError(self.game_spec.name, what)

    def _phase(self) -> str:
        return phase_name(self.game_spec, self.state) or "play"

    def _deliver(self, seats) -> dict[str, float]:
        rewards = {self.possible_agents[k]: float(self.pending[k]) for k in seats}
        self.pending[list(seats)] = 0.0
        return rewards

    # -- the RLlib API ---------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = validate.check_seed(seed)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        key = frng.keys_from_seed(int(self._seed_rng.integers(0, 2**63)), 1)
        return self._start(self.rules.init(self.config, key))

    def load_state(self, state) -> tuple[dict, dict]:
        """Continue from a given batch-of-1 state (tests, hand-made positions); returns `reset`'s pair."""
        if getattr(state, "GAME", None) != self.game_spec.id:
            raise StateError(
                f"load_state: expected a {self.game_spec.name} state ({self.game_spec.id}), "
                f"got {type(state).__name__} of {getattr(state, 'GAME', None)!r}"
            )
        validate.check_state(state, "load_state", config=self.config, batch_size=1)
        return self._start(state.copy())

    def _start(self, state):
        self.state = state
        self.agents = self.possible_agents[:]
        self.pending[:] = 0.0
        self.illegal_actions = 0
        name, observation = self._observe_mover()
        return {name: observation}, {name: {}}

    def step(self, action_dict: dict[str, Any]):
        self._require_reset("step()")
        if self.state.done[0]:
            raise RuntimeError(f"{self.game_spec.name}: the game is over; call reset()")
        seat = int(self.state.to_move[0])
        agent = self.possible_agents[seat]
        if not isinstance(action_dict, dict) or list(action_dict) != [agent]:
            shown = list(action_dict) if isinstance(action_dict, dict) else repr(action_dict)
            raise ValueError(f"expected a dict with an action for {agent!r} only (the seat to move), got {shown}")
        a = validate.as_action(
            action_dict[agent], self.game_spec.num_actions, f"{self.game_spec.name}: action of {agent}"
        )
        mask = self._mover_mask
        if not mask[a]:
            if self.illegal_action == "raise":
                raise IllegalActionError(a, np.flatnonzero(mask), self._phase(), player=agent, game=self.game_spec.name)
            return self._end_by_illegal_action(seat)
        self.state, rewards = self.rules.step(self.state, np.array([a]))
        self.pending += rewards[0]
        if self.state.done[0]:
            return self._end_of_game(truncated=bool(self.state.truncated[0]))
        name, observation = self._observe_mover()
        return (
            {name: observation},
            self._deliver([int(self.state.to_move[0])]),
            {"__all__": False},
            {"__all__": False},
            {name: {}},
        )

    def _end_of_game(self, truncated: bool, illegal_by: str | None = None):
        """Every seat's final observation and remaining reward, and `__all__` for everyone at once."""
        seats = range(self.config.num_players)
        observations = {self.possible_agents[k]: self._observation(k) for k in seats}
        rewards = self._deliver(seats)
        terminated = not truncated
        terminateds = {**dict.fromkeys(self.possible_agents, terminated), "__all__": terminated}
        truncateds = {**dict.fromkeys(self.possible_agents, truncated), "__all__": truncated}
        scores = np.asarray(self.rules.final_scores(self.state))[0]
        infos = {
            name: {
                "illegal_actions": self.illegal_actions,
                "illegal_by": illegal_by,
                "score": int(scores[k]),
                "truncated": truncated,
            }
            for k, name in enumerate(self.possible_agents)
        }
        return observations, rewards, terminateds, truncateds, infos

    def _end_by_illegal_action(self, seat: int):
        """PettingZoo classic: the offender gets `illegal_reward`, the others 0, and the game ends."""
        self.illegal_actions += 1
        self.pending[:] = 0.0
        self.pending[seat] = self.illegal_reward
        self.state = self.state.copy()
        self.state.done[0] = True
        return self._end_of_game(truncated=False, illegal_by=self.possible_agents[seat])

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        self._require_reset("render()")
        return self.rules.render(self.state, 0)


class FruitEpisodeMetrics(RLlibCallback):
    """Adds `illegal_actions` and `truncated_games` (sums per training iteration) to RLlib's env-runner metrics.

    `FruitMultiAgentEnv` ends a game at an illegal action and counts it in every seat's final
    info, and says there whether a cap cut the game off, so finished episodes are the complete record.
    """

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        last_infos = [info for info in episode.get_infos(-1).values() if info]
        count = max((info.get("illegal_actions", 0) for info in last_infos), default=0)
        metrics_logger.log_value("illegal_actions", int(count), reduce="sum")
        truncated = any(info.get("truncated", False) for info in last_infos)
        metrics_logger.log_value("truncated_games", int(truncated), reduce="sum")
