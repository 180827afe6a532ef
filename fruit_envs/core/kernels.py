"""Compiled building blocks shared by the games' kernels: numba `njit` helpers, compiled on first use
and cached on disk beside the module (or in numba's user cache where the installation is read-only).

Importing this module imports numba (a few hundred milliseconds); nothing here compiles until a game's
kernel first runs, and `import fruit_envs` never imports it. The compiled code is cached on disk beside
the sources, or in numba's user cache directory where the installation is read-only; where neither can
be written, kernels compile in every new process instead (slower to start, the same results). The random
numbers are `core.rng`'s SplitMix64 streams, drawn per game inside a loop over the batch.

Two decorators: `njit` for a kernel the rules call from Python, `inner` for a helper only other kernels
call (numba then builds no Python entry point for it, which is most of a small helper's compile time).

Two habits keep a game's first compile short (`tests/test_kernels.py` checks both):
- a kernel calls another with int64 and bool values, never a constant (`np.int64(1)`, `np.bool_(True)`)
  or a narrow integer read from the state: numba compiles the callee again for each new argument type;
- arrays are copied element by element, never `a[i] = b[j]` with array sides: that assignment makes numba
  compile its shape-mismatch message (string formatting, about a second).

A kernel takes the state's arrays as parameters named after the `State` fields they hold, together and in
the field order. `rules` calls it with the state in their place, `_kernels.observe(seat, state, ...)`
(`core.lazy.StateKernels`), which fetches each array by its parameter's name: no call lists them. A kernel
hands each on to the parameter of its name (Juicy Fruits' kernels take all of them as one tuple `st`, read
by named slots). Two arrays of one dtype swapped would compile and run; `tests/test_kernels.py` checks every
call instead.
"""

from __future__ import annotations

import numba
import numpy as np


def _probe() -> int:
    return 0


def _can_cache() -> bool:
    """Whether numba finds a writable place to cache compiled code (it looks when a function asks)."""
    try:
        numba.njit(cache=True)(_probe)
    except RuntimeError:
        return False
    return True


CACHED = _can_cache()
njit = numba.njit(cache=CACHED, nogil=True)  # a kernel called from Python
# a helper called only from other kernels: no Python entry point to build (a fifth of a game's first compile)
inner = numba.njit(cache=CACHED, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_SPLIT = np.uint64(0xD1B54A32D192ED03)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_UNIT = 1.0 / (1 << 53)


@njit
def mix(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser, as `core.rng._mix` applies it element-wise."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit
def split(key: np.uint64) -> tuple[np.uint64, np.uint64]:
    """`(next_key, subkey)` of one game, as `core.rng.split`."""
    return mix(key + _GOLDEN), mix(key ^ _SPLIT)


@njit
def uniform(subkey: np.uint64, out: np.ndarray) -> None:
    """Fill `out` (float64) with the first `len(out)` uniforms of `subkey`, as `core.rng.uniform`."""
    for j in range(len(out)):
        bits = mix(subkey ^ (np.uint64(j + 1) * _GOLDEN))
        out[j] = np.float64(bits >> _S11) * _UNIT


@njit
def permutation(subkey: np.uint64, k: int) -> np.ndarray:
    """A uniform permutation of `range(k)`, as `core.rng.permutations` draws it (stable argsort)."""
    u = np.empty(k, dtype=np.float64)
    uniform(subkey, u)
    return stable_argsort(u)


@njit
def stable_argsort(values: np.ndarray) -> np.ndarray:
    """`np.argsort(values, kind="stable")` of a short 1-d array: an insertion sort, which numba compiles in
    a fraction of the second its mergesort takes (per dtype, in every game's first compile)."""
    order = np.empty(len(values), dtype=np.int64)
    for i in range(len(values)):
        j = i
        while j > 0 and values[order[j - 1]] > values[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    return order
