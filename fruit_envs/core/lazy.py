"""A game's kernels, loaded on first use (so `import fruit_envs` never loads numba), in one of two tiers that
run the same source: one rules source, two ways to execute it.

- **compiled**: the numba kernels. The first process on a new installation compiles a game's kernels
  (5-45 s on a small machine); numba caches them on disk and later processes load them in about a second.
- **interpreted**: the very same functions run by Python with numba's decorators stripped (`interpreted`):
  ready at once, 280-2,100 agent-steps/s through the AEC env instead of 45,000-70,000.

`$FRUIT_ENVS_KERNELS` chooses:
- `auto` (the default): compiled when numba's disk cache already holds the game's kernels for this
  machine (or no cache can be written); otherwise interpreted at once while a background process compiles
  them into the cache (`python -m fruit_envs.compile --kernels ...`), then compiled from the first call
  after it has finished. A new installation's first env is therefore ready in a fraction of a second.
- `compiled`: always compiled, compiling in this process when the cache lacks them (the background
  process itself runs so).
- `interpreted`: never compiled (debugging in plain Python; slow).
Both tiers give identical observations, masks, rewards and states (`tests/test_rules_corpus.py` replays
the recorded corpus through each), so a game may switch tier between two calls without a trace.
"""

from __future__ import annotations

import importlib
import inspect
import os
import subprocess
import sys
import tempfile
import threading
import time
import types
import warnings
from collections.abc import Callable, Sequence
from functools import wraps
from types import ModuleType

ENV_VAR = "FRUIT_ENVS_KERNELS"
MODES = ("auto", "compiled", "interpreted")
POLL_SECONDS = 0.5  # how often an interpreted game looks whether its background compile has finished


_forced: str | None = None  # `force_compiled()` was called: every loader compiles, whatever the environment says


def mode() -> str:
    """The tier policy `$FRUIT_ENVS_KERNELS` names (default `auto`); a clear error for anything else."""
    if _forced is not None:
        return _forced
    value = os.environ.get(ENV_VAR, "").strip().lower() or "auto"
    if value not in MODES:
        raise ValueError(f"${ENV_VAR}={os.environ[ENV_VAR]!r} is not a kernel tier; use one of {', '.join(MODES)}")
    return value


_loaders: dict[str, _Loader] = {}


def kernels_of(package: str) -> Callable[[], ModuleType]:
    """A function returning the kernels of `package` (a game's folder) in the tier to use now: the
    compiled `kernels` module or its interpreted twin (see the module docstring). One loader per package."""
    loader = _loaders.get(package)
    if loader is None:
        loader = _loaders.setdefault(package, _Loader(package))
    return loader.get


class StateKernels:
    """A game's kernels (in the tier in use, `kernels_of`), each called with the game's state where its state
    arrays go: `kernels.observe(seat, state, hand_size, obs)` runs `observe(seat, state.done, state.to_move,
    ..., hand_size, obs)`. A kernel names the state arrays it takes by their field names, together and in the
    `State`'s field order (`kernel_fields`), or takes them all as one tuple `st` in that order; each is fetched
    by that name, never listed at a call, so no call can hand a kernel two of them the wrong way round. A
    kernel without state arrays is called as it is, from `kernels_of(package)()`."""

    def __init__(self, package: str, state_cls: type) -> None:
        self._package = package
        self._module = kernels_of(package)
        self.fields = tuple(state_cls.array_names())

    def __getattr__(self, kernel: str) -> Callable:
        if kernel.startswith("_"):
            raise AttributeError(kernel)
        compiled = importlib.import_module(f"{self._package}.kernels")  # the names; the tier is `_module`'s
        call = state_call(getattr(compiled, kernel), self.fields, self._module)
        setattr(self, kernel, call)  # the next call finds it without `__getattr__`
        return call


def kernel_fields(kernel: Callable, fields: Sequence[str]) -> tuple[str, ...]:
    """The state arrays `kernel` (compiled or its Python source) takes: its parameters named after `fields`
    (none: an empty tuple). They must stand together and in the order of `fields`; a ValueError otherwise."""
    function = getattr(kernel, "py_func", kernel)
    params = list(inspect.signature(function).parameters)
    at = [i for i, name in enumerate(params) if name in fields]
    taken = tuple(params[i] for i in at)
    if taken and (taken != tuple(name for name in fields if name in taken) or at[-1] - at[0] != len(at) - 1):
        raise ValueError(
            f"kernel {function.__qualname__}({', '.join(params)}) must take its state arrays as parameters named "
            f"after the state's fields, together and in their order ({', '.join(fields)})"
        )
    return taken


def state_call(kernel: Callable, fields: Sequence[str], module: Callable[[], ModuleType]) -> Callable:
    """`kernel`, found in `module()` at each call, taking a state in place of its state arrays (`StateKernels`).
    Built from source, as `dataclasses` builds its methods, so that it costs about what listing the arrays at
    the call did (0.02-0.15 us a call more; spreading a tuple of them at the call cost 0.2-0.4 us)."""
    function = getattr(kernel, "py_func", kernel)
    name, params = function.__name__, list(inspect.signature(function).parameters)
    if {"state", "kernels"} & set(params):
        raise ValueError(f"kernel {name}({', '.join(params)}): 'state' and 'kernels' are taken by its caller")
    outer, inner = list(params), list(params)
    if "st" in params:  # every array, as one tuple
        at = params.index("st")
        outer[at], inner[at] = "state", "(" + "".join(f"state.{field}, " for field in fields) + ")"
    elif taken := kernel_fields(kernel, fields):
        at = params.index(taken[0])
        outer[at : at + len(taken)] = ["state"]
        inner[at : at + len(taken)] = [f"state.{field}" for field in taken]
    else:
        raise ValueError(f"kernel {name}({', '.join(params)}) takes no state array: call it as it is (`kernels_of`)")
    namespace = {"kernels": module}
    exec(f"def {name}({', '.join(outer)}):\n    return kernels().{name}({', '.join(inner)})\n", namespace)
    return namespace[name]


def loader_of(package: str) -> _Loader:
    """The loader behind `kernels_of(package)` (its tier, its background compile), for tests and benchmarks."""
    kernels_of(package)
    return _loaders[package]


def force_compiled() -> None:
    """From now on every kernel package of this process runs compiled (compiled here if need be), those
    already in use included: what `python -m fruit_envs.compile` is for."""
    global _forced
    _forced = "compiled"
    for loader in list(_loaders.values()):
        with loader._lock:
            loader.final = loader.compiled()


def tiers() -> dict[str, str]:
    """The tier each kernel package this process has used runs in now."""
    return {package: loader.tier for package, loader in list(_loaders.items()) if loader.tier is not None}


def wait_compiled(timeout: float | None = None) -> dict[str, str]:
    """Wait for every background compile this process started (up to `timeout` seconds each); returns
    `tiers()` then."""
    for loader in list(_loaders.values()):
        loader.wait_compiled(timeout)
    return tiers()


class _Loader:
    """Which tier one kernel package runs in, and the background compile that may change it."""

    def __init__(self, package: str):
        self.package = package
        self.final: ModuleType | None = None  # the module every later call gets, once no switch can come
        self.current: ModuleType | None = None
        self.compiling: subprocess.Popen | None = None
        self._owner = os.getpid()  # the process that started `compiling`
        self._log: tempfile._TemporaryFileWrapper | None = None
        self._next_poll = 0.0
        self._lock = threading.Lock()

    def compiled(self) -> ModuleType:
        """The compiled `kernels` module (importing it loads numba; nothing compiles until a kernel runs)."""
        return importlib.import_module(f"{self.package}.kernels")

    @property
    def tier(self) -> str | None:
        """`compiled`, `interpreted`, or None before the first call."""
        module = self.final or self.current
        return None if module is None else ("interpreted" if module.__name__.endswith("[interpreted]") else "compiled")

    def get(self) -> ModuleType:
        final = self.final
        if final is not None:
            return final
        with self._lock:
            if self.final is not None:
                return self.final
            if self.current is None:
                self._choose()
            elif self.compiling is not None and time.monotonic() >= self._next_poll:
                self._poll()
            return self.final or self.current

    def wait_compiled(self, timeout: float | None = None) -> ModuleType | None:
        """Wait up to `timeout` seconds for a background compile (if one runs) and return the kernels then
        in use (None if this package's kernels were never asked for)."""
        if self.final is None and self.current is None:
            return None
        if self.compiling is not None and os.getpid() == self._owner:
            try:
                self.compiling.wait(timeout)
                self._next_poll = 0.0  # finished: switch on this call
            except subprocess.TimeoutExpired:
                pass  # still compiling: the interpreted twin
        return self.get()

    def _choose(self) -> None:
        compiled = self.compiled()
        policy = mode()
        if policy == "compiled":
            self.final = compiled
        elif policy == "interpreted":
            self.final = interpreted(compiled)
        else:
            from fruit_envs.core.kernels import CACHED

            if not CACHED or _in_cache(compiled) or not self._start_compile():
                self.final = compiled
            else:
                self.current = interpreted(compiled)
                self._next_poll = time.monotonic() + POLL_SECONDS

    def _start_compile(self) -> bool:
        """Start `compile_command` in the background; False if it cannot run."""
        self._log = tempfile.TemporaryFile(mode="w+b")
        self._owner = os.getpid()
        try:
            self.compiling = subprocess.Popen(
                compile_command(self.package),
                env=os.environ | {ENV_VAR: "compiled"},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=self._log,
            )
        except OSError:
            self._log.close()
            return False
        return True

    def _poll(self) -> None:
        self._next_poll = time.monotonic() + POLL_SECONDS
        if os.getpid() != self._owner:  # a forked child: the compile is its parent's; look in the cache instead
            compiled = self.compiled()
            if _in_cache(compiled):
                self.compiling, self.final = None, compiled
            return
        code = self.compiling.poll()
        if code is None:
            return
        if code != 0:
            self._log.seek(0)
            tail = self._log.read().decode(errors="replace")[-2000:]
            warnings.warn(
                f"compiling {self.package}.kernels in the background failed (exit {code}); compiling them in "
                f"this process instead. Its output ends:\n{tail}",
                RuntimeWarning,
                stacklevel=4,
            )
        self._log.close()
        self.compiling = None
        self.final = self.compiled()


def compile_command(package: str) -> list[str]:
    """The background process that compiles `package`'s kernels into numba's disk cache."""
    return [sys.executable, "-m", "fruit_envs.compile", "--kernels", package]


def _in_cache(module: ModuleType) -> bool:
    """Whether numba's disk cache holds the module's own `rollout`, `step` or `scores` (the first it defines: a
    greedy agent's rollout, compiled after everything else it runs) compiled for this machine and these sources
    (the background compile builds every kernel a game plays with it). Reads numba's private cache index:
    anything unexpected there answers True, which only means compiling here when needed."""
    try:
        own = (getattr(module, name, None) for name in ("rollout", "step", "scores"))
        dispatcher = next(k for k in own if getattr(getattr(k, "py_func", None), "__module__", None) == module.__name__)
        index = dispatcher._cache._cache_file._load_index()
        machine = dispatcher.targetctx.codegen().magic_tuple()
        return any(key[1] == machine for key in index)
    except Exception:
        return True


_twins: dict[str, dict] = {}


def interpreted(module: ModuleType) -> ModuleType:
    """`module` with every numba-compiled function replaced by its own Python source, calling the others'
    Python twins (kernels imported from other modules included): nothing compiles. Functions called from
    outside run with numpy's overflow warnings off, as the compiled code wraps silently (the random streams
    rely on it)."""
    twin = ModuleType(module.__name__)
    for name, value in _namespace(module).items():
        if isinstance(value, types.FunctionType) and _is_kernel(getattr(module, name, None)):
            value = _quiet(value)
        twin.__dict__[name] = value
    twin.__name__ = f"{module.__name__}[interpreted]"
    return twin


def _is_kernel(value) -> bool:
    return hasattr(value, "py_func") and hasattr(value, "targetoptions")


def _namespace(module: ModuleType) -> dict:
    """The globals the Python twins of `module`'s kernels run in (built once per module)."""
    done = _twins.get(module.__name__)
    if done is not None:
        return done
    space = dict(module.__dict__)
    _twins[module.__name__] = space
    for name, value in module.__dict__.items():
        if not _is_kernel(value):
            continue
        f = value.py_func
        if f.__module__ == module.__name__:
            space[name] = types.FunctionType(f.__code__, space, f.__name__, f.__defaults__, f.__closure__)
        else:
            space[name] = _namespace(sys.modules[f.__module__])[f.__name__]
    return space


def _quiet(function: Callable) -> Callable:
    import numpy as np

    @wraps(function)
    def call(*args, **kwargs):
        with np.errstate(over="ignore"):
            return function(*args, **kwargs)

    return call
