"""PettingZoo AEC and parallel environments over any game's rules (a batch of one game)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from fruit_envs.core import global_state as fglobal
from fruit_envs.core import picture as fpicture
from fruit_envs.core import record as frecord
from fruit_envs.core import rng as frng
from fruit_envs.core import validate
from fruit_envs.core.errors import IllegalActionError, ResetNeededError, StateError
from fruit_envs.core.rules_api import game_rules, phase_name
from fruit_envs.core.spec import GameSpec, get_spec

RENDER_MODES = ("ansi", "human", "rgb_array")


def _observation_space(
    spec: GameSpec, config, num_actions: int, mask_in_observation: bool
) -> gymnasium.spaces.Dict | gymnasium.spaces.Box:
    """`Dict(observation, action_mask)`, or the observation's `Box` alone when the mask is only in `info`."""
    observation = gymnasium.spaces.Box(
        low=0.0, high=spec.rules.OBSERVATION_HIGH, shape=spec.observation_shape(config), dtype=spec.observation_dtype
    )
    if not mask_in_observation:
        return observation
    mask = gymnasium.spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8)
    return gymnasium.spaces.Dict({"observation": observation, "action_mask": mask})


def _check_render_mode(render_mode):
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {list(RENDER_MODES)}, got {render_mode!r}")


class _GlobalState:
    """`env.state`: called, PettingZoo's global state. Read as the batched game state that `env.state`
    used to be, it still answers, with a `DeprecationWarning` naming `env.game_state`."""

    def __init__(self, env: _SingleGame):
        self._env = env

    def __call__(self) -> np.ndarray:
        """`(G,)` float32: every seat's observation, then the referee's full view of the game (hidden
        parts included), laid out as `fruit_envs.core.global_state` says; for centralized critics only."""
        self._env._require_reset("state()")
        return fglobal.global_state(self._env._state)[0]

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        warnings.warn(
            f"env.state is PettingZoo's state() method now (the global state for centralized critics); "
            f"the game state is env.game_state: use env.game_state.{name}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(self._env.game_state, name)


def _all_masks_at_once(spec: GameSpec) -> bool:
    """Whether every seat decides each position and the rules give all seats' masks in one call."""
    return spec.simultaneous and game_rules(spec).legal_masks is not None


class _LegalMasks:
    """Legal actions of each seat in one position, each computed when first asked for: as bools (for
    checking an action) and as the int8 array that the seat's observation and info share. Where every
    seat decides at once (simultaneous rules with `legal_masks`), one kernel call gives them all."""

    def __init__(self, spec: GameSpec, state, all_at_once: bool, masks: np.ndarray | None = None):
        """`masks`: every seat's mask `(P, A)` in `state`, where it is known already (from `rules.advance`)."""
        self.spec, self.state = spec, state  # the spec, not its rules module: envs pickle and deepcopy
        # every seat's masks, all at once: `(P, A)` bool, and the int8 rows (views, each handed out as is)
        self._every: tuple[np.ndarray, list] | None = None
        if masks is not None:  # known (the AEC env's hot path: keep this short)
            rows = masks.astype(np.int8)
            self._all_at_once, self._every = True, (masks, [rows[k] for k in range(len(rows))])
            return
        self._all_at_once = all_at_once  # `_all_masks_at_once(spec)`, decided once per env
        self._cache: dict[int, np.ndarray] = {}
        self._int8: dict[int, np.ndarray] = {}

    def _every_seat(self) -> tuple[np.ndarray, list]:
        if self._every is None:
            every = self.spec.rules.legal_masks(self.state)[0]
            self._every = every, list(every.astype(np.int8))
        return self._every

    def __call__(self, seat: int) -> np.ndarray:
        if self._every is not None:
            return self._every[0][seat]
        if self._all_at_once:
            return self._every_seat()[0][seat]
        mask = self._cache.get(seat)
        if mask is None:
            if self.spec.simultaneous or seat == self.state.to_move[0]:
                mask = self.spec.rules.legal_mask(self.state, seat)[0]
            else:  # turn-based: only the seat to move acts (a promise `check_game` checks)
                mask = np.zeros(self.spec.num_actions, dtype=bool)
            self._cache[seat] = mask
        return mask

    def int8(self, seat: int) -> np.ndarray:
        if self._every is not None:
            return self._every[1][seat]
        if self._all_at_once:
            return self._every_seat()[1][seat]
        mask = self._int8.get(seat)
        if mask is None:
            mask = self._int8[seat] = self(seat).astype(np.int8)
        return mask


class _SingleGame:
    """What the AEC and parallel envs share: one game's state, seeding, spaces, rendering and recording.

    Rendering: `render_mode="ansi"` returns text, `"rgb_array"` an `(H, W, 3) uint8` picture (Pillow),
    `"human"` shows the picture in a window when there is a display and prints the text otherwise.
    `render_seat=None` shows the referee's full view; a seat number shows only what that seat may know.
    Recording: `record=PATH` appends every finished game to a JSON-lines file (a list or a callable
    receive `GameRecord`s instead); `game_record()` is the current game's record at any time.
    Observations: `{"observation", "action_mask"}` dicts, as PettingZoo classic; with
    `mask_in_observation=False`, the observation array alone, the mask only in `info["action_mask"]`
    (what AgileRL's multi-agent algorithms and other clients that refuse dict observations want).
    """

    def _setup(
        self,
        game,
        num_players,
        render_mode,
        options,
        render_seat=None,
        record=None,
        mask_in_observation=True,
        wait=None,
    ):
        if not isinstance(mask_in_observation, (bool, np.bool_)):
            raise ValueError(
                f"mask_in_observation must be True (dict observations) or False (the array, mask in info), "
                f"got {mask_in_observation!r}"
            )
        self.mask_in_observation = bool(mask_in_observation)
        self.spec = get_spec(game)
        self.config = self.spec.make_config(num_players, **options)
        self._masks_at_once = _all_masks_at_once(self.spec)
        self._advance = game_rules(self.spec).advance  # step, mask and observation in one call
        _check_render_mode(render_mode)
        self.render_mode = render_mode
        if render_seat is not None and (
            isinstance(render_seat, bool)
            or not isinstance(render_seat, (int, np.integer))
            or not 0 <= render_seat < self.config.num_players
        ):
            raise ValueError(
                f"render_seat must be None (full view) or an int in 0..{self.config.num_players - 1}, "
                f"got {render_seat!r}"
            )
        self.render_seat = render_seat
        self._window = None
        self._record_sink = frecord.make_sink(record)
        self._record_start: dict = {}
        self._record_actions: list[int] = []
        self._record_written = False
        self.possible_agents = [f"player_{k}" for k in range(self.config.num_players)]
        self._seats = {agent: k for k, agent in enumerate(self.possible_agents)}
        self.agents = []
        self.num_actions = self.spec.num_actions + (wait == self.spec.num_actions)  # a wait added at the end
        self._obs_space = _observation_space(self.spec, self.config, self.num_actions, self.mask_in_observation)
        self._act_space = gymnasium.spaces.Discrete(self.num_actions)
        self.observation_spaces = dict.fromkeys(self.possible_agents, self._obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self._act_space)
        self.state_space = fglobal.space(self.spec, self.config)
        self._seed_rng = np.random.default_rng()
        self._state = None
        self._snapshot = None

    @property
    def rules(self):
        """The game's rules module (pure functions over batched states)."""
        return self.spec.rules

    @property
    def game_state(self):
        """The current batch-of-1 game state: a read-only copy of this position (the env steps its own
        state in place, so a state read earlier keeps showing the position it was read in)."""
        if self._state is None:
            return None
        if self._snapshot is None:
            self._snapshot = self._state.copy()
            for array in self._snapshot.arrays().values():
                array.setflags(write=False)
        return self._snapshot

    @property
    def state(self) -> _GlobalState:
        """PettingZoo's `state()`: the global state for centralized critics (see `state_space`)."""
        return _GlobalState(self)

    def _set_state(self, state) -> None:
        """A new position (a new state, or the same one stepped in place): cached masks and copies go."""
        self._state = state
        self._legal = _LegalMasks(self.spec, state, self._masks_at_once)
        self._fresh: dict[int, np.ndarray] = {}  # observations `rules.advance` computed for this position
        self._snapshot = None

    def _mask(self, seat: int) -> np.ndarray:
        """Legal actions of `seat` in the current state, computed once per state."""
        return self._legal(seat)

    def _require_reset(self, what: str) -> None:
        if self._state is None:
            raise ResetNeededError(self.spec.name, what)

    def _seat_of(self, agent) -> int:
        """The seat number of an agent name, after reset; a clear error for anything else."""
        if self._state is None:
            self._require_reset(f"asking about agent {agent!r}")
        seat = self._seats.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"{self.spec.name}: unknown agent {agent!r}; the agents are {self.possible_agents}")
        return seat

    def _new_game(self, seed):
        seed = validate.check_seed(seed)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        key = frng.keys_from_seed(int(self._seed_rng.integers(0, 2**63)), 1)
        self._set_state(self.rules.init(self.config, key))
        self._begin_record({"key": int(key[0])})

    def load_state(self, state):
        """Continue from a given batch-of-1 state (e.g. from `from_description` or `state.load`); returns
        what `reset()` returns (None in the AEC env, the observations and infos in the parallel env)."""
        if getattr(state, "GAME", None) != self.spec.id:
            raise StateError(
                f"load_state: expected a {self.spec.name} state ({self.spec.id}), "
                f"got {type(state).__name__} of {getattr(state, 'GAME', None)!r}"
            )
        validate.check_state(state, "load_state", config=self.config, batch_size=1)
        self._set_state(state.copy())
        self._begin_record({"start": self.rules.describe(self._state, 0)})
        return self._after_load()

    # -- recording -------------------------------------------------------------------------------

    def _begin_record(self, start: dict) -> None:
        self._record_start = start
        self._record_actions = []
        self._record_written = False

    def _applied(self, action: int) -> None:
        """Called after every action the rules applied; writes the record when the game ends."""
        self._record_actions.append(int(action))
        if self._state.done[0]:
            self._finish_record()

    def _finish_record(self, illegal: dict | None = None) -> None:
        if self._record_sink is not None and not self._record_written:
            self._record_written = True
            self._record_sink(self.game_record(illegal))

    def _illegal_ended(self, seats: list[int], actions: list) -> None:
        """The game ended by illegal actions (not applied): record it with the offenders losing."""
        shown = [int(a) if isinstance(a, (int, np.integer)) and not isinstance(a, bool) else repr(a) for a in actions]
        self._finish_record({"seats": [int(k) for k in seats], "actions": shown})

    def game_record(self, illegal: dict | None = None) -> frecord.GameRecord | None:
        """The current game as a `GameRecord` (outcome None while it is not over); None before reset."""
        if self._state is None:
            return None
        return frecord.record_from_states(
            self.spec,
            self.config,
            self._record_actions,
            self._state,
            key=self._record_start.get("key"),
            start=self._record_start.get("start"),
            source=type(self).__name__,
            illegal=illegal,
        )

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _obs(self, seat: int, mask: np.ndarray) -> dict | np.ndarray:
        observation = self._fresh.pop(seat, None) if self._fresh else None  # handed out once, then computed
        if observation is None:
            observation = self.rules.observe(self._state, seat)[0]
        if not self.mask_in_observation:
            return observation
        return {"observation": observation, "action_mask": mask}

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'"
            )
            return None
        self._require_reset("render()")
        return fpicture.render_frame(self, self.spec.name, self._state, 0, self.render_seat)

    def close(self):
        if self._window is not None:
            self._window.close()
            self._window = None


class _LoopNeedsReset:
    """`last()` and `agent_iter()` of an AEC env or wrapper name themselves when used before reset."""

    def last(self, observe: bool = True):
        self._require_reset("last()")
        return super().last(observe)

    def agent_iter(self, max_iter: int = 2**63):
        self._require_reset("agent_iter()")
        return super().agent_iter(max_iter)


class FruitAECEnv(_LoopNeedsReset, _SingleGame, AECEnv):
    """PettingZoo AEC env of one game; illegal actions raise `IllegalActionError` and change nothing."""

    def __init__(
        self,
        game,
        num_players=None,
        render_mode=None,
        render_seat=None,
        record=None,
        mask_in_observation: bool = True,
        **options,
    ):
        super().__init__()
        self._setup(game, num_players, render_mode, options, render_seat, record, mask_in_observation)
        self.metadata = {
            "name": self.spec.pettingzoo_name,
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": False,
        }

    def __getattr__(self, name: str):
        """Only reached for attributes not set yet: those that `reset()` sets say so."""
        if name in _SET_BY_RESET and "spec" in self.__dict__:
            self._require_reset(name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed=None, options=None):
        self._new_game(seed)
        self._after_load()

    def last(self, observe: bool = True):
        """PettingZoo's `last()`: the same values, read straight from this position (the hot path of every loop)."""
        if self._state is None:
            self._require_reset("last()")
        agent = self.agent_selection
        seat = self._seats[agent]
        observation = self._obs(seat, self._legal.int8(seat)) if observe else None
        return (
            observation,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def _after_load(self):
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        done = bool(self._state.done[0])
        self.terminations = dict.fromkeys(self.agents, done and not bool(self._state.truncated[0]))
        self.truncations = dict.fromkeys(self.agents, bool(self._state.truncated[0]))
        self._set_infos()
        self.agent_selection = self.agents[int(self._state.to_move[0])]

    def _set_infos(self) -> None:
        """Each live agent's info holds its `action_mask`, as its observation does (AgileRL reads it there).
        A plain dict, as PettingZoo's API requires; each mask is computed once per position (`_LegalMasks`)."""
        seats, legal = self._seats, self._legal
        if legal._every is not None:  # every seat's rows at hand (the hot path: no call per agent)
            rows = legal._every[1]
            self.infos = {a: {"action_mask": rows[seats[a]]} for a in self.agents}
        else:
            self.infos = {a: {"action_mask": legal.int8(seats[a])} for a in self.agents}

    def observe(self, agent):
        if self._state is None:
            self._require_reset(f"observe({agent!r})")
        seat = self._seat_of(agent)
        return self._obs(seat, self._legal.int8(seat))

    def action_mask(self, agent=None) -> np.ndarray:
        if agent is None:
            self._require_reset("action_mask()")
            agent = self.agent_selection
        return self._mask(self._seat_of(agent)).astype(np.int8)

    def step(self, action):
        if self._state is None:
            self._require_reset("step()")
        if not self.agents:
            raise RuntimeError(f"{self.spec.name}: the game is over and every agent has left; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is int and 0 <= action < self.spec.num_actions:  # the common case, checked cheaply
            a = action
        else:
            a = validate.as_action(action, self.spec.num_actions, f"{self.spec.name}: action of {agent}")
        mask = self._legal(self._seats[agent])
        if not mask[a]:
            raise IllegalActionError(action, np.flatnonzero(mask), _phase(self), player=agent, game=self.spec.name)
        self._apply(agent, a)

    def _apply(self, agent: str, a: int) -> None:
        """Apply `agent`'s action `a`, checked legal, and move on to the next agent."""
        self._cumulative_rewards[agent] = 0.0
        if self._advance is not None:
            state = self._state
            rewards, masks, observation = self._advance(state, a)  # in place
            # `_set_state` by hand: this position's masks and observation are known
            self._legal = _LegalMasks(self.spec, state, True, masks)
            mover = int(state.to_move[0])
            self._fresh = {mover: observation}
            self._snapshot = None
        else:
            state, rewards = self.rules.step(self._state, np.array([a]), in_place=True)  # the mask was checked
            self._set_state(state)
            rewards = rewards[0]
            mover = int(state.to_move[0])
        self._applied(a)
        agents, rewards = self.possible_agents, rewards.tolist()
        self.rewards = dict(zip(agents, rewards, strict=True))
        if state.done[0]:
            trunc = bool(state.truncated[0])
            self.terminations = dict.fromkeys(self.agents, not trunc)
            self.truncations = dict.fromkeys(self.agents, trunc)
        self.agent_selection = agents[mover]
        self._set_infos()
        if any(rewards):  # PettingZoo's `_accumulate_rewards`, from the list at hand (most steps pay nothing)
            cumulative = self._cumulative_rewards
            for name, reward in zip(agents, rewards, strict=True):
                cumulative[name] += reward
        if self.render_mode == "human":
            self.render()


_SET_BY_RESET = frozenset({"agent_selection", "rewards", "_cumulative_rewards", "terminations", "truncations", "infos"})
_NEED_RESET = _SET_BY_RESET | {"agents", "num_agents"}


def _phase(env) -> str:
    return phase_name(env.spec, env.game_state) or "play"


class _Guarded(_LoopNeedsReset, wrappers.OrderEnforcingWrapper):
    """The AEC env as PettingZoo classic wraps it, in one layer instead of three (each attribute read
    through a wrapper costs a Python call, and a loop reads several per step):

    * order (PettingZoo's `OrderEnforcingWrapper`): anything used before `reset()` raises the raw env's
      `ResetNeededError`; a step after every agent has left warns; `load_state()` counts as a reset;
    * actions (in place of `AssertOutOfBoundsWrapper`): something that is not an action at all (bool,
      float, str, out of range) raises `InvalidActionError`, as in every other API;
    * illegal moves (PettingZoo's `TerminateIllegalWrapper`): a legal-looking but illegal action logs a
      warning and ends the game, the offender getting `illegal_reward` and the others 0 (and the env
      records the game with the offender losing).
    """

    def __init__(self, env: FruitAECEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._illegal_value = illegal_reward
        self._terminated = False

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise ResetNeededError(self.env.spec.name, what)

    def __getattr__(self, name: str):
        if name in _NEED_RESET:
            self._require_reset(name)
        if name.startswith("_") and name != "_cumulative_rewards":
            raise AttributeError(f"accessing private attribute '{name}' is prohibited")
        return getattr(self.env, name)

    def _forward(name: str):  # noqa: N805 - builds the properties below
        def read(self):
            if not self._has_reset:
                self._require_reset(name)
            return getattr(self.env, name)

        def write(self, value):
            setattr(self.env, name, value)

        return property(read, write, doc=f"The raw env's `{name}` (after reset).")

    agent_selection = _forward("agent_selection")
    agents = _forward("agents")
    rewards = _forward("rewards")
    terminations = _forward("terminations")
    truncations = _forward("truncations")
    infos = _forward("infos")
    _cumulative_rewards = _forward("_cumulative_rewards")
    del _forward

    def reset(self, seed=None, options=None):
        self._terminated = False
        super().reset(seed=seed, options=options)

    def render(self):
        self._require_reset("render()")
        return super().render()

    def observe(self, agent):
        self._require_reset(f"observe({agent!r})")
        return self.env.observe(agent)

    def state(self) -> np.ndarray:
        self._require_reset("state()")
        return self.env.state()

    def action_mask(self, agent=None) -> np.ndarray:
        self._require_reset("action_mask()")
        return self.env.action_mask(agent)

    def load_state(self, state) -> None:
        self.env.load_state(state)
        self._has_reset = self._has_updated = True
        self._terminated = False  # a new position, as reset() leaves

    def step(self, action) -> None:
        self._require_reset("step()")
        raw = self.env
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            if action is not None:
                action = validate.as_action(action, raw.spec.num_actions, f"{raw.spec.name}: action of {agent}")
            if self._terminated:  # the game an illegal move ended: PettingZoo's dead steps, as its wrapper does
                raw._was_dead_step(action)
            else:
                raw.step(action)
            return
        action = validate.as_action(action, raw.spec.num_actions, f"{raw.spec.name}: action of {agent}")
        if raw._mask(raw._seats[agent])[action]:
            raw._apply(agent, action)  # checked here: the raw env's own checks would repeat these
            return
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.truncations, 0)
        raw.rewards[agent] = float(self._illegal_value)
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True
        raw._illegal_ended([raw.possible_agents.index(agent)], [action])


def make_aec_env(game, illegal_reward: float = -1.0, **kwargs):
    """`raw_env` wrapped like PettingZoo classic: an illegal move loses, ends the game, logs a warning."""
    return _Guarded(FruitAECEnv(game, **kwargs), illegal_reward=illegal_reward)


class FruitParallelEnv(_SingleGame, ParallelEnv):
    """PettingZoo parallel env: every live agent sends an action each step.

    Agents with a decision pending choose from their mask; the others have only the wait action. In
    simultaneous games (Cherry Picking, Quickity Pickity) that is the game's own wait action. A
    turn-based game has none, so this env adds one: action `A` (one past the game's last action, so
    the spaces here have `A + 1` actions), the only legal action of every seat whose turn it is not;
    each step then applies the one decision of the seat to move. An illegal action follows PettingZoo
    classic: the offender gets `illegal_reward`, the others 0, the game ends and a warning is logged.
    """

    def __init__(
        self,
        game,
        num_players=None,
        render_mode=None,
        illegal_reward: float = -1.0,
        render_seat=None,
        record=None,
        mask_in_observation: bool = True,
        **options,
    ):
        super().__init__()
        spec = get_spec(game)
        one_seat = max(spec.player_counts) == 1  # nobody ever waits
        wait = spec.wait_action if spec.wait_action is not None or one_seat else spec.num_actions
        self._setup(game, num_players, render_mode, options, render_seat, record, mask_in_observation, wait)
        self.wait_action = wait
        self.illegal_reward = float(illegal_reward)
        self.metadata = {
            "name": self.spec.pettingzoo_name,
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": True,
        }

    def reset(self, seed=None, options=None):
        self._new_game(seed)
        return self._after_load()

    def _after_load(self):
        self.agents = self.possible_agents[:]
        masks = self._masks()
        return self._observations(masks), self._infos(masks)

    def _masks(self) -> dict[str, np.ndarray]:
        """`(num_actions,)` int8 legal actions of every live agent: its own, or the wait action alone (one
        array per agent, shared by its observation and its info)."""
        acting = self.rules.acting(self._state)[0]
        extra = self.num_actions - self.spec.num_actions  # 1 where this env added the wait action
        masks = {}
        for k, agent in enumerate(self.possible_agents):
            if agent not in self.agents:
                continue
            if acting[k]:
                masks[agent] = np.concatenate([self._mask(k), np.zeros(extra, dtype=bool)]).astype(np.int8)
            else:
                masks[agent] = np.zeros(self.num_actions, dtype=np.int8)
                masks[agent][self.wait_action] = 1
        return masks

    def _observations(self, masks: dict[str, np.ndarray]) -> dict:
        return {a: self._obs(k, masks[a]) for k, a in enumerate(self.possible_agents) if a in masks}

    @staticmethod
    def _infos(masks: dict[str, np.ndarray]) -> dict:
        """Each agent's info: its `action_mask`, the observation's own array (AgileRL reads it there)."""
        return {a: {"action_mask": m} for a, m in masks.items()}

    def step(self, actions: dict):
        self._require_reset("step()")
        if not self.agents:
            raise RuntimeError(f"{self.spec.name}: the game is over; call reset()")
        if not isinstance(actions, dict):
            raise ValueError(f"{self.spec.name}: step() takes a dict of actions by agent name, got {actions!r}")
        missing = [a for a in self.agents if a not in actions]
        unknown = [a for a in actions if a not in self.agents]
        if missing or unknown:
            raise ValueError(
                f"{self.spec.name}: every live agent {self.agents} must act, and only they"
                + (f"; actions missing for {missing}" if missing else "")
                + (f"; actions for unknown or finished agents {unknown}" if unknown else "")
                + f" (waiting agents send the wait action {self.wait_action})"
            )
        chosen = {
            agent: validate.as_action(actions[agent], self.num_actions, f"{self.spec.name}: action of {agent}")
            for agent in self.agents
        }
        masks = self._masks()
        illegal = [agent for agent in self.agents if not masks[agent][chosen[agent]]]
        rewards = dict.fromkeys(self.agents, 0.0)
        if illegal:
            EnvLogger.warn_on_illegal_move()
            for agent in illegal:
                rewards[agent] = self.illegal_reward
            terms = dict.fromkeys(self.agents, True)
            truncs = dict.fromkeys(self.agents, False)
            obs, infos = self._observations(masks), self._infos(masks)
            for agent, info in infos.items():
                info["illegal_action"] = agent in illegal
            self._illegal_ended([self.possible_agents.index(a) for a in illegal], [actions[a] for a in illegal])
            self.agents = []
            return obs, rewards, terms, truncs, infos
        acting = self.rules.acting(self._state)[0]
        state, applied = self._state, set()
        while not state.done[0]:
            seat = int(state.to_move[0])
            if not acting[seat] or seat in applied:
                break
            action = chosen[self.possible_agents[seat]]
            state, r = self.rules.step(state, np.array([action]), in_place=True)  # every action was checked
            self._set_state(state)
            self._applied(action)
            applied.add(seat)
            for k, agent in enumerate(self.possible_agents):
                rewards[agent] += float(r[0, k])
        done, trunc = bool(state.done[0]), bool(state.truncated[0])
        terms = dict.fromkeys(self.agents, done and not trunc)
        truncs = dict.fromkeys(self.agents, trunc)
        masks = self._masks()
        obs, infos = self._observations(masks), self._infos(masks)
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, truncs, infos


def pettingzoo_constructors(module: str, game: str, num_players: int, parallel_doc: str):
    """A game module's `raw_env`, `env` and `parallel_env`, named as functions of `module`.

    Every game module exposes the same three PettingZoo constructors; they differ only in the game,
    its default player count and what one parallel step means (`parallel_doc`).
    """

    def raw_env(num_players: int = num_players, render_mode: str | None = None, **options) -> FruitAECEnv:
        """The AEC env without wrappers: illegal actions raise `IllegalActionError`."""
        return FruitAECEnv(game, num_players=num_players, render_mode=render_mode, **options)

    def env(num_players: int = num_players, render_mode: str | None = None, **options):
        """The AEC env wrapped like PettingZoo classic environments."""
        return make_aec_env(game, num_players=num_players, render_mode=render_mode, **options)

    def parallel_env(num_players: int = num_players, render_mode: str | None = None, **options) -> FruitParallelEnv:
        return FruitParallelEnv(game, num_players=num_players, render_mode=render_mode, **options)

    parallel_env.__doc__ = parallel_doc
    made = (raw_env, env, parallel_env)
    for function in made:
        function.__module__ = module  # so pickle, help() and the docs find them where users import them
        function.__qualname__ = function.__name__
    return made
