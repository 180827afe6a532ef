"""Gymnasium environments: one learner seat against opponents, single game or a batch of games."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fruit_envs.core import picture as fpicture
from fruit_envs.core import validate
from fruit_envs.core.engine import LearnerBatch, OpponentArg
from fruit_envs.core.spec import get_spec


def _spaces(spec, config):
    obs = gymnasium.spaces.Box(
        low=0.0, high=spec.rules.OBSERVATION_HIGH, shape=spec.observation_shape(config), dtype=spec.observation_dtype
    )
    return obs, gymnasium.spaces.Discrete(spec.num_actions)


def _check_render(render_mode, modes, render_seat, num_players):
    if render_mode is not None and render_mode not in modes:
        raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")
    if render_seat is None or render_seat == "learner":
        return
    if (
        isinstance(render_seat, bool)
        or not isinstance(render_seat, (int, np.integer))
        or not 0 <= render_seat < (num_players)
    ):
        raise ValueError(
            f"render_seat must be None (full view), 'learner' or an int in 0..{num_players - 1}, got {render_seat!r}"
        )


class FruitEnv(gymnasium.Env):
    """One game seen by one learner seat; the other seats are played by `opponent` inside `step`.

    `opponent`: any agent name ("random", "greedy", "search[:OPTIONS]", "ppo-baseline", "ppo:PATH", a model
    "PATH.zip", your "module:make"; `fruit_envs.agents.resolve_agent`), an agent with `act(obs, mask, rng)`, or a
    list of these sampled per game and seat. `seat`: the learner's seat, or None for a random seat each game.
    `illegal_action="lose"` ends the game as a loss (`illegal_reward`); "raise" raises
    `IllegalActionError` and changes nothing; "replace" (for learners that cannot mask) plays the first legal
    action at or after it, wrapping round (`replacement_actions`), less `illegal_penalty` (default 0) in the
    reward, and every step's info says `illegal_action_replaced`, `requested_action` and `played_action`.
    `action_masks()` serves sb3-contrib's MaskablePPO.
    `render_mode`: "ansi" (text), "rgb_array" (picture), "human" (window, or text without a display),
    of the full table (`render_seat=None`), the learner's view ("learner") or a seat's view (int).
    `record=PATH` appends every finished game to a JSON-lines file (replay: `python -m fruit_envs.replay`).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        game: str,
        num_players: int | None = None,
        opponent: OpponentArg = "random",
        seat: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        render_seat: int | str | None = None,
        record=None,
        illegal_penalty: float = 0.0,
        **options,
    ):
        self.spec_ = get_spec(game)
        self.config = self.spec_.make_config(num_players, **options)
        _check_render(render_mode, self.metadata["render_modes"], render_seat, self.config.num_players)
        self.render_mode, self.render_seat = render_mode, render_seat
        self._window = None
        self._batch = LearnerBatch(
            self.spec_,
            self.config,
            1,
            opponent,
            seat,
            illegal_action,
            illegal_reward,
            autoreset=False,
            record=record,
            record_source="FruitEnv",
            illegal_penalty=illegal_penalty,
        )
        self.observation_space, self.action_space = _spaces(self.spec_, self.config)

    @property
    def game_state(self):
        """The batch-of-1 state of the game being played (the referee's full view). It is the env's own,
        stepped in place: `game_state.copy()` keeps a position."""
        return self._batch.state

    @property
    def state(self):
        """Deprecated name of `game_state` (PettingZoo's envs use `state()` for the global state)."""
        _warn_state_renamed()
        return self.game_state

    @property
    def seat(self) -> int:
        """The learner's seat in the game being played."""
        self._batch.require_reset("seat")
        return int(self._batch.seats[0])

    def set_opponents(self, opponent: OpponentArg, weights=None) -> None:
        self._batch.set_opponents(opponent, weights)

    def reset(self, *, seed=None, options=None):
        seed = validate.check_seed(seed)
        super().reset(seed=seed)
        obs, mask = self._batch.reset(seed)
        if self.render_mode == "human":
            self.render()
        return obs[0], {"action_mask": mask[0], "seat": self.seat}

    def load_state(self, state):
        """Continue from a batch-of-1 position (e.g. `rules.from_description`); returns `reset`'s pair."""
        obs, mask = self._batch.load_state(state)
        return obs[0], {"action_mask": mask[0], "seat": self.seat}

    def step(self, action):
        self._batch.require_reset("step()")
        action = validate.as_action(action, self.spec_.num_actions, f"{self.spec_.name}: action")
        out = self._batch.step_action(action)
        replacing = self._batch.illegal_action == "replace"
        if type(out) is tuple:  # the game goes on, the learner to move (its action was legal)
            obs, mask, reward = out
            if self.render_mode == "human":
                self.render()
            info = {"action_mask": mask, "seat": int(self._batch.seats[0])}
            if replacing:
                info.update(illegal_action_replaced=False, requested_action=action, played_action=action)
            return obs, float(reward), False, False, info
        terminated, truncated = bool(out["terminated"][0]), bool(out["truncated"][0])
        info = {"action_mask": out["mask"][0], "seat": self.seat}
        if replacing:
            played = int(out["played_action"][0])
            info.update(illegal_action_replaced=bool(out["replaced"][0]), requested_action=action, played_action=played)
        if terminated or truncated:
            obs = out["final_obs"][0]
            info["outcome"] = int(out["final_outcome"][0])
            info["illegal_action"] = bool(out["illegal"][0])
        else:
            obs = out["obs"][0]
        if self.render_mode == "human":
            self.render()
        return obs, float(out["reward"][0]), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """`(A,)` bool: the learner's legal actions now."""
        return self._batch.action_masks()[0]

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'"
            )
            return None
        self._batch.require_reset("render()")
        seat = self.seat if self.render_seat == "learner" else self.render_seat
        return fpicture.render_frame(self, self.spec_.name, self.game_state, 0, seat)

    def close(self):
        if self._window is not None:
            self._window.close()
            self._window = None


class FruitVectorEnv(VectorEnv):
    """`num_envs` games stepped by one numpy call per decision; opponents move inside `step`.

    `autoreset_mode` (also `metadata["autoreset_mode"]`), a Gymnasium `AutoresetMode` or its name:
    - `NEXT_STEP` (default, as Gymnasium's own vector envs, and what its vector wrappers such as
      `NormalizeObservation` require): a finished game's last observation is returned by the step that
      ends it; the next step ignores that game's action, starts a new game there and returns its first
      observation, with reward 0 and neither terminated nor truncated.
    - `SAME_STEP` (what TorchRL's `GymWrapper` and SB3 expect): the step that ends a game already
      returns the next game's first observation; the last one is in `infos["final_obs"]` (rows where
      `infos["_final_obs"]`).
    Our SB3 VecEnv and trainer step the games themselves, same-step, whatever this option says.
    `infos["action_mask"]` and `action_masks()` give the `(N, A)` masks of the returned observations
    (a game that has just ended, next-step, accepts any action: the next step ignores it).
    Rows of games that end have `infos["outcome"]` (+1 win, -1 loss, 0 draw or truncated) and
    `infos["illegal_action"]` (True where the learner's illegal action lost it, as in `FruitEnv`),
    marked by `infos["_outcome"]` and `infos["_illegal_action"]`. With `illegal_action="replace"` (see `FruitEnv`),
    every step's infos have `illegal_action_replaced` and `played_action` `(N,)`, marked by their `_` keys in the
    rows that took an action (not those starting a new game, next-step).
    `render()`: "ansi" gives the text of game 0; "rgb_array" a tuple with the picture of every game
    (as Gymnasium's vector envs do), full view or `render_seat` ("learner" or a seat number).
    `record=PATH` appends every finished game to a JSON-lines file.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        num_envs: int = 1,
        game: str = "cherry_picking",
        num_players: int | None = None,
        opponent: OpponentArg = "random",
        seat: int | None = None,
        illegal_action: str = "lose",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        render_seat: int | str | None = None,
        record=None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        illegal_penalty: float = 0.0,
        **options,
    ):
        self.spec_ = get_spec(game)
        self.config = self.spec_.make_config(num_players, **options)
        _check_render(render_mode, self.metadata["render_modes"], render_seat, self.config.num_players)
        self.render_mode, self.render_seat = render_mode, render_seat
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self._batch = LearnerBatch(
            self.spec_,
            self.config,
            num_envs,
            opponent,
            seat,
            illegal_action,
            illegal_reward,
            autoreset=self.autoreset_mode == AutoresetMode.SAME_STEP,
            record=record,
            record_source="FruitVectorEnv",
            illegal_penalty=illegal_penalty,
        )
        self.num_envs = self._batch.num_envs
        self.single_observation_space, self.single_action_space = _spaces(self.spec_, self.config)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._masks = None
        self._ended = np.zeros(self.num_envs, dtype=bool)  # next-step: games the last step ended

    @property
    def game_state(self):
        """The batch state of the `num_envs` games (the referee's full view). It is the env's own, stepped
        in place: `game_state.copy()` keeps a position."""
        return self._batch.state

    @property
    def state(self):
        """Deprecated name of `game_state`."""
        _warn_state_renamed()
        return self.game_state

    @property
    def seats(self) -> np.ndarray:
        """`(N,)` the learner's seat in each game being played."""
        self._batch.require_reset("seats")
        return self._batch.seats.copy()

    def set_opponents(self, opponent: OpponentArg, weights=None) -> None:
        self._batch.set_opponents(opponent, weights)

    def reset(self, *, seed=None, options=None):
        seed = validate.check_seed(seed)
        obs, self._masks = self._batch.reset(seed)
        self._ended[:] = False
        return obs, {"action_mask": self._masks, "seat": self.seats}

    def load_state(self, state):
        """Continue from `num_envs` positions (a batch state); returns `reset`'s pair."""
        obs, self._masks = self._batch.load_state(state)
        return obs, {"action_mask": self._masks, "seat": self.seats}

    def step(self, actions):
        restarting = self._ended.copy()  # all False before reset: the batch's step then says reset first
        if restarting.any():
            self._batch.restart(np.flatnonzero(restarting))
        out = self._batch.step(actions, active=~restarting)
        self._masks = out["mask"]
        finished = out["terminated"] | out["truncated"]
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._ended = finished
            self._masks[finished] = True
        infos = {"action_mask": self._masks, "seat": self.seats}
        if self._batch.illegal_action == "replace":
            acted = ~restarting
            infos.update(
                illegal_action_replaced=out["replaced"].copy(),
                _illegal_action_replaced=acted,
                played_action=out["played_action"].copy(),
                _played_action=acted,
            )
        if finished.any():
            outcome = np.zeros(self.num_envs, dtype=np.int8)
            outcome[finished] = out["final_outcome"]
            illegal = out["illegal"] & finished  # lost by the learner's illegal action (illegal_action="lose")
            infos.update(outcome=outcome, _outcome=finished, illegal_action=illegal, _illegal_action=finished)
            if self.autoreset_mode == AutoresetMode.SAME_STEP:
                final = np.zeros((self.num_envs, *self.single_observation_space.shape), dtype=np.float32)
                final[finished] = out["final_obs"]
                infos.update(final_obs=final, _final_obs=finished)
        return out["obs"], out["reward"], out["terminated"], out["truncated"], infos

    def action_masks(self) -> np.ndarray:
        """`(N, A)` bool masks of the observations just returned."""
        self._batch.require_reset("action_masks()")
        return self._masks

    def render(self):
        if self.render_mode is None:
            return None
        self._batch.require_reset("render()")
        state = self.game_state
        seats = self._batch.seats if self.render_seat == "learner" else [self.render_seat] * self.num_envs
        if self.render_mode == "ansi":
            return fpicture.text(state, 0, None if seats[0] is None else int(seats[0]))
        return tuple(
            fpicture.picture(state, g, None if seats[g] is None else int(seats[g])) for g in range(self.num_envs)
        )


def _autoreset_mode(mode) -> AutoresetMode:
    """The `AutoresetMode` meant by `mode` (a member, its value "NextStep" or its name "NEXT_STEP")."""
    supported = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
    for member in supported:
        if mode is member or (isinstance(mode, str) and mode in (member.value, member.name)):
            return member
    raise ValueError(
        f"autoreset_mode must be one of {[m.name for m in supported]} (gymnasium.vector.AutoresetMode, "
        f"or its name), got {mode!r}"
    )


def _warn_state_renamed() -> None:
    warnings.warn(
        "env.state is renamed env.game_state (PettingZoo's envs use state() for the global state)",
        DeprecationWarning,
        stacklevel=3,
    )


def vector_entry_point(num_envs: int = 1, **kwargs) -> FruitVectorEnv:
    """`gymnasium.make_vec(id, num_envs=N)` lands here (vectorization_mode='vector_entry_point')."""
    kwargs.pop("max_episode_steps", None)
    return FruitVectorEnv(num_envs=num_envs, **kwargs)
