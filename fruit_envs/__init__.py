"""fruit_envs: reinforcement-learning environments for four fruit tabletop games.

import gymnasium, fruit_envs
env = gymnasium.make("fruit_envs/CherryPicking-v0", num_players=3, opponent="greedy")
from fruit_envs import cherry_picking_v0
aec = cherry_picking_v0.env(num_players=3)
"""

from __future__ import annotations

import gymnasium

from fruit_envs import (
    _checkout,  # noqa: F401  (first: serves fruit_envs.agents/.training/.benchmarks in a checkout)
    games,  # noqa: F401  (registers every game)
)
from fruit_envs.core import (
    DescriptionError,
    IllegalActionError,
    InvalidActionError,
    ResetNeededError,
    StateError,
    get_spec,
    registered_games,
)
from fruit_envs.core.gym_env import FruitEnv, FruitVectorEnv

__version__ = "0.1.0"  # the one place the version is written: pyproject reads it (dynamic = ["version"])


def register_envs() -> None:
    """Register every game with Gymnasium as `fruit_envs/<Name>-v<version>` (idempotent)."""
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


register_envs()


def _pettingzoo_modules() -> dict:
    """PettingZoo-style registry: "fruit/<game>_v<version>" -> module with env(), raw_env() (and parallel_env())."""
    import importlib

    modules = {}
    for spec in registered_games():
        module = importlib.import_module(f"fruit_envs.{spec.pettingzoo_name}")
        globals()[spec.pettingzoo_name] = module
        modules[f"fruit/{spec.pettingzoo_name}"] = module
    return modules


all_environments = _pettingzoo_modules()
from fruit_envs import cherry_picking_v0  # noqa: E402  (explicit, for static tools)

__all__ = [
    "DescriptionError",
    "FruitEnv",
    "FruitVectorEnv",
    "IllegalActionError",
    "InvalidActionError",
    "ResetNeededError",
    "StateError",
    "all_environments",
    "cherry_picking_v0",
    "get_spec",
    "register_envs",
    "registered_games",
]
