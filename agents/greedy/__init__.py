"""One greedy heuristic per game, each using only what its seat observes.

The agent of game `<id>` lives in `agents/greedy/<id>/` and exposes `make(config)`; its heuristic is one
numba kernel, `kernels.scores`, in `agents/greedy/<id>/kernels.py`, loaded like the rules' (`core.lazy`:
compiled, or its interpreted twin) and compiled with them by `python -m fruit_envs.compile` (issue 56:
the same scores to the bit as the numpy code it replaced; `tests/agent_corpus/` holds their decisions).
Each reads the observation by name: the blocks of `rules.observation_layout(config)` and the rules' named
columns within a block's rows, turned into column indices once per agent (`own_part`, `columns`) and
handed to the kernel. `act` breaks ties among the best legal actions at random (`argmax_legal`).
"""

from __future__ import annotations

import importlib
from functools import cache

import numpy as np

from fruit_envs.agents.base import argmax_legal
from fruit_envs.core.lazy import StateKernels, kernels_of
from fruit_envs.core.spec import Config, GameSpec


def own_part(block: slice, num_players: int) -> slice:
    """The observer's own columns of an observation block over seats, which lists the observer first: its
    first `1 / num_players`."""
    width, rest = divmod(block.stop - block.start, num_players)
    if rest:
        raise ValueError(f"a block over {num_players} seats has a multiple of {num_players} columns, got {block}")
    return slice(block.start, block.start + width)


def columns(block: slice, part: slice | int, width: int | None = None) -> slice | int | np.ndarray:
    """Observation columns of `part` (a range, or one column) counted from the start of `block`; with `width`,
    of every row of a block made of rows that wide: `(R, k)` indices for a range, `(R,)` for one column."""
    if width is None:
        if isinstance(part, slice):
            return slice(block.start + part.start, block.start + part.stop)
        return block.start + part
    starts = block.start + width * np.arange((block.stop - block.start) // width)
    if isinstance(part, slice):
        return starts[:, None] + np.arange(part.start, part.stop)[None, :]
    return starts + part


class KernelGreedy:
    """What every greedy agent shares: `scores` runs its game's kernel, `kernels.scores(obs, *kernel_args, out)`,
    and `act` plays the best legal action, ties broken at random. A game's agent, defined in its package
    `fruit_envs.agents.greedy.<game>` (whose `kernels` module it runs), calls
    `super().__init__(config, layout, actions)` and sets `kernel_args`: the column indices and constants its
    kernel takes between the observations and the scores."""

    name = "greedy"
    kernel_args: tuple = ()

    def __init__(self, config: Config, layout: dict[str, slice], actions: int):
        self.config = config
        self._width, self._actions = layout_width(layout), actions

    @property
    def _kernels(self):
        """The kernels of the agent's game package in the tier in use (looked up, never kept: the agent pickles);
        a subclass defined elsewhere runs its game agent's kernels."""
        return kernels_of(self._game_module())

    def act(self, obs: np.ndarray, mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return argmax_legal(self.scores(obs, mask), np.asarray(mask, dtype=bool), rng)

    def scores(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`(B, A)` the heuristic's worth of each action (higher is better; only legal entries count):
        `act` plays the best, ties broken at random; the search agent keeps the best few as candidates."""
        obs, out = kernel_batch(obs, mask, self._width, self._actions)
        self._kernels().scores(obs, *self.kernel_args, out)
        return out

    def rollout_constants(self, config: Config) -> tuple | None:
        """The rules' constants its game's `kernels.rollout` takes after the state's arrays (None: the game has
        no compiled rollout, and search plays its rollouts step by step)."""
        return None

    def rollout(self, state, steps: int, rng: np.random.Generator, greedy: bool = True) -> bool:
        """Play `steps` decisions of every game of `state` in place, in one kernel call: each seat as `act`
        (`greedy`) or uniformly among its legal actions, finished games left as they are. The actions and
        `rng`'s draws are those of search's loop of observe, act and step (issue 56). False, with nothing
        done, where the game has no compiled rollout."""
        constants = self.rollout_constants(state.config)
        if constants is None or not isinstance(rng, np.random.Generator):
            return False
        if state.config != self.config:
            raise ValueError(f"{self!r} plays {self.config}, not games of {state.config}")
        kernels = _state_kernels(self._game_module(), type(state))
        kernels.rollout(int(steps), bool(greedy), rng, state, *constants, *self.kernel_args, self._width)
        return True

    @property
    def compiled(self) -> bool:
        """Whether its kernels run compiled now (`core.lazy`), not as their interpreted twin."""
        return not self._kernels().__name__.endswith("[interpreted]")

    @classmethod
    def _game_module(cls) -> str:
        """The package of the game agent this class is or derives from (whose kernels it runs)."""
        return next(c for c in cls.__mro__ if c.__module__.startswith(f"{__name__}.")).__module__

    def __repr__(self) -> str:
        return f"{type(self).__name__}(num_players={self.config.num_players})"


@cache
def _state_kernels(package: str, state_cls: type) -> StateKernels:
    return StateKernels(package, state_cls)


def kernel_batch(obs, mask, width: int, actions: int) -> tuple[np.ndarray, np.ndarray]:
    """`obs` as the kernels read it (C-contiguous float32) and a zeroed `(B, A)` float64 for their scores. A
    kernel reads and writes by index without bounds checks, so anything but `(B, width)` observations and a
    `(B, actions)` mask is refused here with a ValueError naming both shapes."""
    obs, shape = np.asarray(obs), np.shape(mask)
    if obs.ndim != 2 or obs.shape[1] != width or len(shape) != 2 or shape != (len(obs), actions):
        raise ValueError(
            f"greedy takes observations (B, {width}) and a mask (B, {actions}) of its game and player count; "
            f"got {obs.shape} and {shape}"
        )
    return np.ascontiguousarray(obs, dtype=np.float32), np.zeros(shape)


def layout_width(layout: dict[str, slice]) -> int:
    """The observation width an observation layout describes: its last block's end."""
    return max(block.stop for block in layout.values())


def make_greedy(spec: GameSpec, config: Config):
    """The greedy agent of a game's config, from `agents/greedy/<id>/`."""
    try:
        module = importlib.import_module(f"fruit_envs.agents.greedy.{spec.id}")
    except ModuleNotFoundError as error:
        if error.name != f"fruit_envs.agents.greedy.{spec.id}":
            raise
        raise ValueError(f"no greedy agent for {spec.id!r} (agents/greedy/{spec.id}/ is missing)") from None
    return module.make(config)
