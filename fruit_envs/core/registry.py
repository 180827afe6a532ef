"""Every game in Gymnasium's and PettingZoo's registries, so configs and launchers can name it by a string.

`import fruit_envs` calls `register_envs()`. Ids, one row per game (`served_ids()` lists them):

* Gymnasium `fruit_envs/CherryPicking-v0` (`gymnasium.make`, `make_vec`). Without the import, name the
  module in the id: `gymnasium.make("fruit_envs:fruit_envs/CherryPicking-v0")` imports it first.
* PettingZoo (1.27+) `fruit_envs/cherry_picking-v0` in its AEC registry (`pettingzoo.make("aec", id)`, the
  module's `env()`) and its parallel registry (`pettingzoo.make("parallel", id)`, `parallel_env()`).
  Keyword arguments go to those constructors unchanged. A retired version's id raises the `ImportError`
  that importing its module raises, naming the current version.
* Retired versions' Gymnasium ids (`fruit_envs/QuickityPickity-v1`) are registered too: `make` and `make_vec`
  raise `RetiredEnvError` with that message, naming the id asked for. It is also Gymnasium's `DeprecatedEnv`,
  the generic error ("Please use ...") those ids raised before.

Neither library reads an entry-point group (Gymnasium 1.x dropped `gymnasium.envs` plugins; PettingZoo
never had one), and PettingZoo's `make` has no `module:id` form: a PettingZoo pipeline imports
`fruit_envs` itself, or names a constructor such as `fruit_envs.cherry_picking_v0.env`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import gymnasium
import pettingzoo

from fruit_envs.core.spec import GameSpec, registered_games, retired_version

NAMESPACE = "fruit_envs"


def pettingzoo_id(spec: GameSpec, version: int | None = None) -> str:
    """PettingZoo's id of a game version (default: the served one), e.g. `fruit_envs/cherry_picking-v0`."""
    return f"{NAMESPACE}/{spec.id}-v{spec.version if version is None else version}"


def has_pettingzoo_registry() -> bool:
    """Whether the installed PettingZoo has a registry (`pettingzoo.register` / `make`, from 1.27)."""
    return all(hasattr(pettingzoo, name) for name in ("register", "make", "aec_registry", "parallel_registry"))


def served_ids() -> list[dict[str, str | None]]:
    """One row per game: its module and its PettingZoo AEC, PettingZoo parallel and Gymnasium ids
    (`parallel` is None where the module has no `parallel_env`)."""
    rows = []
    for spec in registered_games():
        module = importlib.import_module(f"{NAMESPACE}.{spec.pettingzoo_name}")
        parallel = pettingzoo_id(spec) if callable(getattr(module, "parallel_env", None)) else None
        rows.append(
            {"module": module.__name__, "aec": pettingzoo_id(spec), "parallel": parallel, "gymnasium": spec.gym_id}
        )
    return rows


def retired_ids() -> list[str]:
    """PettingZoo ids of the retired versions (every version below the one served), which refuse to make."""
    return [pettingzoo_id(spec, old) for spec in registered_games() for old in range(spec.version)]


def gymnasium_id(spec: GameSpec, version: int | None = None) -> str:
    """Gymnasium's id of a game version (default: the served one), e.g. `fruit_envs/CherryPicking-v0`."""
    return f"{NAMESPACE}/{spec.env_name}-v{spec.version if version is None else version}"


class RetiredEnvError(gymnasium.error.DeprecatedEnv, ImportError):
    """A retired version's Gymnasium id was made: the message names the current version and CHANGELOG.md, as
    importing the version's module (an `ImportError`) does. Still Gymnasium's `DeprecatedEnv`, which those ids
    raised before they had our message, so code catching either keeps working."""


def register_envs() -> None:
    """Register every game with Gymnasium and, where PettingZoo has a registry, with PettingZoo.

    Idempotent: an id already registered is left as it is, so importing or reloading `fruit_envs` twice
    neither warns nor duplicates."""
    for spec in registered_games():
        if spec.gym_id not in gymnasium.registry:
            gymnasium.register(
                id=spec.gym_id,
                entry_point="fruit_envs.core.gym_env:FruitEnv",
                vector_entry_point="fruit_envs.core.gym_env:vector_entry_point",
                kwargs={"game": spec.id},
                disable_env_checker=False,
                order_enforce=False,  # FruitEnv raises our ResetNeededError itself, as every adapter does
            )
        for old in range(spec.version):
            retired = gymnasium_id(spec, old)
            if retired not in gymnasium.registry:
                refuse = _refuse_retired_gymnasium(spec, old)
                gymnasium.register(id=retired, entry_point=refuse, vector_entry_point=refuse, disable_env_checker=True)
    if has_pettingzoo_registry():
        _register_pettingzoo()


def _register_pettingzoo() -> None:
    """AEC ids make the module's `env()`, parallel ids its `parallel_env()`; retired ids refuse."""
    for row in served_ids():
        kinds = {"aec": f"{row['module']}:env"}
        if row["parallel"] is not None:
            kinds["parallel"] = f"{row['module']}:parallel_env"
        for kind, entry_point in kinds.items():
            _register_once(kind, row["aec"], entry_point)
    for spec in registered_games():
        current = pettingzoo_id(spec)
        for old in range(spec.version):
            refuse = _refuse_retired(spec, old, current)
            _register_once("aec", pettingzoo_id(spec, old), refuse)
            if current in pettingzoo.parallel_registry:
                _register_once("parallel", pettingzoo_id(spec, old), refuse)


def _register_once(kind: str, env_id: str, entry_point: str | Callable) -> None:
    registry = pettingzoo.aec_registry if kind == "aec" else pettingzoo.parallel_registry
    if env_id not in registry:
        pettingzoo.register(kind, env_id, entry_point=entry_point)


def _refuse_retired(spec: GameSpec, old: int, current: str) -> Callable:
    """The entry point of a retired version: raises the `ImportError` of `fruit_envs.<game>_v<old>`."""

    def refuse(**kwargs):
        try:
            retired_version(f"{NAMESPACE}.{spec.id}_v{old}", spec.id)
        except ImportError as error:
            if hasattr(error, "add_note"):  # Python 3.11+
                error.add_note(f"PettingZoo id of the current version: {current}")
            raise

    refuse.__qualname__ = refuse.__name__ = f"{spec.id}_v{old}_is_retired"
    return refuse


def _refuse_retired_gymnasium(spec: GameSpec, old: int) -> Callable:
    """The entry point (single and vector) of a retired Gymnasium id: raises `RetiredEnvError`. Registered so
    that Gymnasium finds the id; without it `make` raised its generic `DeprecatedEnv` ("Please use ...")."""

    def refuse(**kwargs):
        try:
            retired_version(f"{NAMESPACE}.{spec.id}_v{old}", spec.id, retired=gymnasium_id(spec, old))
        except ImportError as error:
            raise RetiredEnvError(str(error)) from None

    refuse.__qualname__ = refuse.__name__ = f"{spec.env_name}_v{old}_is_retired"
    return refuse
