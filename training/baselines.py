"""The trained PPO baselines shipped in `agents/baselines/`: list them, export a run into them, retrain them.

    python -m fruit_envs.training.baselines list
    python -m fruit_envs.training.baselines export runs/cherry_picking__recipe__1__20261201-120000
    python -m fruit_envs.training.baselines export RUN_A RUN_B --average-from 1500000   # mean weights of both runs
    python -m fruit_envs.training.baselines retrain                       # every recipe and player count
    python -m fruit_envs.training.baselines retrain --games fruit_picking --players 3 --out /tmp/baselines

A baseline is the policy's weights (`<game>_<n>p.zip`, SB3's `policy.save` format, weights in float16 to
keep the package small) and a `.json` naming the
rules version, configuration and observation shape it was trained on, the recipe, and its final
evaluation; `make_agent("ppo-baseline", game, config)` refuses a baseline of another rules version or
observation size. A recipe's `ship:` section (`seeds`, `average_from`) makes `retrain` train one run per
seed and ship the mean weights of their checkpoints from that step on, evaluated afresh. Exporting
writes into the repository's `agents/baselines/` by default, so it needs a checkout (or `--out`): an
installed package is never written to.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

from fruit_envs._cli import prog, writable_dir
from fruit_envs.agents.ppo import BASELINES, shipped_baselines
from fruit_envs.core import validate

CHECKOUT = Path(__file__).resolve().parents[1]


def default_out() -> Path:
    """The repository's `agents/baselines/` when running from a checkout."""
    if (CHECKOUT / "pyproject.toml").is_file() and BASELINES.parent == CHECKOUT / "agents":
        return BASELINES
    raise ValueError("not running from a checkout of fruit_envs: pass --out FOLDER to choose where baselines go")


class HalfPrecision:
    """A policy saved as SB3's `policy.save` writes it, floating-point weights in float16: half the size,
    and `load_state_dict` casts them back to float32 on load, so every SB3 loader still reads it."""

    def __init__(self, policy):
        self.policy = policy

    def save(self, path: Path) -> None:
        import torch

        state = {k: v.half() if v.is_floating_point() else v for k, v in self.policy.state_dict().items()}
        torch.save({"state_dict": state, "data": self.policy._get_constructor_parameters()}, path)


def finished_run(run_dir: Path) -> tuple[dict, dict]:
    """A finished run's `config.json` and `summary.json` (empty when it has none), or a clear refusal."""
    meta_path, model_path = run_dir / "config.json", run_dir / "model.zip"
    if not meta_path.is_file() or not model_path.is_file():
        raise ValueError(f"{run_dir} is not a finished run folder (config.json and model.zip are needed)")
    summary_path = run_dir / "summary.json"
    return json.loads(meta_path.read_text()), json.loads(summary_path.read_text()) if summary_path.is_file() else {}


def run_seconds(summary: dict) -> float | None:
    """A run's wall time from its summary: every segment of a resumed run."""
    return summary.get("total_seconds", summary.get("seconds"))


def evaluate_fresh(model, spec, config, run_args: dict) -> dict:
    """A model's evaluation as its run evaluates (the run's games, seed and argmax setting): against random
    and greedy, or its mean score in a one-player game (beside random's and greedy's)."""
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import evaluate, evaluate_alone
    from fruit_envs.agents.ppo import PPOAgent
    from fruit_envs.training.train_ppo import SOLO_SUMMARY, WIN_SUMMARY

    games, seed = run_args["eval_games"], run_args["eval_seed"]
    agents = {name: make_agent(name, spec, config) for name in ("random", "greedy")}
    ppo = PPOAgent(model, spec, config, deterministic=run_args.get("eval_deterministic", True))
    if config.num_players == 1:
        scores = {name: evaluate_alone(spec, config, a, games, seed=seed) for name, a in {**agents, "ppo": ppo}.items()}
        return {name: {k: r[k] for k in SOLO_SUMMARY} for name, r in scores.items()}
    results = {name: evaluate(spec, config, ppo, a, games, seed=seed) for name, a in agents.items()}
    return {name: {k: r[k] for k in WIN_SUMMARY} for name, r in results.items()}


def export(run_dir: Path, out: Path, average_from: int | None = None, also: tuple[Path, ...] = ()) -> dict:
    """Copy a finished run's policy into `out` as the baseline of its game and player count. With
    `average_from`, the baseline is the mean weights of every checkpoint from that step on of this run and
    of the runs in `also` (the same recipe and game, other seeds), evaluated afresh as the run evaluates."""
    from fruit_envs import get_spec
    from fruit_envs.agents.ppo import load_model
    from fruit_envs.training.average import average, checkpoints
    from fruit_envs.training.common import atomic_write_text
    from fruit_envs.training.train_ppo import atomic_save_model

    run_dir = Path(run_dir)
    run, summary = finished_run(run_dir)
    spec = get_spec(run["args"]["game"])
    config = spec.config_from_dict(run["config"])
    if run.get("game_version") != spec.version:
        raise ValueError(
            f"{run_dir} trained {spec.id} v{run.get('game_version')}; the installed rules are v{spec.version}"
        )
    if also and average_from is None:
        raise ValueError("several runs make one baseline only as the mean of their checkpoints: pass --average-from")
    seconds = run_seconds(summary)
    if average_from is None:
        model, final_eval, averaged = load_model(run_dir / "model.zip"), summary.get("eval"), None
    else:
        paths = checkpoints(run_dir, average_from)
        for other in map(Path, also):
            other_run, other_summary = finished_run(other)
            same = all(other_run["args"].get(k) == run["args"].get(k) for k in ("game", "recipe"))
            if not same or other_run["config"] != run["config"]:
                raise ValueError(f"{other} is not a run of {run_dir}'s recipe, game and configuration: not averaged")
            paths += checkpoints(other, average_from)
            seconds = (seconds or 0) + (run_seconds(other_summary) or 0)
        model = average(paths)
        final_eval = evaluate_fresh(model, spec, config, run["args"])
        runs = [run_dir.name, *(Path(o).name for o in also)]
        averaged = {"runs": runs, "from_step": average_from, "checkpoints": len(paths)}
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{spec.id}_{config.num_players}p"
    started_from = starting_point(run["args"].get("init_policy"), stem.with_suffix(".json"))
    atomic_save_model(HalfPrecision(model.policy), stem.with_suffix(".zip"))
    meta = {
        "game": spec.id,
        "rules_version": spec.version,
        "num_players": config.num_players,
        "config": config.to_dict(),
        "observation_shape": list(spec.observation_shape(config)),
        "num_actions": spec.num_actions,
        "weights": "float16",
        "recipe": run["args"].get("recipe"),
        "timesteps": summary.get("timesteps"),
        "training_seconds": seconds,  # of every run averaged
        "final_eval": final_eval,
        "run": run_dir.name,
        "git": run.get("git"),
        "exported": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    if averaged is not None:  # timesteps above are each run's
        meta["averaged"] = averaged
    if started_from is not None:  # a second stage: timesteps and seconds above are this stage's alone
        meta["started_from"] = started_from
    atomic_write_text(stem.with_suffix(".json"), json.dumps(meta, indent=2) + "\n")
    return meta


def starting_point(init_policy: str | None, previous: Path) -> dict | None:
    """Where a run that began from `init_policy` started: for the shipped baseline, what that baseline was
    (its recipe, run, budget and the stage it started from in turn); for a file, its path."""
    if init_policy is None:
        return None
    if init_policy != "ppo-baseline" and Path(init_policy).resolve() != previous.with_suffix(".zip").resolve():
        return {"policy": init_policy}
    before = json.loads(previous.read_text()) if previous.is_file() else {}
    keep = ("recipe", "run", "timesteps", "training_seconds", "started_from")
    return {"policy": "ppo-baseline", **{key: before[key] for key in keep if key in before}}


def stage_of(name: str, num_players: int, out: Path) -> str | None:
    """The second-stage recipe (`<stage>/<name>`: `expert/<name>`, `finetune/<name>`) that the baseline in
    `out` for this count came from, if any: `retrain` then runs it after the recipe itself, from the
    baseline just exported."""
    from fruit_envs.training import train_ppo

    game = train_ppo.load_recipe(name, num_players).game
    shipped = out / f"{game}_{num_players}p.json"
    if not shipped.is_file():
        return None
    stage = json.loads(shipped.read_text()).get("recipe")
    if not isinstance(stage, str) or stage.count("/") != 1 or not stage.endswith(f"/{name}"):
        return None
    return stage if stage in train_ppo.recipe_names() and num_players in train_ppo.recipe_player_counts(stage) else None


def retrain(games: list[str] | None, runs_dir: Path, out: Path, players: list[int] | None = None) -> list[dict]:
    """Train every recipe (or those of `games`) at each player count it covers (or those of `players`)
    from scratch, one after another, and export each result."""
    from fruit_envs.training import train_ppo

    names = games or sorted(p.stem for p in train_ppo.RECIPES.glob("*.yaml"))
    jobs = [(name, n) for name in names for n in train_ppo.recipe_player_counts(name) if not players or n in players]
    if not jobs:
        raise ValueError(f"no recipe of {names} covers {players} players")
    exported = []
    for name, n in jobs:
        stage = stage_of(name, n, out)  # read before the first stage's export replaces what names it
        for recipe in (name, stage) if stage else (name,):
            args = train_ppo.load_recipe(name=recipe, num_players=n)
            args.runs_dir = runs_dir
            if recipe == stage:
                args.init_policy = str(out / f"{args.game}_{n}p.zip")
                if stage.startswith("expert/") and out.resolve() != BASELINES.resolve():  # search:guided reads it
                    print(f"note: {stage} imitates search guided by the baseline in {BASELINES}", file=sys.stderr)
            ship = train_ppo.recipe_shipping(recipe)
            run_dirs = []
            for seed in ship.get("seeds", [args.seed]):
                steps = f"{args.total_timesteps:,} timesteps"
                print(f"training {recipe}, {n} player(s), seed {seed} ({steps}) ...", file=sys.stderr)
                summary = train_ppo.train(dataclasses.replace(args, seed=seed))
                if summary.get("interrupted"):
                    raise SystemExit(summary["exit_code"])
                run_dirs.append(Path(summary["run_dir"]))
            exported.append(export(run_dirs[0], out, ship.get("average_from"), tuple(run_dirs[1:])))
            print(f"exported {recipe} {n}p: {exported[-1]['final_eval']}", file=sys.stderr)
    return exported


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=prog("fruit_envs.training.baselines"),
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the shipped baselines and what they were trained on")
    one = commands.add_parser("export", help="copy a finished run's policy into the baselines folder")
    one.add_argument(
        "run_dirs", type=Path, nargs="+", metavar="RUN", help="finished runs (more than one: --average-from)"
    )
    one.add_argument(
        "--average-from",
        type=int,
        default=None,
        metavar="STEP",
        help="ship the mean weights of the runs' checkpoints from this step on, evaluated afresh",
    )
    one.add_argument("--out", type=writable_dir, default=None, help="baselines folder (default: the checkout's)")
    every = commands.add_parser("retrain", help="train every recipe (or --games) and export the results")
    every.add_argument("--games", nargs="*", default=None, help="recipe names (default: all)")
    every.add_argument(
        "--players", nargs="*", type=int, default=None, help="player counts (default: every count each recipe covers)"
    )
    every.add_argument("--runs-dir", type=writable_dir, default=Path("runs"), help="where the run folders go")
    every.add_argument("--out", type=writable_dir, default=None, help="baselines folder (default: the checkout's)")
    args = parser.parse_args(argv)
    try:
        if args.command == "list":
            for meta in shipped_baselines():
                print(
                    f"{meta['game']} {meta['num_players']}p: rules v{meta['rules_version']}, recipe {meta['recipe']}, "
                    f"{meta['timesteps']:,} timesteps; final evaluation {meta['final_eval']}"
                )
            return 0
        out = args.out or validate.writable_dir(default_out(), "baselines folder")  # before hours of training
        if args.command == "export":
            meta = export(args.run_dirs[0], out, args.average_from, tuple(args.run_dirs[1:]))
            print(f"exported {meta['game']} {meta['num_players']}p to {out}")
        else:
            retrain(args.games, args.runs_dir, out, args.players)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
