"""Compile every game's rule kernels now, so that no later process waits for them (numba caches them).

    python -m fruit_envs.compile            # every game; prints the seconds each took
    python -m fruit_envs.compile cherry_picking

A new installation otherwise compiles a game's kernels in the first process that plays it (seconds to
a minute per game on a small machine); `./dev setup` runs this once, and a Docker image build may too.
Where numba cannot cache (nothing writable), this only checks that the kernels compile.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from fruit_envs.core import rng
from fruit_envs.core.spec import get_spec, registered_games


def compile_game(game: str) -> float:
    """Play one short random game of `game` through every kernel; returns the seconds it took."""
    spec = get_spec(game)
    rules, config = spec.rules, spec.make_config()
    start = time.perf_counter()
    state = rules.init(config, rng.keys_from_seed(0, 2))
    gen = np.random.default_rng(0)
    for _ in range(spec.max_game_length(config)):
        if state.done.all():
            break
        mask = rules.legal_mask(state)
        rules.observe(state, state.to_move.astype(np.int64))
        rules.observe(state, 0)
        actions = np.where(mask, gen.random(mask.shape), -1.0).argmax(axis=1)
        state, _ = rules.step(state, actions, ~state.done)
        if hasattr(rules, "legal_masks"):
            rules.legal_masks(state)
    if hasattr(rules, "advance"):  # the AEC env's step: one game
        one = rules.init(config, rng.keys_from_seed(0, 1))
        rules.advance(one, int(np.flatnonzero(rules.legal_mask(one)[0])[0]))
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    known = [spec.id for spec in registered_games()]
    unknown = [g for g in argv if g not in known]
    if unknown:
        print(f"unknown game {unknown[0]!r}; the games are {known}", file=sys.stderr)
        return 2
    for game in argv or known:
        print(f"{game}: {compile_game(game):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
