"""Juicy Fruits (Deep Print Games 2021, Christian Stöhr), basic game, as PettingZoo, Gymnasium and batched environments.

(documentation page: written below once the design settles)
"""

from __future__ import annotations

from fruit_envs.core.aec import FruitAECEnv, make_aec_env

GAME = "juicy_fruits"


def raw_env(num_players: int = 2, render_mode: str | None = None, **options) -> FruitAECEnv:
    """The AEC env without wrappers: illegal actions raise `IllegalActionError`."""
    return FruitAECEnv(GAME, num_players=num_players, render_mode=render_mode, **options)


def env(num_players: int = 2, render_mode: str | None = None, **options):
    """The AEC env wrapped like PettingZoo classic environments."""
    return make_aec_env(GAME, num_players=num_players, render_mode=render_mode, **options)
