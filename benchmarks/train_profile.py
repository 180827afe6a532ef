"""Where training time goes: a short MaskablePPO run under cProfile, split into env and learner parts.

    python -m fruit_envs.benchmarks.train_profile --opponent self-play --timesteps 300000

Reports the share of wall time spent in the vector env's step (and within it the game rules and
the opponents' policies), in collecting rollouts outside the env (the learner's own forward passes),
and in PPO updates.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import tempfile
import time


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


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="cherry_picking")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--opponent", default="self-play", choices=["random", "greedy", "self-play"])
    parser.add_argument("--timesteps", type=int, default=300_000)
    args = parser.parse_args(argv)

    from fruit_envs.training import train_ppo

    with tempfile.TemporaryDirectory() as runs:
        argv_train = [
            "--game",
            args.game,
            "--num-players",
            str(args.num_players),
            "--opponent",
            args.opponent,
            "--total-timesteps",
            str(args.timesteps),
            "--eval-every",
            str(10**12),
            "--checkpoint-every",
            str(10**12),
            "--runs-dir",
            runs,
            "--no-progress",
        ]
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
