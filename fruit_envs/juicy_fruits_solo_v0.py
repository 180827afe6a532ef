"""Juicy Fruits score attack: OUR OWN single-player mode (not the official solo rules); see `juicy_fruits_v0`."""

from __future__ import annotations

from fruit_envs.core.aec import FruitAECEnv, make_aec_env

GAME = "juicy_fruits_solo"


def raw_env(num_players: int = 1, render_mode: str | None = None, **options) -> FruitAECEnv:
    """The AEC env without wrappers: illegal actions raise `IllegalActionError`."""
    return FruitAECEnv(GAME, num_players=num_players, render_mode=render_mode, **options)


def env(num_players: int = 1, render_mode: str | None = None, **options):
    """The AEC env wrapped like PettingZoo classic environments."""
    return make_aec_env(GAME, num_players=num_players, render_mode=render_mode, **options)
