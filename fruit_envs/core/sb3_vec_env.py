"""Stable-Baselines3 `VecEnv` over the batched rules (needs the `train` extra).

One numpy step for all N games; `env_method("action_masks")` returns the `(N, A)` masks of the
observations just returned, which is what sb3-contrib's MaskablePPO reads.
"""

from __future__ import annotations

import time

import numpy as np

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as error:  # exercised only without the extra
    raise ImportError(
        f"fruit_envs.core.sb3_vec_env needs Stable-Baselines3 ({error}): pip install 'fruit_envs[train]'"
    ) from error

from fruit_envs.core import validate
from fruit_envs.core.engine import LearnerBatch, OpponentArg
from fruit_envs.core.gym_env import _spaces
from fruit_envs.core.shaping import score_margin
from fruit_envs.core.spec import get_spec


class FruitSB3VecEnv(VecEnv):
    """N games, learner seat vs opponents, same-step autoreset with `terminal_observation` in infos;
    `record=PATH` appends every finished game to a JSON-lines file.

    `shaping=c` adds potential-based shaping (Ng, Harada and Russell, 1999) to the learner's reward:
    `c * (gamma * phi(next) - phi(now))`, phi being the learner's running score margin (its score minus
    the best other seat's, from the rules' `potential` or `final_scores`) and 0 once a game is over.
    It densifies the signal without changing which policies are optimal; `shaping_gamma` must equal
    the learner's discount. Episode returns in the infos stay the unshaped ones.

    A game ended by its rules has `TimeLimit.truncated=False` and its reward holds the outcome; a game
    cut off by a cap (truncated, see `fruit_envs.core.spec.outcome_rewards`) has `TimeLimit.truncated=True`
    and a reward without outcome, so SB3 bootstraps from `terminal_observation` instead. Every finished
    game's info has `outcome` (+1 win, -1 loss, 0 draw or truncated) and `is_success` (a win).

    `illegal_action="replace"` (see `fruit_envs.core.gym_env.FruitEnv`) plays a legal action for an illegal one,
    less `illegal_penalty`; every info then has `illegal_action_replaced` and `played_action`.
    """

    def __init__(
        self,
        game: str,
        num_envs: int = 64,
        num_players: int | None = None,
        opponent: OpponentArg = "random",
        seat: int | None = None,
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        record=None,
        shaping: float = 0.0,
        shaping_gamma: float = 1.0,
        illegal_penalty: float = 0.0,
        **options,
    ):
        if not np.isfinite(shaping) or not 0.0 <= shaping_gamma <= 1.0:
            raise ValueError(
                f"shaping must be a finite number and shaping_gamma in [0, 1], got {shaping}, {shaping_gamma}"
            )
        self.shaping, self.shaping_gamma = float(shaping), float(shaping_gamma)
        self.spec_ = get_spec(game)
        self.config = self.spec_.make_config(num_players, **options)
        self.batch = LearnerBatch(
            self.spec_,
            self.config,
            num_envs,
            opponent,
            seat,
            illegal_action,
            illegal_reward,
            record=record,
            record_source="FruitSB3VecEnv",
            illegal_penalty=illegal_penalty,
        )
        obs_space, act_space = _spaces(self.spec_, self.config)
        self.render_mode = None
        super().__init__(self.batch.num_envs, obs_space, act_space)
        self._actions = None
        self._masks = None
        self._seed = None
        self._started = time.time()

    def set_opponents(self, opponent: OpponentArg, weights=None) -> None:
        self.batch.set_opponents(opponent, weights)

    def set_start_positions(self, positions) -> None:
        """Start every later game (resets included) from one of `positions` (a batch state of live games),
        drawn uniformly, instead of a new deal; None returns to new deals."""
        self.batch.set_start_positions(positions)

    def seed(self, seed: int | None = None):
        self._seed = validate.check_seed(seed)
        return [seed] * self.num_envs

    def reset(self):
        obs, self._masks = self.batch.reset(self._seed)
        self._seed = None
        return obs

    def load_state(self, state) -> np.ndarray:
        """Continue from `num_envs` positions (a batch state, e.g. from `from_description`); returns the
        observations, as `reset` does."""
        obs, self._masks = self.batch.load_state(state)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self.batch.require_reset("step()")
        self._actions = validate.as_actions(
            actions, self.num_envs, self.spec_.num_actions, f"{self.spec_.name}: actions"
        )

    def _potential(self) -> np.ndarray:
        return score_margin(self.spec_, self.batch.state, self.batch.seats)

    def step_wait(self):
        before = self._potential() if self.shaping else None
        out = self.batch.step(self._actions)
        self._masks = out["mask"]
        done = out["terminated"] | out["truncated"]
        if self.shaping:
            after = np.where(done, 0.0, self._potential())  # a finished game's next state is terminal: phi = 0
            out["reward"] = out["reward"] + self.shaping * (self.shaping_gamma * after - before)
        infos = [{} for _ in range(self.num_envs)]
        if done.any():
            elapsed = round(time.time() - self._started, 6)
            for j, g in enumerate(np.flatnonzero(done)):
                infos[g] = {
                    "terminal_observation": out["final_obs"][j],
                    "TimeLimit.truncated": bool(out["truncated"][g]),
                    "episode": {"r": float(out["episode_return"][j]), "l": int(out["episode_length"][j]), "t": elapsed},
                    "outcome": int(out["final_outcome"][j]),
                    "illegal_action": bool(out["illegal"][g]),
                    "is_success": bool(out["final_outcome"][j] == 1),
                }
        if self.batch.illegal_action == "replace":
            for g, info in enumerate(infos):
                info.update(
                    illegal_action_replaced=bool(out["replaced"][g]), played_action=int(out["played_action"][g])
                )
        return out["obs"], out["reward"].astype(np.float32), done, infos

    def action_masks(self) -> np.ndarray:
        self.batch.require_reset("action_masks()")
        return self._masks

    def close(self) -> None:
        pass

    def _indices(self, indices):
        if indices is None:
            return np.arange(self.num_envs)
        if isinstance(indices, int):
            return np.array([indices])
        return np.asarray(list(indices))

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            return self.action_masks()[self._indices(indices)]
        raise AttributeError(f"FruitSB3VecEnv supports env_method('action_masks') only, not {method_name!r}")

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self, attr_name)

    def get_attr(self, attr_name: str, indices=None):
        value = getattr(self, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False for _ in self._indices(indices)]

    def get_images(self):
        return []
