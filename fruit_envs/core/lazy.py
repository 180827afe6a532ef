"""Deferred imports: a game's compiled kernels load on first use, so `import fruit_envs` never loads numba."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import cache
from types import ModuleType


def kernels_of(package: str) -> Callable[[], ModuleType]:
    """A function returning the `kernels` module of `package` (a game's folder), imported on its first call."""

    @cache
    def load() -> ModuleType:
        return importlib.import_module(f"{package}.kernels")

    return load
