"""fruit_envs: reinforcement-learning environments for four fruit tabletop games.

import gymnasium, pettingzoo, fruit_envs  # the import registers every game with both (fruit_envs.core.registry)
env = gymnasium.make("fruit_envs/CherryPicking-v0", num_players=3, opponent="greedy")
aec = pettingzoo.make("aec", "fruit_envs/cherry_picking-v0", num_players=3)  # the same env as:
from fruit_envs import cherry_picking_v0
aec = cherry_picking_v0.env(num_players=3)
"""

from __future__ import annotations

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
from fruit_envs.core.registry import register_envs

__version__ = "0.3.0.dev0"  # the one place the version is written: pyproject reads it (dynamic = ["version"])


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
