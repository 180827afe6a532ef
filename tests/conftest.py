"""Shared parametrisation: every registered game x player count, so a new game is tested on arrival."""

from __future__ import annotations

import fruit_envs  # noqa: F401  (registers the games)
from fruit_envs.core.spec import registered_games
from fruit_envs.core.threads import limit_threads

# One torch (and BLAS) thread in each test process: `./dev test` runs one xdist worker per core, and more
# threads than cores make torch's threads wait on each other (issue 30). Training subprocesses inherit it.
limit_threads(1)


def game_ids() -> list[str]:
    return [spec.id for spec in registered_games()]


def game_player_params(all_counts: bool = False) -> list[tuple[str, int]]:
    params = []
    for spec in registered_games():
        counts = spec.player_counts if all_counts else spec.official_player_counts
        params += [(spec.id, p) for p in counts]
    return params


def option_params() -> list[tuple[str, str, object]]:
    """Every non-default value of every option of every game."""
    params = []
    for spec in registered_games():
        for name, field in spec.config_cls.options().items():
            for value in field.metadata.get("choices") or ():
                if value != field.default:
                    params.append((spec.id, name, value))
    return params
