"""Counter-based random numbers, one independent stream per game of a batch.

Every game carries its own 64-bit key in its state, so a game draws the same numbers whether it is
stepped alone or inside a batch of 4,096, and a saved state continues with the same future shuffles.
The mixer is SplitMix64 (Steele et al., 2014), applied element-wise with wrapping uint64 arithmetic.
"""

from __future__ import annotations

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SPLIT = np.uint64(0xD1B54A32D192ED03)


def _mix(z: np.ndarray) -> np.ndarray:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def keys_from_seed(seed: int | None, n: int) -> np.ndarray:
    """`n` independent game keys `(n,) uint64` from one seed (fresh entropy when `seed` is None)."""
    return np.random.SeedSequence(seed).generate_state(n, dtype=np.uint64)


def split(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Advance each key; returns `(next_keys, subkeys)`, both `(n,) uint64`."""
    keys = np.asarray(keys, dtype=np.uint64)
    return _mix(keys + _GOLDEN), _mix(keys ^ _SPLIT)


def uniform(subkeys: np.ndarray, k: int) -> np.ndarray:
    """`(n, k)` floats in [0, 1), a row per subkey."""
    counters = (np.arange(1, k + 1, dtype=np.uint64) * _GOLDEN)[None, :]
    bits = _mix(np.asarray(subkeys, dtype=np.uint64)[:, None] ^ counters)
    return (bits >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def permutations(subkeys: np.ndarray, k: int) -> np.ndarray:
    """`(n, k)` int64: an independent uniform permutation of `range(k)` per subkey."""
    return np.argsort(uniform(subkeys, k), axis=1, kind="stable")


def integers(subkeys: np.ndarray, high: np.ndarray | int) -> np.ndarray:
    """`(n,)` int64 uniform in `[0, high)` per subkey (`high` per row or shared)."""
    return np.floor(uniform(subkeys, 1)[:, 0] * np.asarray(high)).astype(np.int64)
