"""Batched game state: a dataclass of numpy arrays with a leading batch axis, plus its config.

Every game's `State` subclasses `BatchState`. The public schema is `keys` (per-game random key),
`done`, `truncated`, `to_move`, `step_count`; games add their own fields beside it.
"""

from __future__ import annotations

import dataclasses
import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, TypeVar

import numpy as np

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
        return [f.name for f in dataclasses.fields(cls) if f.name != "config"]

    def arrays(self) -> dict[str, np.ndarray]:
        return {name: getattr(self, name) for name in self.array_names()}

    @property
    def batch_size(self) -> int:
        return int(self.done.shape[0])

    def copy(self: S) -> S:
        return type(self)(config=self.config, **{k: v.copy() for k, v in self.arrays().items()})

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
    """Read a state written by `save`; refuses another game version with a clear error."""
    if isinstance(file, (str, Path)):
        file = Path(file)
    with np.load(file, allow_pickle=False) as data:
        meta = json.loads(str(data["__meta__"]))
        spec = get_spec(meta["game"])
        if meta["version"] != spec.version:
            raise ValueError(
                f"saved state is {spec.id} v{meta['version']}, but the installed rules are "
                f"v{spec.version}; states cannot cross rule versions"
            )
        cls = spec.rules.State
        missing = set(cls.array_names()) - set(data.files)
        if missing:
            raise ValueError(f"saved state lacks fields {sorted(missing)} of {spec.id}")
        arrays = {k: data[k] for k in cls.array_names()}
    return cls(config=spec.config_from_dict(meta["config"]), **arrays)


def to_bytes(state: BatchState) -> bytes:
    buffer = io.BytesIO()
    save(state, buffer)
    return buffer.getvalue()


def from_bytes(data: bytes) -> BatchState:
    return load(io.BytesIO(data))
