"""Random-legal-play throughput: the PettingZoo AEC loop against the batched rules at several batch sizes.

    python -m benchmarks.throughput                    # every game, 2 players, N = 1, 64, 1024, 4096
    python -m benchmarks.throughput --seconds 0.5 --sizes 1 64

Agent-steps/s counts decisions actually taken (finished games in a batch do not count). The same
loop is used everywhere: read the mask, pick a uniformly random legal action, step.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

import fruit_envs
from fruit_envs.core import rng as frng
from fruit_envs.core.aec import FruitAECEnv
from fruit_envs.core.spec import get_spec


@dataclass
class Measurement:
    game: str
    players: int
    api: str  # "aec" or "batched"
    batch: int
    steps: int
    seconds: float

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds


def measure_aec(game: str, players: int, seconds: float, seed: int = 0) -> Measurement:
    """Steps of a PettingZoo AEC loop (raw env, one game, random legal actions) for about `seconds`."""
    env = FruitAECEnv(game, num_players=players)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            if time.perf_counter() - start > seconds:
                break
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return Measurement(game, players, "aec", 1, steps, time.perf_counter() - start)


def measure_batched(game: str, players: int, batch: int, seconds: float, seed: int = 0) -> Measurement:
    """Decisions per second of the batched rules stepping `batch` games per numpy call."""
    spec = get_spec(game)
    rules, config = spec.rules, spec.make_config(players)
    rng = np.random.default_rng(seed)
    steps, elapsed, round_ = 0, 0.0, 0
    while elapsed < seconds:
        state = rules.init(config, frng.keys_from_seed(seed + round_, batch))
        start = time.perf_counter()
        while not state.done.all():
            mask = rules.legal_mask(state)
            actions = np.argmax(np.where(mask, rng.random(mask.shape), -1.0), axis=1)
            steps += int((~state.done).sum())
            state, _ = rules.step(state, actions)
        elapsed += time.perf_counter() - start
        round_ += 1
    return Measurement(game, players, "batched", batch, steps, elapsed)


def run(games: list[str], players: list[int] | None, sizes: list[int], seconds: float) -> list[Measurement]:
    results = []
    for game in games:
        spec = get_spec(game)
        for p in players or [spec.default_num_players]:
            if p not in spec.player_counts:
                continue
            results.append(measure_aec(game, p, seconds))
            for n in sizes:
                results.append(measure_batched(game, p, n, seconds))
    return results


def table(results: list[Measurement]) -> str:
    lines = ["| game | players | api | batch | agent-steps/s | x AEC |", "|---|---|---|---|---|---|"]
    aec = {(m.game, m.players): m.steps_per_second for m in results if m.api == "aec"}
    for m in results:
        ratio = m.steps_per_second / aec[(m.game, m.players)]
        lines.append(f"| {m.game} | {m.players} | {m.api} | {m.batch} | {m.steps_per_second:,.0f} | {ratio:,.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> list[Measurement]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--games",
        nargs="+",
        default=[s.id for s in fruit_envs.registered_games()],
        help="game ids (default: every registered game)",
    )
    parser.add_argument(
        "--players", type=int, nargs="+", default=None, help="player counts (default: each game's default)"
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 64, 1024, 4096], help="batch sizes")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument(
        "--out", type=Path, default=Path("benchmarks/results/throughput.json"), help="JSON written here"
    )
    args = parser.parse_args(argv)
    results = run(args.games, args.players, args.sizes, args.seconds)
    print(table(results))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor(),
            "python": platform.python_version(),
            "numpy": np.__version__,
        },
        "results": [asdict(m) | {"steps_per_second": m.steps_per_second} for m in results],
    }
    args.out.write_text(json.dumps(payload, indent=2))
    print(f"\nwritten to {args.out}")
    return results


if __name__ == "__main__":
    main()
