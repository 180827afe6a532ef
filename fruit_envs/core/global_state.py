"""The global state of a game for centralized training: PettingZoo's `state()` and `state_space`.

One flat float32 vector per game, the same size for every position of a configuration, in this order:

1. the observation of every seat, seat 0 first, each exactly as `rules.observe` gives it to that seat;
2. every field of the game's `State` except the random `keys`, flattened in field order, raw values
   (card codes, counts, phases, scores, -1 for "none") - the referee's complete view, hidden parts
   included: hands, the order of decks and stacks, face-down tiles, choices not yet revealed.

It holds what no seat may know. A centralized critic (MAPPO, QMIX) may use it during training; a
policy must never see it. `layout(spec, config)` names the slice of every part.
"""

from __future__ import annotations

import functools

import gymnasium
import numpy as np

from fruit_envs.core import rng as frng
from fruit_envs.core.spec import Config, GameSpec, get_spec

LEFT_OUT = ("keys",)  # each game's random stream: not game information, and a uint64 a float32 cannot hold


@functools.lru_cache(maxsize=64)
def _fields(spec: GameSpec, config: Config) -> tuple[tuple[str, tuple[int, ...], np.dtype], ...]:
    """Name, per-game shape and dtype of every `State` field in the global state."""
    state = spec.rules.init(config, frng.keys_from_seed(0, 1))
    return tuple((name, array.shape[1:], array.dtype) for name, array in state.arrays().items() if name not in LEFT_OUT)


def layout(spec: GameSpec | str, config: Config) -> dict[str, slice]:
    """Slices of the global state: `observation/player_k` for each seat, then `state/<field>` for each field."""
    spec = get_spec(spec)
    size = int(np.prod(spec.observation_shape(config)))
    parts, start = {}, 0
    for seat in range(config.num_players):
        parts[f"observation/player_{seat}"] = slice(start, start + size)
        start += size
    for name, shape, _ in _fields(spec, config):
        width = int(np.prod(shape, dtype=np.int64))
        parts[f"state/{name}"] = slice(start, start + width)
        start += width
    return parts


def space(spec: GameSpec | str, config: Config) -> gymnasium.spaces.Box:
    """`Box(low, high, (G,), float32)`: observations within `[0, OBSERVATION_HIGH]`, each state field
    within the range of its dtype (a bool field in `[0, 1]`)."""
    spec = get_spec(spec)
    parts = layout(spec, config)
    size = max(s.stop for s in parts.values())
    low, high = np.zeros(size, dtype=np.float32), np.zeros(size, dtype=np.float32)
    for seat in range(config.num_players):
        high[parts[f"observation/player_{seat}"]] = spec.rules.OBSERVATION_HIGH
    for name, _, dtype in _fields(spec, config):
        if dtype == np.bool_:
            bounds = (0, 1)
        elif np.issubdtype(dtype, np.integer):
            bounds = (np.iinfo(dtype).min, np.iinfo(dtype).max)
        else:
            bounds = (np.finfo(np.float32).min, np.finfo(np.float32).max)
        low[parts[f"state/{name}"]], high[parts[f"state/{name}"]] = bounds
    return gymnasium.spaces.Box(low=low, high=high, dtype=np.float32)


def global_state(state) -> np.ndarray:
    """`(n, G)` float32: the global state of every game of a batch (see the module docstring)."""
    spec, config = get_spec(state.GAME), state.config
    n = state.batch_size
    blocks = [spec.rules.observe(state, seat).reshape(n, -1) for seat in range(config.num_players)]
    blocks += [state.arrays()[name].reshape(n, -1) for name, _, _ in _fields(spec, config)]
    return np.concatenate(blocks, axis=1, dtype=np.float32)
