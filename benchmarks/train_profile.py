"""Training speed, idle and beside busy processes; and where training time goes.

    python -m fruit_envs.benchmarks.train_profile --load 1                       # idle, then 1 busy process
    python -m fruit_envs.benchmarks.train_profile --load 1 --torch-threads 1 2   # compare thread counts
    python -m fruit_envs.benchmarks.train_profile --opponent self-play --timesteps 300000   # the profile

`--load N`: for each `--torch-threads` value (default: train_ppo's own choice), a short `train_ppo`
run (the main job's settings, `--timesteps` long) on a quiet machine, then the same run beside N busy
processes (each a pure-Python loop on one core, as a second job, a test suite or a browser would be).
Reports training steps/s (SB3's fps at the end of the run) and the loaded/idle ratio, and writes
`train_profile.json` and `.md` to `--out`. Nothing else should run meanwhile: the figures are only as
quiet as the machine.

Without `--load`: one run under cProfile, split into the share of wall time spent in the vector env's
step (and within it the game rules and the opponents' policies), in collecting rollouts outside the
env (the learner's own forward passes), and in PPO updates.
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import json
import os
import platform
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fruit_envs._cli import non_negative_int, positive_int, prog, writable_dir


def cumulative(stats: pstats.Stats, file_part: str, function: str, caller: tuple[str, str] | None = None) -> float:
    """Cumulative seconds of functions named `function` in files matching `file_part`, optionally
    counting only the calls made by `caller` = (file part, function name)."""
    total = 0.0
    for (filename, _, name), (_, _, _, cum, callers) in stats.stats.items():
        if name != function or file_part not in filename:
            continue
        if caller is None:
            total += cum
        else:
            total += sum(c[3] for (f, _, n), c in callers.items() if n == caller[1] and caller[0] in f)
    return total


def train_argv(args, runs: str, torch_threads: int | None) -> list[str]:
    argv = ["--game", args.game, "--num-players", str(args.num_players), "--opponent", args.opponent]
    argv += ["--total-timesteps", str(args.timesteps), "--eval-every", str(10**12), "--checkpoint-every", str(10**12)]
    argv += ["--eval-games", str(args.num_players), "--runs-dir", runs, "--no-progress"]
    return argv + ([] if torch_threads is None else ["--torch-threads", str(torch_threads)])


def busy_processes(count: int) -> list[subprocess.Popen]:
    """`count` processes that each keep one core busy (a pure-Python loop) until killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def steps_per_second(args, torch_threads: int | None, load: int) -> float:
    """Training steps/s of one `train_ppo` run in a fresh process, beside `load` busy processes."""
    others = busy_processes(load)
    try:
        with tempfile.TemporaryDirectory() as runs:
            command = [sys.executable, "-m", "fruit_envs.training.train_ppo", *train_argv(args, runs, torch_threads)]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"train_ppo failed ({done.returncode}): {done.stderr[-2000:]}")
            (progress,) = Path(runs).glob("*/progress.csv")
            with progress.open(newline="") as f:
                return float(list(csv.DictReader(f))[-1]["fps"])
    finally:
        for process in others:
            process.kill()
            process.wait()


def measure_load(args) -> dict:
    rows = []
    for threads in args.torch_threads or [None]:
        idle = steps_per_second(args, threads, 0)
        loaded = steps_per_second(args, threads, args.load)
        label = "train_ppo's default" if threads is None else str(threads)
        rows.append({"torch_threads": label, "idle": idle, "loaded": loaded, "ratio": loaded / idle})
        print(f"torch threads {label}: {idle:,.0f} steps/s idle, {loaded:,.0f} beside {args.load} busy", flush=True)
    meta = {
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "game": args.game,
        "num_players": args.num_players,
        "opponent": args.opponent,
        "timesteps": args.timesteps,
        "load": args.load,
        "command": "python -m fruit_envs.benchmarks.train_profile " + " ".join(sys.argv[1:]),
    }
    table = [
        f"{args.game}, {args.num_players} players, {args.opponent}, {args.timesteps:,} steps of train_ppo's "
        f"defaults; loaded = beside {args.load} busy process{'es' * (args.load != 1)} ({meta['date']}, "
        f"{meta['machine']})",
        "",
        "| torch threads | idle steps/s | loaded steps/s | loaded / idle |",
        "|---|---|---|---|",
        *(f"| {r['torch_threads']} | {r['idle']:,.0f} | {r['loaded']:,.0f} | {r['ratio']:.2f} |" for r in rows),
    ]
    print("\n" + "\n".join(table))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "train_profile.json").write_text(json.dumps({**meta, "results": rows}, indent=2))
    (args.out / "train_profile.md").write_text("\n".join(table) + "\n")
    print(f"written to {args.out}/train_profile.json and .md")
    return {"results": rows, **meta}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.benchmarks.train_profile"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", default="cherry_picking")
    parser.add_argument("--num-players", type=positive_int, default=2)
    parser.add_argument("--opponent", default="self-play", choices=["random", "greedy", "self-play"])
    parser.add_argument("--timesteps", type=positive_int, default=None, help="default: 40960 with --load, else 300000")
    parser.add_argument(
        "--load", type=non_negative_int, default=None, help="busy processes beside the loaded runs (measures speed)"
    )
    parser.add_argument(
        "--torch-threads", type=positive_int, nargs="+", default=None, help="thread counts to compare (with --load)"
    )
    parser.add_argument("--out", type=writable_dir, default=Path("results"), help="folder for train_profile.json/.md")
    args = parser.parse_args(argv)
    if args.load is not None:
        args.timesteps = args.timesteps or 40_960
        return measure_load(args)
    args.timesteps = args.timesteps or 300_000

    from fruit_envs.training import train_ppo

    with tempfile.TemporaryDirectory() as runs:
        argv_train = train_argv(args, runs, None)
        profiler = cProfile.Profile()
        start = time.perf_counter()
        profiler.enable()
        summary = train_ppo.train(train_ppo.parse_args(argv_train))
        profiler.disable()
        wall = time.perf_counter() - start
    stats = pstats.Stats(profiler)
    learn = cumulative(stats, "ppo_mask", "learn")
    env_step = cumulative(stats, "sb3_vec_env", "step_wait")
    in_env = [("core/engine", f) for f in ("step", "_play_opponents", "observe", "action_masks", "_start_games")]
    rules = sum(
        cumulative(stats, "fruit_envs/games", f, caller)
        for f in ("step", "observe", "legal_mask", "init")
        for caller in in_env
    )
    opponents = cumulative(stats, "agents/", "act", ("core/engine", "_play_opponents"))
    update = cumulative(stats, "ppo_mask", "train")
    rows = {
        "learn (training loop)": learn,
        "  vector env step": env_step,
        "    game rules (numpy)": rules,
        "    opponents' policies": opponents,
        "  rollout outside the env (learner forward, buffer)": cumulative(stats, "ppo_mask", "collect_rollouts")
        - env_step,
        "  PPO updates": update,
    }
    print(
        f"{args.game}, {args.num_players} players, opponent {args.opponent}: {summary['timesteps']:,} timesteps, "
        f"{summary['timesteps'] / learn:,.0f} timesteps/s inside learn (profiled; wall {wall:.1f} s)"
    )
    print("| part | seconds | share of learn |\n|---|---|---|")
    for name, seconds in rows.items():
        print(f"| {name} | {seconds:.1f} | {seconds / learn:.1%} |")
    return {name.strip(): seconds / learn for name, seconds in rows.items()}


if __name__ == "__main__":
    main()
