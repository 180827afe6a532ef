"""What a user waits for the first env of a game: a new installation (the game runs interpreted at once
while a background process compiles its kernels) and every later process (numba loads them from its cache).

    python -m fruit_envs.benchmarks.cold_start                      # every game, 2 cold and 2 warm starts each
    python -m fruit_envs.benchmarks.cold_start --game juicy_fruits --repeats 3

Each start is a new Python process that makes the game's AEC env, resets it and takes one step (the
seconds reported are those three, after `import fruit_envs`). A cold start gets an empty numba cache
directory of its own; it also reports the rate of random play in the next 3 s (the interpreted tier) and
when the compiled kernels took over (the background compile finished and the next step ran compiled),
counted from the same start. The warm starts reuse the cache
the first cold start wrote. The machine's load changes these figures as much as anything here: say how
loaded it was when you quote them.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from fruit_envs._cli import prog
from fruit_envs.core.spec import get_spec, registered_games

FIRST_STEP = """
import json, sys, time
import numpy as np
from fruit_envs.core import lazy
from fruit_envs.core.aec import FruitAECEnv
start = time.perf_counter()
env = FruitAECEnv(sys.argv[1])
env.reset(seed=0)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
first = time.perf_counter() - start
tiers = sorted(set(lazy.tiers().values()))
gen, steps, began = np.random.default_rng(0), 0, time.perf_counter()
while time.perf_counter() - began < 3.0:  # random play in the tier of the first step, to time it
    obs, _, term, trunc, _ = env.last()
    env.step(None if term or trunc else int(gen.choice(np.flatnonzero(obs["action_mask"]))))
    steps += 1
    if not env.agents:
        env.reset()
rate = steps / (time.perf_counter() - began)
lazy.wait_compiled(900)
env.reset(seed=1)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
assert set(lazy.tiers().values()) == {"compiled"}, lazy.tiers()
print(json.dumps({"first": first, "compiled": time.perf_counter() - start, "tiers": tiers, "rate": rate}))
"""


def first_step(game: str, cache_dir: str) -> dict:
    """A new process making, resetting and stepping `game`'s AEC env with numba caching in `cache_dir`:
    `first` (seconds to that first step), `tiers` (the tier of each kernel package then), `rate` (agent-steps
    per second of random play in the next 3 s), `compiled` (seconds until a step ran compiled)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "FRUIT_ENVS_KERNELS"))}
    env |= {"NUMBA_CACHE_DIR": cache_dir}
    command = [sys.executable, "-c", FIRST_STEP, game]
    out = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"{game}: the first step failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(game: str, repeats: int) -> dict:
    """`repeats` cold starts (each with an empty cache) and `repeats` warm ones (the first cold start's cache)."""
    with tempfile.TemporaryDirectory() as first:
        cold = [first_step(game, first)]
        for _ in range(repeats - 1):
            with tempfile.TemporaryDirectory() as empty:
                cold.append(first_step(game, empty))
        warm = [first_step(game, first) for _ in range(repeats)]
    return {
        "game": game,
        "cold_s": [r["first"] for r in cold],
        "cold_tier": [r["tiers"] for r in cold],
        "cold_rate": [r["rate"] for r in cold],
        "cold_compiled_s": [r["compiled"] for r in cold],
        "warm_s": [r["first"] for r in warm],
        "warm_tier": [r["tiers"] for r in warm],
    }


def markdown(rows: list[dict]) -> str:
    lines = [
        "| game | cold start, s (empty cache) | agent-steps/s meanwhile | compiled from, s | warm start, s (cached) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        cold = " / ".join(f"{s:.1f}" for s in r["cold_s"])
        rate = " / ".join(f"{s:,.0f}" for s in r["cold_rate"])
        compiled = " / ".join(f"{s:.1f}" for s in r["cold_compiled_s"])
        warm = " / ".join(f"{s:.2f}" for s in r["warm_s"])
        lines.append(f"| {r['game']} | {cold} | {rate} | {compiled} | {warm} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    games = [spec.id for spec in registered_games()]
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.cold_start"), description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--game", action="append", choices=games, help="a game (repeatable; default: every game)")
    parser.add_argument("--repeats", type=int, default=2, help="cold and warm starts per game (default 2)")
    parser.add_argument("--json", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be a positive integer, got {args.repeats}")
    rows = []
    for game in args.game or games:
        get_spec(game)
        rows.append(measure(game, args.repeats))
        print(markdown(rows[-1:]).splitlines()[-1], flush=True)
    print(markdown(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
