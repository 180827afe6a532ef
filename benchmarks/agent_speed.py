"""What the agents cost, side by side with an older checkout measured on the same machine in the same run.

    python -m fruit_envs.benchmarks.agent_speed --old 8a76e26               # decisions and arena games
    python -m fruit_envs.benchmarks.agent_speed --old 8a76e26 --jobs suite,demos   # and the long jobs
    python -m fruit_envs.benchmarks.agent_speed --old 8a76e26 --jobs all --update-docs

Issue 56 made the agents as fast as the rules; this measures it against the commit before (`--old`: a
revision of this repository, unpacked once into `~/.cache/fruit_envs/agent_speed/<rev>`, or a checkout's
folder). Every figure runs in a fresh interpreter importing `fruit_envs` from one checkout or the other
(the same Python and libraries), compiled kernels only (`FRUIT_ENVS_KERNELS=compiled`, compiled before the
clock starts) and one torch thread:

- `decisions`: in every two-player game, search's CPU seconds per decision at its default budget (16
  games at three points of random play), and greedy's, the PPO baseline's and random's CPU microseconds per
  decision at batch 16 and 256; old and new alternate game by game, one process at a time;
- `arena`: seconds per game of greedy against greedy and of random against random through the arena
  (`play_games`, batch 16 and 256, every two-player game; the best of five runs, the two taking turns), and
  their ratio;
- `suite`: wall seconds of the benchmark's standard suite for `ppo-baseline` (about half an hour at
  8a76e26), old and new at the same time, one process each;
- `demos`: wall seconds of 600 two-player Quickity Pickity search demonstrations
  (`python -m fruit_envs.training.bc --teacher search`), old and new at the same time (the old one takes
  well over 20 minutes on one core).

Writes `agent_speed.json` (after each figure, so a stopped run keeps what it measured) and `agent_speed.md`
to `--out` (default `results/`); `--update-docs` (in a checkout) puts the table on docs/performance.md. Say how
loaded the machine was when you quote a figure.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("cherry_picking", "fruit_picking", "juicy_fruits", "quickity_pickity")
JOBS = ("decisions", "arena", "suite", "demos")
DOCS_BEGIN, DOCS_END = "<!-- agent_speed:begin -->", "<!-- agent_speed:end -->"
LONG_HEADER = "| job (wall seconds, old and new at once) | old | new | speed-up |"

# Run in the measured checkout by a fresh interpreter: only names both checkouts have.
CHILD = r"""
import json, sys, time
import numpy as np
import torch

torch.set_num_threads(1)
from fruit_envs import get_spec
from fruit_envs.agents import make_agent
from fruit_envs.agents.arena import play_games
from fruit_envs.agents.base import state_kwargs
from fruit_envs.core import rng as frng

job, game = sys.argv[1], sys.argv[2]
spec = get_spec(game)
config = spec.make_config(2)
rules = spec.rules


def positions(n, steps, seed):
    state = rules.init(config, frng.keys_from_seed(seed, n))
    gen = np.random.default_rng(seed)
    for t in range(max(steps) + 1):
        if t in steps:
            yield state.take(np.flatnonzero(~state.done))
        mask = rules.legal_mask(state)
        state, _ = rules.step(state, np.where(mask, gen.random(mask.shape), -1.0).argmax(axis=1), ~state.done)


def cost(agent, state, repeats):
    seats = state.to_move.astype(np.int64)
    obs, mask = rules.observe(state, seats), rules.legal_mask(state)
    extra = state_kwargs(agent, state, seats)
    gen = np.random.default_rng(0)
    agent.act(obs, mask, gen, **extra)  # compiled and warm before the clock
    times = []
    for _ in range(repeats):
        start = time.process_time()
        agent.act(obs, mask, gen, **extra)
        times.append(time.process_time() - start)
    return float(np.median(times)) / len(mask)


out = {}
if job == "decisions":
    search = make_agent("search", spec, config)
    spots = [s for s in positions(16, (4, 12, 24), 1) if s.batch_size]
    cost(search, spots[0], 1)  # compiled and warm before the clock
    start, decisions = time.process_time(), 0
    for state in spots:
        seats = state.to_move.astype(np.int64)
        search.act(rules.observe(state, seats), rules.legal_mask(state), np.random.default_rng(2),
                   **state_kwargs(search, state, seats))
        decisions += state.batch_size
    out["search_cpu_s"] = (time.process_time() - start) / decisions
    for name in ("random", "greedy", "ppo-baseline"):
        agent = make_agent(name, spec, config)
        for batch in (16, 256):
            (state,) = positions(batch, (6,), 3)
            out[f"{name}_us_b{batch}"] = 1e6 * cost(agent, state, 200 if batch == 16 else 40)
elif job == "arena":
    for batch in (16, 256):
        seating = np.zeros((batch, 2), dtype=np.int64)
        agents = {name: [make_agent(name, spec, config)] for name in ("random", "greedy")}
        best = dict.fromkeys(agents, float("inf"))
        for name in agents:
            play_games(spec, config, agents[name], seating[: min(batch, 4)], seed=99)  # compiled, warm
        for rep in range(5):  # the best of five, the two agents taking turns: a slow moment hits both or neither
            for name in agents:
                start = time.perf_counter()
                play_games(spec, config, agents[name], seating, seed=rep)
                best[name] = min(best[name], time.perf_counter() - start)
        for name in agents:
            out[f"{name}_ms_per_game_b{batch}"] = 1e3 * best[name] / batch
print("RESULT " + json.dumps(out))
"""


def checkout(old: str) -> Path:
    """The folder of `old`: itself if it is a checkout, else revision `old` of this repository unpacked once
    into the user's cache (kept, so its compiled kernels are cached too)."""
    if Path(old).is_dir():
        return Path(old).resolve()
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short=12", f"{old}^{{commit}}"], capture_output=True, text=True
    )
    if rev.returncode:
        raise SystemExit(f"--old {old!r} is neither a folder nor a revision of {ROOT}: {rev.stderr.strip()}")
    target = Path.home() / ".cache" / "fruit_envs" / "agent_speed" / rev.stdout.strip()
    if not (target / "pyproject.toml").is_file():
        partial = Path(tempfile.mkdtemp(prefix="unpack-", dir=target.parent if target.parent.is_dir() else None))
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev.stdout.strip()], capture_output=True, check=True
        )
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(partial, filter="data")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
    return target


def _env(folder: Path) -> dict:
    return os.environ | {
        "PYTHONPATH": str(folder),
        "FRUIT_ENVS_KERNELS": "compiled",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def child(folder: Path, job: str, game: str) -> dict:
    """Run one measurement in a fresh interpreter importing `fruit_envs` from `folder`."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, job, game], cwd=folder, env=_env(folder), capture_output=True, text=True
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        raise RuntimeError(f"{job} {game} in {folder} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(lines[-1][len("RESULT ") :])


def command_seconds(folder: Path, argv: list[str]) -> float:
    """Wall seconds of `python -m ...argv` run in `folder`."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", *argv], cwd=folder, env=_env(folder), capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)} in {folder} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return time.perf_counter() - start


def long_jobs(folders: dict[str, Path], jobs: list[str], scratch: Path, out: dict, save) -> dict:
    """The suite and the demonstrations, old and new at the same time (one process each), into `out`."""
    for job in jobs:
        runs = {}
        for side in folders:
            where = scratch / f"{job}-{side}"
            if job == "suite":
                argv = ["fruit_envs.benchmarks.benchmark", "ppo-baseline", "--suite", "standard"]
                argv += ["--out", str(where), "--no-progress"]
            else:
                argv = ["fruit_envs.training.bc", "--game", "quickity_pickity", "--teacher", "search"]
                argv += ["--games", "600", "--out", str(where) + ".npz"]
            runs[side] = argv
        with ThreadPoolExecutor(len(runs)) as pool:
            futures = {side: pool.submit(command_seconds, folders[side], argv) for side, argv in runs.items()}
            out[job] = {side: future.result() for side, future in futures.items()}
        save()
    return out


def measure(old: Path, jobs: list[str], games: list[str], out: Path) -> dict:
    """Every figure of `jobs`, written to `out/agent_speed.json` as each is measured (a stopped run keeps them)."""
    folders = {"old": old, "new": ROOT}
    for folder in folders.values():  # compile each checkout's kernels (rules and agents) before any clock
        subprocess.run(
            [sys.executable, "-m", "fruit_envs.compile", *games], cwd=folder, env=_env(folder), capture_output=True
        )
    result: dict = {"games": {}, "machine": _machine(), "old": str(old), "new": str(ROOT), "long": {}}
    out.mkdir(parents=True, exist_ok=True)

    def save() -> None:
        result["machine"] = _machine()
        (out / "agent_speed.json").write_text(json.dumps(result, indent=2))

    for game in games:
        row = result["games"].setdefault(game, {})
        for job in ("decisions", "arena"):
            if job in jobs:
                for side, folder in folders.items():
                    row[f"{job}_{side}"] = child(folder, job, game)
                save()
    with tempfile.TemporaryDirectory() as scratch:
        long_jobs(folders, [j for j in ("suite", "demos") if j in jobs], Path(scratch), result["long"], save)
    return result


def _machine() -> dict:
    return {
        "cpus": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "load_average_at_end": os.getloadavg() if hasattr(os, "getloadavg") else None,
    }


def table(result: dict) -> str:
    """The Markdown tables of a result."""
    lines = []
    games = result["games"]
    if any("decisions_new" in row for row in games.values()):
        lines += [
            "| game (2 players) | search CPU s / decision, old | new | speed-up | greedy µs / decision b16, old | new "
            "| b256 old | new | PPO µs / decision b16, old | new | b256 old | new | random µs / decision b16 | b256 |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for game, row in games.items():
            o, n = row["decisions_old"], row["decisions_new"]
            cells = [
                f"{o['search_cpu_s']:.4f}",
                f"{n['search_cpu_s']:.4f}",
                f"{o['search_cpu_s'] / n['search_cpu_s']:.1f}x",
            ]
            for name in ("greedy", "ppo-baseline"):
                for batch in (16, 256):
                    cells += [f"{o[f'{name}_us_b{batch}']:.1f}", f"{n[f'{name}_us_b{batch}']:.1f}"]
            cells += [f"{n['random_us_b16']:.1f}", f"{n['random_us_b256']:.1f}"]
            lines.append(f"| {game} | " + " | ".join(cells) + " |")
        lines.append("")
    if any("arena_new" in row for row in games.values()):
        lines += [
            "| game (2 players) | greedy / random game cost b16, old | new | b256 old | new "
            "| greedy ms / game b16, new | random ms / game b16, new |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for game, row in games.items():
            cells = []
            for batch in (16, 256):
                for side in ("old", "new"):
                    a = row[f"arena_{side}"]
                    cells.append(f"{a[f'greedy_ms_per_game_b{batch}'] / a[f'random_ms_per_game_b{batch}']:.2f}x")
            n = row["arena_new"]
            cells += [f"{n['greedy_ms_per_game_b16']:.2f}", f"{n['random_ms_per_game_b16']:.2f}"]
            lines.append(f"| {game} | " + " | ".join(cells) + " |")
        lines.append("")
    labels = {"suite": "benchmark standard suite, ppo-baseline", "demos": "600 Quickity Pickity search demonstrations"}
    if result.get("long"):
        lines += [LONG_HEADER, "|---|---:|---:|---:|"]
        for job, sides in result["long"].items():
            speed = sides["old"] / sides["new"]
            lines.append(f"| {labels[job]} | {sides['old']:.0f} | {sides['new']:.0f} | {speed:.1f}x |")
        lines.append("")
    return "\n".join(lines)


def update_docs(markdown: str, command: str) -> Path:
    """Put the table between the markers of docs/performance.md's agents section."""
    page = ROOT / "docs" / "performance.md"
    text = page.read_text()
    if DOCS_BEGIN not in text:
        raise SystemExit(f"{page} has no {DOCS_BEGIN} marker")
    head, rest = text.split(DOCS_BEGIN, 1)
    before, tail = rest.split(DOCS_END, 1)
    if LONG_HEADER not in markdown and LONG_HEADER in before:  # long jobs not run now: keep the last ones measured
        kept = before[before.index(LONG_HEADER) :].split("\n\n", 1)[0]
        markdown = f"{markdown.rstrip()}\n\n{kept}\n"
        kept = " (the long jobs' table: kept from an earlier run of `--jobs suite,demos`)"
    else:
        kept = ""
    page.write_text(f"{head}{DOCS_BEGIN}\nMade by `{command}`{kept}.\n\n{markdown}\n{DOCS_END}{tail}")
    return page


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True, help="a revision of this repository (e.g. 8a76e26) or a checkout")
    parser.add_argument("--jobs", default="decisions,arena", help=f"comma-separated, of {list(JOBS)}, or all")
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES, metavar="GAME")
    parser.add_argument("--out", type=Path, default=Path("results"), help="folder for agent_speed.json/.md")
    parser.add_argument("--update-docs", action="store_true", help="write the table on docs/performance.md")
    args = parser.parse_args(argv)
    jobs = list(JOBS) if args.jobs == "all" else [j.strip() for j in args.jobs.split(",") if j.strip()]
    unknown = sorted(set(jobs) - set(JOBS))
    if unknown or not jobs:
        parser.error(f"--jobs {args.jobs!r}: choose from {list(JOBS)} or all")
    result = measure(checkout(args.old), jobs, args.games, args.out)
    markdown = table(result)
    (args.out / "agent_speed.md").write_text(markdown)
    print(markdown)
    if args.update_docs:
        shown = [a for a in (argv if argv is not None else sys.argv[1:]) if a != "--update-docs"]
        if "--out" in shown:  # where this run kept its files is nobody else's business
            del shown[shown.index("--out") : shown.index("--out") + 2]
        command = "python -m fruit_envs.benchmarks.agent_speed " + " ".join(shown)
        print(f"wrote {update_docs(markdown, command)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
