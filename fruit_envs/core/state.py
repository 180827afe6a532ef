"""Batched game state: a dataclass of numpy arrays with a leading batch axis, plus its config.

Every game's `State` subclasses `BatchState`. The public schema is `keys` (per-game random key),
`done`, `truncated`, `to_move`, `step_count`; games add their own fields beside it.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

import numpy as np

from fruit_envs.core.errors import StateError
from fruit_envs.core.spec import Config, get_spec

S = TypeVar("S", bound="BatchState")

FORMAT_VERSION = 1


@dataclass
class BatchState:
    """Public schema shared by all games; arrays have shape `(n, ...)`."""

    config: Config
    keys: np.ndarray  # (n,) uint64: each game's own random stream
    done: np.ndarray  # (n,) bool: terminated or truncated
    truncated: np.ndarray  # (n,) bool
    to_move: np.ndarray  # (n,) int8: seat whose decision is pending
    step_count: np.ndarray  # (n,) int32: decisions taken so far

    GAME: ClassVar[str] = ""  # registry id of the game, set by each subclass

    @classmethod
    def array_names(cls) -> list[str]:
        return list(_array_names(cls))

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in _array_names(type(self))}

    @property
    def batch_size(self) -> int:
        return int(self.done.shape[0])

    def copy(self: S) -> S:
        new = object.__new__(type(self))  # the fields as they are: a copy needs no __init__ checks
        new.config = self.config
        for name in _array_names(type(self)):
            setattr(new, name, getattr(self, name).copy())
        return new

    def rows(self: S, start: int, stop: int) -> S:
        """Games `start:stop` as a state sharing this one's arrays (a change through either shows in both):
        a part of a batch that a thread steps in place while another steps the rest."""
        new = object.__new__(type(self))
        new.config = self.config
        for name in _array_names(type(self)):
            setattr(new, name, getattr(self, name)[start:stop])
        return new

    def take(self: S, index) -> S:
        """The games at `index` (an index array, slice or boolean mask) as a new batch."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        return type(self)(config=self.config, **{k: v[index].copy() for k, v in self.arrays().items()})

    def put(self, index, other: BatchState) -> None:
        """Write the games of `other` into positions `index` of this batch, in place."""
        for name in self.array_names():
            getattr(self, name)[index] = getattr(other, name)

    def equals(self, other: BatchState) -> bool:
        if type(self) is not type(other) or self.config != other.config:
            return False
        return all(np.array_equal(a, getattr(other, k)) for k, a in self.arrays().items())

    @classmethod
    def concatenate(cls: type[S], states: list[S]) -> S:
        config = states[0].config
        if any(s.config != config for s in states):
            raise ValueError("cannot concatenate states with different configs")
        return cls(
            config=config,
            **{k: np.concatenate([getattr(s, k) for s in states]) for k in cls.array_names()},
        )


_ONE_GAME_SEATS = tuple(np.full(1, k, dtype=np.int64) for k in range(16))  # never written: kernels only read seats


def seat_array(state: BatchState, player) -> np.ndarray:
    """`(n,)` int64 seats for the kernels: the seat to move (`player=None`), one seat for every game (an
    int) or one per game; a seat outside `0..P-1` is a `ValueError`. A single game's seats are shared
    arrays (an AEC env asks several times a step)."""
    n, p = state.batch_size, state.config.num_players
    if player is None:
        return state.to_move.astype(np.int64)
    if isinstance(player, (int, np.integer)) and 0 <= player < p:
        return _ONE_GAME_SEATS[player] if n == 1 else np.full(n, player, dtype=np.int64)
    seat = np.asarray(player, dtype=np.int64)
    if seat.shape != (n,):
        seat = np.ascontiguousarray(np.broadcast_to(seat, (n,)))
    if n and (seat.min() < 0 or seat.max() >= p):
        raise ValueError(f"player must be a seat in 0..{p - 1}, got {player!r}")
    return seat


def advance_buffers(num_players: int, num_actions: int, obs_size: int) -> tuple[np.ndarray, ...]:
    """Zeroed outputs of a game's `advance` kernel for one game: rewards `(1, P)` float32, ended `(1,)`
    bool, every seat's mask `(P, A)` bool and the observation `(1, O)` float32."""
    return (
        np.zeros((1, num_players), dtype=np.float32),
        np.zeros(1, dtype=bool),
        np.zeros((num_players, num_actions), dtype=bool),
        np.zeros((1, obs_size), dtype=np.float32),
    )


@functools.lru_cache(maxsize=64)
def game_rows(n: int) -> np.ndarray:
    """`(n,)` int64 `0..n-1`: the game of each row, for kernels that take one (shared, never written)."""
    return np.arange(n, dtype=np.int64)


@functools.lru_cache(maxsize=64)
def every_seat(n: int, p: int) -> tuple[np.ndarray, np.ndarray]:
    """`(n * p,)` games and seats, game-major: every seat of every game, for one kernel call that gives
    all seats' masks (shared, never written)."""
    return np.repeat(np.arange(n, dtype=np.int64), p), np.tile(np.arange(p, dtype=np.int64), n)


@functools.cache
def _array_names(cls: type) -> tuple[str, ...]:
    """The array fields of a state class, in declaration order (read once per class)."""
    return tuple(f.name for f in dataclasses.fields(cls) if f.name != "config")


def save(state: BatchState, file) -> None:
    """Write a state to a `.npz` file (path or binary file object), game and config included."""
    spec = get_spec(state.GAME)
    meta = {
        "format": FORMAT_VERSION,
        "game": spec.id,
        "version": spec.version,
        "config": state.config.to_dict(),
    }
    np.savez(file, __meta__=np.array(json.dumps(meta)), **state.arrays())


def load(file) -> BatchState:
    """Read a state written by `save` (a path or binary file object), checked like any state a user
    gives: the file's format and metadata, the game's fields with their dtypes, shapes and one batch
    size, the config, the value bounds and the game's invariants (`validate.check_state`). Anything
    else raises `StateError` (a `ValueError`) naming what is wrong; another rules version is refused."""
    from fruit_envs.core import validate

    if isinstance(file, (str, Path)):
        file = Path(file)
        if not file.is_file():
            raise StateError(f"no saved state at {str(file)!r}")
    try:
        with np.load(file, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except Exception as error:  # a damaged zip can fail anywhere inside zipfile, zlib or numpy's reader
        raise StateError(f"not a readable saved state (.npz): {type(error).__name__}: {error}") from None
    if not isinstance(arrays, dict) or "__meta__" not in arrays:
        raise StateError("not a saved fruit_envs state: the file has no __meta__ entry")
    meta = _meta(arrays.pop("__meta__"))
    try:
        spec = get_spec(meta["game"])
    except ValueError as error:
        raise StateError(f"saved state: {error}") from None
    if meta["version"] != spec.version:
        raise StateError(
            f"saved state is {spec.id} v{meta['version']}, but the installed rules are "
            f"v{spec.version}; states cannot cross rule versions"
        )
    try:
        config = spec.config_from_dict(meta["config"])
    except ValueError as error:
        raise StateError(f"saved state: bad config: {error}") from None
    validate.check_arrays(spec, config, arrays, "saved state")
    state = spec.rules.State(config=config, **arrays)
    validate.check_state(state, "saved state")
    return state


def _meta(entry: np.ndarray) -> dict:
    """The `__meta__` JSON of a saved state, with its fields' types checked."""
    try:
        meta = json.loads(str(entry[()])) if entry.dtype.kind == "U" and entry.shape == () else None
    except (ValueError, RecursionError):
        meta = None
    if not isinstance(meta, dict):
        raise StateError("not a saved fruit_envs state: __meta__ is not a JSON object")
    kinds = {"format": int, "game": str, "version": int, "config": dict}
    for name, kind in kinds.items():
        value = meta.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise StateError(f"saved state: __meta__ field {name!r} must be a {kind.__name__}, got {value!r}")
    if meta["format"] > FORMAT_VERSION:
        raise StateError(f"saved state format {meta['format']} is newer than this fruit_envs reads ({FORMAT_VERSION})")
    return meta


def to_bytes(state: BatchState) -> bytes:
    buffer = io.BytesIO()
    save(state, buffer)
    return buffer.getvalue()


def from_bytes(data: bytes) -> BatchState:
    """The state `to_bytes` wrote, checked as `load` checks a file."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise StateError(f"from_bytes takes the bytes to_bytes wrote, got {type(data).__name__}")
    return load(io.BytesIO(bytes(data)))
