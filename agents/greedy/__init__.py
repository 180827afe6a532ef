"""One greedy heuristic per game, each using only what its seat observes.

The heuristic of game `<id>` lives in `agents/greedy/<id>.py` and exposes `make(config)`.
"""

from __future__ import annotations

import importlib

from fruit_envs.core.spec import Config, GameSpec


def make_greedy(spec: GameSpec, config: Config):
    try:
        module = importlib.import_module(f"fruit_envs.agents.greedy.{spec.id}")
    except ModuleNotFoundError as error:
        if error.name != f"fruit_envs.agents.greedy.{spec.id}":
            raise
        raise ValueError(f"no greedy agent for {spec.id!r} (agents/greedy/{spec.id}.py is missing)") from None
    return module.make(config)
