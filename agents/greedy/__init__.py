"""One greedy heuristic per game, each using only what its seat observes."""

from __future__ import annotations

from fruit_envs.core.spec import Config, GameSpec


def make_greedy(spec: GameSpec, config: Config):
    if spec.id == "cherry_picking":
        from agents.greedy.cherry_picking import CherryPickingGreedy

        return CherryPickingGreedy(config)
    raise ValueError(f"no greedy agent for {spec.id!r} yet")
