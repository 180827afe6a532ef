"""Random-legal-play throughput of every game and API, against peer libraries measured in the same run.

    python -m fruit_envs.benchmarks.throughput                       # everything (a few minutes)
    python -m fruit_envs.benchmarks.throughput --quick               # short measurements, smaller grid
    python -m fruit_envs.benchmarks.throughput --games cherry_picking --players 2 --sizes 1 4096

For every registered game and player count: agent-steps/s and games/s through the PettingZoo AEC
env, the Gymnasium single-agent env and the batched rules at several batch sizes, one batch whose rows
are stepped by one thread per core (the compiled kernels release the GIL), the batched rules sharded
over all cores (one process per core, each stepping its own batch), and bytes of state per game.
Peers, with the same loop (read the legal actions, pick one uniformly at random, step):
PettingZoo classic `connect_four_v3` and `texas_holdem_v4` (AEC) and OpenSpiel `mancala` and
`goofspiel` through `pyspiel` (its C++ core). A peer that is not installed (`pip install -e .[peers]`)
is skipped with a note, never faked.

Writes `throughput.json`, `throughput.md` and `throughput.png` (log-log steps/s against batch size,
peers as horizontal lines) to `--out`, by default `results/` under the current directory.
`--update-readme` (in a source checkout only) refreshes the full table on docs/performance.md and the
README's summary of it (`summary`: a row per game), and writes the files to the checkout's
`benchmarks/results/`, unless `--out` says otherwise. `load` reads a `throughput.json` back.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import sys
import threading
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

import fruit_envs
from fruit_envs._checkout import checkout_root, has_block, provenance, replace_block
from fruit_envs._cli import positive_float, positive_int, prog, writable_dir
from fruit_envs.core import rng as frng
from fruit_envs.core import validate
from fruit_envs.core.aec import FruitAECEnv
from fruit_envs.core.spec import get_spec


@dataclass
class Measurement:
    game: str
    players: int
    api: str  # "aec", "gym", "batched", "threaded" (one batch, its rows on several threads), "sharded", or "peer"
    batch: int  # games per process (1 for the single-game APIs)
    processes: int
    steps: int  # agent decisions taken
    games: int  # games finished
    seconds: float
    state_bytes: float | None = None  # bytes of state per game (batched)
    note: str = ""

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds if self.seconds else 0.0

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict:
        return asdict(self) | {"steps_per_second": self.steps_per_second, "games_per_second": self.games_per_second}


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row (the loop every batched measurement uses): a uniform
    draw in [0, 1) per action, +1 where legal, argmax; in place and float32 throughout."""
    draw = rng.random(mask.shape, dtype=np.float32)
    draw += mask
    return draw.argmax(axis=1)


# ----------------------------------------------------------------------------------------------
# Our APIs


def aec_random_play(env, seconds: float, seed: int = 0) -> tuple[int, int, float]:
    """Random legal play through a PettingZoo AEC env (ours or a peer's, the same loop) until `seconds`
    have passed and a game has ended; returns (agent-steps, games, seconds)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = games = 0
    start = time.perf_counter()
    while True:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            games += 1
            if time.perf_counter() - start > seconds:
                break
            env.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps, games, time.perf_counter() - start


def measure_aec(game: str, players: int, seconds: float, seed: int = 0) -> Measurement:
    """PettingZoo AEC loop: raw env, one game at a time."""
    env = FruitAECEnv(game, num_players=players)
    steps, games, elapsed = aec_random_play(env, seconds, seed)
    return Measurement(game, players, "aec", 1, 1, steps, games, elapsed)


def measure_gym(game: str, players: int, seconds: float, seed: int = 0) -> Measurement:
    """Gymnasium single-agent env against random opponents; every seat's decision counts."""
    import gymnasium

    env = gymnasium.make(get_spec(game).gym_id, num_players=players, opponent="random")
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps = int(env.unwrapped.game_state.step_count[0])
    games = 0
    start = time.perf_counter()
    while True:
        legal = np.flatnonzero(info["action_mask"])
        before = int(env.unwrapped.game_state.step_count[0])
        _, _, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
        steps += int(env.unwrapped.game_state.step_count[0]) - before
        if term or trunc:
            games += 1
            if time.perf_counter() - start > seconds:
                break
            _, info = env.reset()
            steps += int(env.unwrapped.game_state.step_count[0])
    return Measurement(game, players, "gym", 1, 1, steps, games, time.perf_counter() - start)


def measure_batched(game: str, players: int, batch: int, seconds: float, seed: int = 0) -> Measurement:
    """The batched rules stepping `batch` games per numpy call for `seconds`; a finished game is
    replaced at once by a new one (as in the vector env), so every step is `batch` decisions."""
    spec = get_spec(game)
    rules, config = spec.rules, spec.make_config(players)
    rng = np.random.default_rng(seed)
    keys = frng.keys_from_seed(seed, batch)
    keys, sub = frng.split(keys)
    state = rules.init(config, sub)
    state_bytes = sum(a.nbytes for a in state.arrays().values()) / batch
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state, finished = random_step(rules, config, state, keys, rng)
        steps += batch
        games += finished
    return Measurement(game, players, "batched", batch, 1, steps, games, time.perf_counter() - start, state_bytes)


def random_step(rules, config, state, keys: np.ndarray, rng: np.random.Generator, in_place: bool = False):
    """One random legal decision in every game of `state`; a finished game restarts at once from the next
    key of its stream (written back into `keys`). Returns the state and how many games finished."""
    state, _ = rules.step(state, random_legal(rules.legal_mask(state), rng), in_place=in_place)
    finished = np.flatnonzero(state.done)
    if len(finished):
        keys[finished], fresh = frng.split(keys[finished])
        state.put(finished, rules.init(config, fresh))
    return state, len(finished)


def measure_threaded(game: str, players: int, batch: int, seconds: float, threads: int, seed: int = 0) -> Measurement:
    """One batch of `batch` games in one process, its rows split among `threads` threads, each stepping
    its part in place: the compiled kernels release the GIL (numba `nogil`), so the parts run on
    separate cores at once."""
    spec = get_spec(game)
    rules, config = spec.rules, spec.make_config(players)
    keys, sub = frng.split(frng.keys_from_seed(seed, batch))
    state = rules.init(config, sub)
    bounds = np.linspace(0, batch, threads + 1).astype(np.int64)
    counts = np.zeros((threads, 2), dtype=np.int64)  # agent-steps, games
    ready, stop = threading.Barrier(threads + 1), threading.Event()

    def work(k: int) -> None:
        a, b = int(bounds[k]), int(bounds[k + 1])
        part, own_keys, rng = state.rows(a, b), keys[a:b], np.random.default_rng(seed + k)
        ready.wait()
        while not stop.is_set():
            _, finished = random_step(rules, config, part, own_keys, rng, in_place=True)
            counts[k] += b - a, finished

    workers = [threading.Thread(target=work, args=(k,), daemon=True) for k in range(threads)]
    for worker in workers:
        worker.start()
    ready.wait()
    start = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - start
    return Measurement(
        game, players, "threaded", batch, threads, int(counts[:, 0].sum()), int(counts[:, 1].sum()), elapsed
    )


def _shard(args) -> tuple[int, int, float]:
    game, players, batch, seconds, seed, barrier = args
    import fruit_envs  # noqa: F401  (registers the games in the child)

    barrier.wait()
    m = measure_batched(game, players, batch, seconds, seed)
    return m.steps, m.games, m.seconds


def measure_sharded(game: str, players: int, batch: int, seconds: float, processes: int) -> Measurement:
    """One process per core, each stepping its own batch; steps summed, time of the slowest."""
    ctx = mp.get_context("spawn")
    with ctx.Manager() as manager:
        barrier = manager.Barrier(processes)
        with ctx.Pool(processes) as pool:
            parts = pool.map(_shard, [(game, players, batch, seconds, 1000 * k, barrier) for k in range(processes)])
    steps = sum(p[0] for p in parts)
    games = sum(p[1] for p in parts)
    return Measurement(game, players, "sharded", batch, processes, steps, games, max(p[2] for p in parts))


# ----------------------------------------------------------------------------------------------
# Peers


def measure_pettingzoo_peer(name: str, seconds: float, seed: int = 0) -> Measurement:
    import importlib

    module = importlib.import_module(f"pettingzoo.classic.{name}")
    env = module.raw_env()
    steps, games, elapsed = aec_random_play(env, seconds, seed)
    return Measurement(f"pettingzoo:{name}", env.num_agents, "peer", 1, 1, steps, games, elapsed)


def measure_openspiel_peer(name: str, seconds: float, seed: int = 0) -> Measurement:
    """OpenSpiel's C++ game through pyspiel; a simultaneous node counts one decision per player."""
    import pyspiel

    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    players = game.num_players()
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(actions, probs)[0])
            elif state.is_simultaneous_node():
                state.apply_actions([rng.choice(state.legal_actions(p)) for p in range(players)])
                steps += players
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
        games += 1
    return Measurement(f"openspiel:{name}", players, "peer", 1, 1, steps, games, time.perf_counter() - start)


PEERS = [
    ("pettingzoo:connect_four_v3", lambda s: measure_pettingzoo_peer("connect_four_v3", s)),
    ("pettingzoo:texas_holdem_v4", lambda s: measure_pettingzoo_peer("texas_holdem_v4", s)),
    ("openspiel:mancala", lambda s: measure_openspiel_peer("mancala", s)),
    ("openspiel:goofspiel", lambda s: measure_openspiel_peer("goofspiel", s)),
]


def measure_peers(seconds: float) -> tuple[list[Measurement], list[str]]:
    results, notes = [], []
    for name, measure in PEERS:
        try:
            results.append(measure(seconds))
        except ImportError as error:  # the peers extra is not installed
            notes.append(f"{name} skipped: {error} (install with pip install -e '.[peers]')")
    return results, notes


# ----------------------------------------------------------------------------------------------
# The run and its outputs


def run(games, players, sizes, seconds, processes, peers=True, progress=print):
    from fruit_envs.compile import compile_game

    results = []
    for game in games:
        spec = get_spec(game)
        compile_game(game)  # measure the compiled kernels, never the interpreted tier nor a compile
        for p in players or spec.official_player_counts:
            if p not in spec.player_counts:
                continue
            progress(f"{game} {p}p ...")
            results.append(measure_aec(game, p, seconds))
            results.append(measure_gym(game, p, seconds))
            for n in sizes:
                results.append(measure_batched(game, p, n, seconds))
            if processes > 1:
                for n in sizes:
                    if n >= 1024:
                        results.append(measure_threaded(game, p, n, seconds, processes))
                        results.append(measure_sharded(game, p, n, seconds, processes))
    notes = []
    if peers:
        peer_results, notes = measure_peers(seconds)
        results += peer_results
    return results, notes


def markdown(results: list[Measurement], notes: list[str], meta: dict) -> str:
    own = [m for m in results if m.api != "peer"]
    sizes = sorted({m.batch for m in own if m.api == "batched"})
    sharded_sizes = sorted({m.batch for m in own if m.api == "sharded"})
    threaded_sizes = sorted({m.batch for m in own if m.api == "threaded"})
    anchor = next((m.steps_per_second for m in results if m.game == "pettingzoo:connect_four_v3"), None)
    head = ["game", "players", "AEC"] + (["AEC / connect_four"] if anchor else [])
    head += ["Gymnasium"] + (["Gymnasium / connect_four"] if anchor else []) + [f"N={n}" for n in sizes]
    procs = max((m.processes for m in own if m.api == "sharded"), default=1)
    threads = max((m.processes for m in own if m.api == "threaded"), default=1)
    head += [f"N={n} on {threads} threads" for n in threaded_sizes]
    head += [f"N={n} x {procs} processes" for n in sharded_sizes]
    head += ["best / AEC", "state bytes/game"]
    lines = [
        f"Random legal play, agent-steps/s. {meta['date']}, {meta['machine']}.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for game, p in dict.fromkeys((m.game, m.players) for m in own):
        row = {m.api + str(m.batch): m for m in own if (m.game, m.players) == (game, p)}
        aec, gym = row["aec1"].steps_per_second, row["gym1"].steps_per_second
        cells = [game, str(p), f"{aec:,.0f}"] + ([f"{aec / anchor:.2f}x"] if anchor else [])
        cells += [f"{gym:,.0f}"] + ([f"{gym / anchor:.2f}x"] if anchor else [])
        cells += [f"{row[f'batched{n}'].steps_per_second:,.0f}" if f"batched{n}" in row else "" for n in sizes]
        cells += [
            f"{row[f'threaded{n}'].steps_per_second:,.0f}" if f"threaded{n}" in row else "" for n in threaded_sizes
        ]
        cells += [f"{row[f'sharded{n}'].steps_per_second:,.0f}" if f"sharded{n}" in row else "" for n in sharded_sizes]
        best = max(m.steps_per_second for m in row.values())
        cells += [f"{best / aec:,.0f}x", f"{row[f'batched{sizes[-1]}'].state_bytes:,.0f}" if sizes else ""]
        lines.append("| " + " | ".join(cells) + " |")
    peers = [m for m in results if m.api == "peer"]
    if peers:
        lines += ["", "| peer (same loop, same run) | players | agent-steps/s | games/s |", "|---|---|---|---|"]
        lines += [f"| {m.game} | {m.players} | {m.steps_per_second:,.0f} | {m.games_per_second:,.1f} |" for m in peers]
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def summary(results: list[Measurement], notes: list[str], meta: dict) -> str:
    """The README's short table of `markdown`'s: each game at its smallest player count, through the AEC and
    Gymnasium envs and the fastest batched way measured, then the peers in one line."""
    own = [m for m in results if m.api != "peer"]
    lines = [
        f"Random legal play, agent-steps/s, each game at its smallest player count. {meta['date']}, {meta['machine']}.",
        "",
        "| game | players | AEC | Gymnasium | batched, fastest | fastest / AEC |",
        "|---|---|---|---|---|---|",
    ]
    for game in dict.fromkeys(m.game for m in own):
        players = min(m.players for m in own if m.game == game)
        row = {m.api: m for m in own if (m.game, m.players) == (game, players) and m.api in ("aec", "gym")}
        aec, gym = row["aec"].steps_per_second, row["gym"].steps_per_second
        batched = [m for m in own if (m.game, m.players) == (game, players) and m.api not in ("aec", "gym")]
        best = max(batched, key=lambda m: m.steps_per_second, default=None)
        way = {"batched": "", "threaded": f" on {best.processes} threads", "sharded": f" x {best.processes} processes"}
        fastest = f"{best.steps_per_second:,.0f} (N={best.batch}{way[best.api]})" if best else ""
        ratio = f"{max(aec, gym, best.steps_per_second if best else 0) / aec:,.0f}x"
        lines.append(f"| {game} | {players} | {aec:,.0f} | {gym:,.0f} | {fastest} | {ratio} |")
    peers = [f"{m.game} {m.steps_per_second:,.0f}" for m in results if m.api == "peer"]
    if peers:
        lines += ["", "Peers with the same loop in the same run, agent-steps/s: " + ", ".join(peers) + "."]
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def load(path: Path) -> tuple[list[Measurement], list[str], dict]:
    """A `throughput.json` read back: its measurements, notes and the rest (date, machine, commit), as
    `markdown` and `summary` take them, so the tables can be redrawn without measuring again."""
    data = json.loads(Path(path).read_text())
    names = {field.name for field in fields(Measurement)}
    results = [Measurement(**{k: v for k, v in row.items() if k in names}) for row in data.pop("results")]
    return results, data.pop("notes", []), data


def plot(results: list[Measurement], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    own = [m for m in results if m.api == "batched"]
    for game, p in dict.fromkeys((m.game, m.players) for m in own):
        series = sorted((m.batch, m.steps_per_second) for m in own if (m.game, m.players) == (game, p))
        ax.plot(*zip(*series, strict=True), marker="o", label=f"{game} {p}p (batched)")
    for i, m in enumerate(m for m in results if m.api == "peer"):
        ax.axhline(m.steps_per_second, ls="--", lw=1, color=f"C{(i + 5) % 10}", label=f"{m.game}")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="games per batch",
        ylabel="agent-steps/s",
        title="Random legal play, one process",
    )
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def checkout_readme() -> Path:
    """The checkout's README, whose throughput summary `--update-readme` replaces (and the full table on
    docs/performance.md beside it); a clear ValueError elsewhere."""
    root = checkout_root()
    if root is None:
        raise ValueError(
            "--update-readme refreshes the README of a source checkout, and this fruit_envs is an installed "
            "package; run it from a checkout of the repository, or leave the flag out"
        )
    readme = root / "README.md"
    for page in (readme, performance_page(readme)):
        if not has_block(page, "throughput"):
            raise ValueError(f"{page} has no <!-- throughput:start --> ... <!-- throughput:end --> block")
    return readme


def performance_page(readme: Path) -> Path:
    return readme.parent / "docs" / "performance.md"


def update_readme(results: list[Measurement], notes: list[str], meta: dict, readme: Path) -> None:
    """The README's summary and the performance page's full table, from the same measurements."""
    replace_block(readme, "throughput", summary(results, notes, meta))
    replace_block(performance_page(readme), "throughput", markdown(results, notes, meta))


def benchmark(argv: list[str] | None = None) -> list[Measurement]:
    """Parse the command line, measure, write the results and print the table; bad input is a ValueError."""
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.throughput"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--games",
        nargs="+",
        default=[s.id for s in fruit_envs.registered_games()],
        help="game ids (default: every registered game)",
    )
    parser.add_argument(
        "--players",
        type=positive_int,
        nargs="+",
        default=None,
        help="player counts (default: each game's rulebook counts)",
    )
    parser.add_argument("--sizes", type=positive_int, nargs="+", default=[1, 64, 1024, 4096, 16384], help="batch sizes")
    parser.add_argument("--seconds", type=positive_float, default=1.0, help="time per measurement")
    parser.add_argument(
        "--processes", type=positive_int, default=os.cpu_count() or 1, help="processes for the sharded runs"
    )
    parser.add_argument("--no-peers", action="store_true", help="skip the peer libraries")
    parser.add_argument("--quick", action="store_true", help="0.3 s per measurement, sizes 1 64 4096")
    parser.add_argument(
        "--out",
        type=writable_dir,
        default=None,
        help="folder for throughput.json/.md/.png (default: ./results; with --update-readme the checkout's "
        "benchmarks/results)",
    )
    parser.add_argument(
        "--update-readme",
        action="store_true",
        help="replace the README's throughput summary and docs/performance.md's full table (a source checkout only)",
    )
    args = parser.parse_args(argv)
    readme = checkout_readme() if args.update_readme else None
    if args.out is None:
        args.out = readme.parent / "benchmarks" / "results" if readme is not None else Path("results")
    validate.writable_dir(args.out, "--out")  # before minutes of measurements, not after
    if args.quick:
        args.seconds, args.sizes = 0.3, [1, 64, 4096]
    specs = [get_spec(game) for game in args.games]  # unknown games fail before anything is measured
    for p in args.players or ():
        if not any(p in spec.player_counts for spec in specs):
            raise ValueError(f"--players {p}: none of the games {args.games} is played by {p} players")
    results, notes = run(args.games, args.players, args.sizes, args.seconds, args.processes, not args.no_peers)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"numpy {np.__version__}",
        **provenance(),  # the git commit, from a checkout only
    }
    table = markdown(results, notes, meta)
    print("\n" + table)
    args.out.mkdir(parents=True, exist_ok=True)
    payload = {**meta, "notes": notes, "results": [m.to_json() for m in results]}
    (args.out / "throughput.json").write_text(json.dumps(payload, indent=2))
    (args.out / "throughput.md").write_text(table)
    plot(results, args.out / "throughput.png")
    if readme is not None:
        update_readme(results, notes, meta, readme)
        print(f"summary replaced in {readme}, full table in {performance_page(readme)}")
    print(f"written to {args.out}/throughput.json, .md and .png")
    return results


def main(argv: list[str] | None = None) -> int:
    """The command: exit status 0, or 2 with a message naming what was wrong."""
    try:
        benchmark(argv)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
