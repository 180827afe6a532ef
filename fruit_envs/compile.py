"""Compile every game's rule kernels and its greedy agent's now, so that no later process waits for them
(numba caches them).

    python -m fruit_envs.compile            # every game; prints the seconds each took
    python -m fruit_envs.compile cherry_picking
    python -m fruit_envs.compile --kernels fruit_envs.games.juicy_fruits   # the games playing those kernels
    python -m fruit_envs.compile --kernels fruit_envs.agents.greedy.juicy_fruits   # a greedy agent's kernels

A new installation otherwise compiles a game's kernels in a background process the first time a game is
played, running them interpreted until it has finished (`fruit_envs.core.lazy`); `./dev setup` runs this
once, and a Docker image build may too. Where numba cannot cache (nothing writable), this only checks
that the kernels compile. One compile of a kernel package runs at a time on a machine (a file lock in the
temporary directory): a second waits for it, then finds the kernels cached.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from filelock import FileLock

from fruit_envs.core import lazy, rng
from fruit_envs.core.rules_api import game_rules
from fruit_envs.core.spec import get_spec, registered_games


def compile_game(game: str) -> float:
    """Play one short random game of `game` through every kernel, its greedy agent's included, compiled (in
    this process, whatever `$FRUIT_ENVS_KERNELS` says, from now on); returns the seconds it took."""
    from fruit_envs.agents.greedy import make_greedy
    from fruit_envs.agents.hooks import search_hooks

    spec = get_spec(game)
    rules, config = spec.rules, spec.make_config()
    optional = game_rules(spec)
    lazy.force_compiled()
    start = time.perf_counter()
    state = rules.init(config, rng.keys_from_seed(0, 2))
    gen = np.random.default_rng(0)
    greedy = make_greedy(spec, config)
    for _ in range(spec.max_game_length(config)):
        if state.done.all():
            break
        mask = rules.legal_mask(state)
        obs = rules.observe(state, state.to_move.astype(np.int64))
        greedy.act(obs[~state.done], mask[~state.done], gen)
        rules.observe(state, 0)
        actions = np.where(mask, gen.random(mask.shape), -1.0).argmax(axis=1)
        state, _ = rules.step(state, actions, ~state.done)
        if optional.legal_masks is not None:
            optional.legal_masks(state)
    search_hooks(game).progress(state)  # search's progress score (greedy's set worth, in some games)
    rollout = rules.init(config, rng.keys_from_seed(1, 2))
    greedy.rollout(rollout, 2, gen)  # search's compiled rollouts (last: the cache probe looks for it)
    if optional.advance is not None:  # the AEC env's step: one game
        one = rules.init(config, rng.keys_from_seed(0, 1))
        optional.advance(one, int(np.flatnonzero(rules.legal_mask(one)[0])[0]))
    return time.perf_counter() - start


def games_using(package: str) -> list[str]:
    """The registered games whose rules live in `package` (their kernels' folder), or whose greedy agent does
    (`fruit_envs.agents.greedy.<game>`)."""
    return [
        spec.id
        for spec in registered_games()
        if package in (spec.rules.__name__.rpartition(".")[0], f"fruit_envs.agents.greedy.{spec.id}")
    ]


def compile_lock(package: str) -> FileLock:
    """The machine-wide lock one compile of `package`'s kernels holds (keyed by the installation and numba's
    cache directory, so compiles into different caches do not wait for each other)."""
    cache = os.environ.get("NUMBA_CACHE_DIR", "")
    where = hashlib.sha1(f"{package}:{Path(__file__).resolve().parent}:{cache}".encode()).hexdigest()[:12]
    return FileLock(os.path.join(tempfile.gettempdir(), f"fruit_envs-compile-{where}.lock"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if any(arg in ("-h", "--help") for arg in argv):
        print(__doc__.strip())
        return 0
    if argv[:1] == ["--kernels"]:
        if len(argv) != 2 or not games_using(argv[1]):
            example = "fruit_envs.games.cherry_picking"
            print(f"--kernels takes one game package, e.g. {example}; got {argv[1:]}", file=sys.stderr)
            return 2
        lock = compile_lock(argv[1])
        try:
            lock.acquire()
        except OSError:  # a lock file we may not open (another user's): compile unserialised
            lock = None
        try:
            return main(games_using(argv[1]))
        finally:
            if lock is not None:
                lock.release()
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
