"""What every trainer shares (`train_ppo`, `train_rllib`): the arguments they both take, the checks on
them and their JSON form, defined once so an option (a thread count, a budget) is added in one place."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from fruit_envs._checkout import provenance
from fruit_envs.core import validate


@dataclass
class TrainArgs:
    """Arguments of every trainer (each trainer's `Args` adds its own)."""

    game: str = "cherry_picking"
    """registered game id (cherry_picking, ...)"""
    exp_name: str = "run"
    """experiment name, part of the run folder's name (each trainer has its own default)"""
    total_timesteps: int = 1_000_000
    """timesteps to train for (each trainer has its own default and counts its own way)"""
    seed: int = 1
    """seed of the model, the environments and the opponents"""
    learning_rate: float = 3e-4
    """Adam step size"""
    gamma: float = 1.0
    """discount factor (1.0: games are short and rewards terminal)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    net_arch: tuple[int, ...] = (256, 256)
    """hidden layer sizes of the policy and value networks"""
    eval_every: int = 250_000
    """timesteps between evaluations against random and greedy (one-player games: mean score)"""
    eval_games: int = 400
    """games per evaluation and opponent, seats rotated (rounded down to a multiple of the player count)"""
    eval_seed: int = 12345
    """seed of the fixed evaluation games"""
    checkpoint_every: int = 500_000
    """timesteps between checkpoints"""
    runs_dir: Path = Path("runs")
    """folder holding run folders"""
    torch_threads: int | None = None
    """CPU threads for torch in this process (default: $FRUIT_ENVS_TORCH_THREADS, else $OMP_NUM_THREADS,
    else 1; never more than the cores it may use). More than 1 is faster only on a machine doing nothing else:
    see the README's training section"""
    progress: bool = True
    """show progress while training"""
    resume: Path | None = None
    """continue this run folder from its latest checkpoint (its saved arguments are used)"""
    resume_total_timesteps: int | None = None
    """with --resume: train up to this many timesteps instead of the run's own total"""
    options: tuple[str, ...] = ()
    """game options as name=value, e.g. --options same_sort_bonus=once"""


def args_to_json(args: TrainArgs) -> dict:
    """The arguments as JSON-able values (paths as strings, tuples as lists), for config.json."""
    d = dataclasses.asdict(args)
    for key, value in d.items():
        if isinstance(value, Path):
            d[key] = str(value)
        elif isinstance(value, tuple):
            d[key] = list(value)
    return d


def args_from_json(cls: type[TrainArgs], d: dict) -> TrainArgs:
    """`cls` from what `args_to_json` wrote (a run's config.json), `resume` cleared."""
    defaults = cls()
    values = {}
    for key, value in d.items():
        default = getattr(defaults, key, None)
        if isinstance(default, tuple) and value is not None:
            value = tuple(value)
        elif key == "runs_dir":
            value = Path(value)
        values[key] = value
    return dataclasses.replace(defaults, **{**values, "resume": None})


def check_args(
    args: TrainArgs,
    config,
    *,
    at_least: dict[str, int] | None = None,
    ranges: dict[str, tuple[float, float | None]] | None = None,
    positive: tuple[str, ...] = (),
    starting: bool = True,
    error: type[ValueError] = ValueError,
) -> None:
    """Refuse bad values before anything starts: integers below their minimum (`at_least` adds a trainer's
    own), numbers outside `ranges` or not `positive`, bad layer sizes, and (for a run that is `starting`;
    a resumed run writes in its own folder) a runs folder that cannot be written. Raises `error`."""
    minimum = {
        "total_timesteps": 1,
        "eval_every": 1,
        "eval_games": config.num_players,  # one game per seat at least (seats are rotated)
        "checkpoint_every": 1,
        "seed": 0,
        "eval_seed": 0,
        **({} if args.torch_threads is None else {"torch_threads": 1}),
        **(at_least or {}),
    }
    for name, low in minimum.items():
        value = getattr(args, name)
        if not validate.is_int(value) or value < low:
            raise error(f"--{flag(name)} must be an integer >= {low}, got {value!r}")
    if args.resume_total_timesteps is not None and args.resume_total_timesteps < 1:
        raise error(f"--resume-total-timesteps must be a positive integer, got {args.resume_total_timesteps}")
    bounds = {"gamma": (0.0, 1.0), "gae_lambda": (0.0, 1.0), "ent_coef": (0.0, None), "vf_coef": (0.0, None)}
    for name, (low, high) in {**bounds, **(ranges or {})}.items():
        value = getattr(args, name)
        if value is None and name in (ranges or {}):  # an optional setting left unset
            continue
        if not low <= value <= (high if high is not None else float("inf")):
            allowed = f"in [{low}, {high}]" if high is not None else f">= {low}"
            raise error(f"--{flag(name)} must be {allowed}, got {value}")
    for name in ("learning_rate", "max_grad_norm", *positive):
        value = getattr(args, name)
        if not 0 < value < float("inf"):
            raise error(f"--{flag(name)} must be a positive number, got {value}")
    if any(size < 1 for size in args.net_arch):
        raise error(f"--net-arch sizes must be positive integers, got {list(args.net_arch)}")
    if starting:
        try:
            validate.writable_dir(args.runs_dir, "--runs-dir")
        except ValueError as problem:
            raise error(str(problem)) from None


def start_run(args: TrainArgs, spec, config, versions: dict, torch_threads: int, **extra) -> tuple[Path, dict]:
    """A new run folder `{runs_dir}/{game}__{exp_name}__{seed}__{timestamp}` (a suffix when two runs start in
    the same second) with `checkpoints/` and its `config.json`; returns the folder and what config.json holds."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = Path(args.runs_dir) / f"{spec.id}__{args.exp_name}__{args.seed}__{stamp}"
    suffix = 1
    while run_dir.exists():
        run_dir = Path(args.runs_dir) / f"{spec.id}__{args.exp_name}__{args.seed}__{stamp}-{suffix}"
        suffix += 1
    (run_dir / "checkpoints").mkdir(parents=True)
    meta = {
        "args": args_to_json(args),
        "game_version": spec.version,
        "config": config.to_dict(),
        "versions": versions,
        **provenance(),  # the git commit, from a checkout only
        **extra,
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "command": sys.argv,
        "torch_threads": torch_threads,
        "resumes": [],
    }
    atomic_write_text(run_dir / "config.json", json.dumps(meta, indent=2))
    return run_dir, meta


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` under a temporary name, then rename: a kill never leaves half a file."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def flag(name: str) -> str:
    return name.replace("_", "-")


def run_command(run, print_summary, errors: type[Exception] | tuple = ValueError) -> int:
    """A trainer's exit code: 2 with the message on a refused input, the signal's code when a stop
    signal ended the run (its state is saved), else 0 after printing the summary."""
    try:
        summary = run()
    except errors as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if summary.get("interrupted"):
        return summary["exit_code"]
    print_summary(summary)
    return 0
