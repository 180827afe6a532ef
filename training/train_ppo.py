"""MaskablePPO on the batched vector env, with self-play, evaluation and everything logged to disk.

    python -m fruit_envs.training.train_ppo --game cherry_picking --num-players 2 --total-timesteps 1500000
    python -m fruit_envs.training.train_ppo --resume runs/cherry_picking__ppo__1__20261129-120000
    python -m fruit_envs.training.train_ppo --game juicy_fruits_solo   # a one-player game: reward = points

One run folder `runs/{game}__{exp_name}__{seed}__{timestamp}/` holds `config.json` (arguments,
versions, git commit), TensorBoard events (`charts/`, `losses/`, `eval/`), `progress.csv`,
`eval.csv`, `checkpoints/step_*.zip` and `checkpoints/latest.zip`, `model.zip` (the final model),
`league/` (self-play snapshots), `learning_curve.png` and `summary.json` (`seconds`: this segment's
PPO; `total_seconds`: the whole run's wall time, warm start and earlier segments included, counted
through `checkpoints/clock.json`). Ctrl-C or SIGTERM saves a checkpoint and
exits (status 130 / 143); `--resume RUN_DIR` continues from `checkpoints/latest.zip`, appending to
the logs. Every file is written to a temporary name and renamed, so a kill never leaves a torn file.

A one-player game (the Juicy Fruits score attack) has no opponents and no winner: it trains on its
points, keeps no league, and its evaluations report PPO's mean score beside the random and greedy
agents' mean scores on the same seeded games.
"""

from __future__ import annotations

import csv
import dataclasses
import importlib
import json
import os
import platform
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from fruit_envs._checkout import provenance
from fruit_envs._cli import prog, progress_bar
from fruit_envs.core import validate
from fruit_envs.core.threads import limit_threads
from fruit_envs.training import common
from fruit_envs.training.common import TrainArgs, atomic_write_text


@dataclass
class Args(TrainArgs):
    """Arguments of a training run (every field is a command-line flag)."""

    num_players: int | None = None
    """players per game (default: the game's own default, 2 for most games, 1 for juicy_fruits_solo)"""
    exp_name: str = "ppo"
    """experiment name, part of the run folder's name"""
    total_timesteps: int = 1_500_000
    """learner decisions to train for"""
    opponent: str = "self-play"
    """who plays the other seats: self-play (a league of the learner's own snapshots), or one fixed agent
    in every other seat, named as everywhere (random, greedy, search, ppo-baseline, a model .zip, your
    module:make); one-player games: nobody"""
    league_baselines: tuple[str, ...] = ("greedy",)
    """self-play: fixed agents kept in the league beside the snapshots (may be empty)"""
    snapshot_every: int = 25
    """self-play: freeze a copy of the learner (weights only) into the league every this many updates"""
    league_size: int = 8
    """self-play: most recent snapshots kept in play (all stay on disk)"""
    latest_weight: float = 0.5
    """self-play: share of opponent seats played by the current learner itself"""
    baseline_weight: float | None = None
    """self-play: share of opponent seats played by the fixed `league_baselines` together, so the learner
    keeps meeting them however many snapshots the league holds (default: one share each, like a snapshot)"""
    reward: Literal["terminal", "score"] | None = None
    """'terminal': +1 win / -1 loss / 0 full draw; 'score': per-step score deltas (shaping);
    default: the game's own (terminal; score for one-player games)"""
    num_envs: int = 128
    """games stepped together in one numpy call"""
    n_steps: int = 32
    """decisions per game between updates (rollout length)"""
    batch_size: int = 1024
    """minibatch size"""
    n_epochs: int = 4
    """passes over each rollout"""
    clip_range: float = 0.2
    """PPO clipping"""
    eval_deterministic: bool = True
    """evaluate with the policy's most likely legal action (SB3's deterministic=True);
    --no-eval-deterministic samples from the masked policy instead (seeded, so still reproducible)"""
    record_eval: bool = False
    """append every evaluation game to eval_games.jsonl in the run folder (python -m fruit_envs.replay);
    one-player games: the baselines' games once, PPO's at every evaluation"""
    recipe: str | None = None
    """a training recipe: a name in training/recipes/ (e.g. cherry_picking) or a YAML file; its values
    replace these defaults, and flags given on the command line override the recipe"""
    shaping: float = 0.0
    """potential-based reward shaping: this times the change of the learner's running score margin
    (its score minus the best other seat's) is added to each reward; 0 = off. The optimum is unchanged"""
    bc_games: int = 0
    """behaviour cloning warm start: before PPO, the policy imitates `bc_teacher` on this many batched
    games of the teacher against itself (and its value head learns their returns); 0 = off"""
    bc_teacher: str = "greedy"
    """the agent imitated by the warm start (any agent: greedy, search, search:rollouts=64, module:make, ...)"""
    bc_opponent: str | None = None
    """the warm start's teacher plays one seat against this agent (its decisions alone are imitated)
    instead of itself in every seat: the positions a learner trained against that opponent meets
    (with `bc_games`; saved demonstrations, `bc_data`, record their own opponent)"""
    bc_expert: str | None = None
    """with `bc_expert_decides`: this agent (e.g. search) makes the warm-start teacher's decisions of those
    kinds, so the teacher is `bc_teacher` improved where the expert plays better"""
    bc_expert_decides: tuple[str, ...] = ()
    """kinds of action (the first word of an action's name: take, flip, place, ...) `bc_expert` decides"""
    bc_workers: int | None = None
    """local worker processes playing the warm start's games, 50 at a time (None: every usable core; 1: this
    process); the same demonstrations on any number (`fruit_envs.core.units`)"""
    bc_ray: str | None = None
    """play the warm start's games on a Ray cluster instead: auto, ray://HOST:PORT or local"""
    bc_data: str | None = None
    """demonstrations saved by `python -m fruit_envs.training.bc` (a .npz file) to imitate instead of
    playing `bc_games` new games: a slow teacher (search) is played once for many runs"""
    bc_epochs: int = 10
    """passes over the warm start's demonstrations"""
    bc_learning_rate: float = 1e-3
    """Adam step size of the warm start"""
    bc_soft_temperature: float = 0.0
    """imitate, where the teacher kept its value of each action it weighed (search), a softmax of those
    values at this temperature instead of its choice alone (`Demonstrations.soft_targets`); 0 = its choices"""
    bc_soft_weight: float = 1.0
    """with `bc_soft_temperature`: the share of each soft target given to the softmax, the rest to the
    action the teacher took (where a gate kept its first choice against the values, say)"""
    greedy_timesteps: int = 0
    """curriculum: the first this many timesteps are played against greedy only, then `opponent` takes over"""
    row_encoder: bool = False
    """encode each block of like rows the game declares (`rules.observation_rows`: Quickity Pickity's set
    rows) with one network shared by its rows, pooled and kept per row, before the MLP (`agents.networks`)"""
    init_policy: str | None = None
    """start from these weights instead of a new network: a model or policy .zip, or `ppo-baseline` (the
    shipped baseline of this game and player count) to fine-tune it; a warm start, if any, refines them"""


PROGRESS_COLUMNS = [
    "timesteps",
    "iteration",
    "time_elapsed",
    "fps",
    "ep_rew_mean",
    "ep_len_mean",
    "success_rate",
    "truncated_rate",  # share of the rollout's finished games cut off by a cap (no outcome paid)
    "policy_gradient_loss",
    "value_loss",
    "entropy_loss",
    "approx_kl",
    "clip_fraction",
    "clip_range",
    "explained_variance",
    "learning_rate",
    "loss",
    "n_updates",
    "league_size",
]
EVAL_COLUMNS = [
    "timesteps",
    "opponent",
    "games",
    "wins",
    "draws",
    "losses",
    "truncated",  # games cut off by a cap: unfinished, neither win nor loss (win_rate is over finished games)
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "seconds",
    "run_seconds",  # wall time of the whole run when the evaluation ended (warm start, earlier segments included)
]
SOLO_EVAL_COLUMNS = [  # one-player games: each agent alone on the same seeded games
    "timesteps",
    "agent",
    "games",
    "mean_score",
    "score_std",
    "score_low",
    "score_high",
    "mean_length",
    "seconds",
    "run_seconds",
]


# ---------------------------------------------------------------------------------------------
# Files written atomically


def atomic_save_model(model, path: Path) -> None:
    """Save a model zip under a temporary name, then rename it: readers never see half a file."""
    tmp = path.with_name(path.stem + ".tmp.zip")
    model.save(tmp)
    os.replace(tmp, path)


class CsvLog:
    """Append-only CSV with a fixed header; rows past a resume point move to `<name>.superseded.csv`."""

    def __init__(self, path: Path, columns: list[str]):
        self.path, self.columns = path, columns
        if not path.exists():
            atomic_write_text(path, ",".join(columns) + "\n")
        elif self.rows_header() != columns:  # a run from an older version: its rows under today's columns
            rows = self.rows()
            tmp = path.with_name(path.name + ".tmp")
            with tmp.open("w", newline="") as f:
                writer = csv.DictWriter(f, columns, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(rows)
            os.replace(tmp, path)

    def rows_header(self) -> list[str]:
        with self.path.open(newline="") as f:
            return next(csv.reader(f), [])

    def append(self, row: dict) -> None:
        with self.path.open("a", newline="") as f:
            csv.DictWriter(f, self.columns, extrasaction="ignore").writerow(row)
            f.flush()
            os.fsync(f.fileno())

    def rows(self) -> list[dict]:
        with self.path.open(newline="") as f:
            return list(csv.DictReader(f))

    def truncate_after(self, timesteps: int) -> int:
        """Keep rows up to `timesteps`; later ones (from after the checkpoint) are set aside, not lost."""
        rows = self.rows()
        keep = [r for r in rows if int(float(r["timesteps"])) <= timesteps]
        later = [r for r in rows if int(float(r["timesteps"])) > timesteps]
        if later:
            aside = self.path.with_suffix(".superseded.csv")
            new = not aside.exists()
            with aside.open("a", newline="") as f:
                writer = csv.DictWriter(f, self.columns, extrasaction="ignore")
                if new:
                    writer.writeheader()
                writer.writerows(later)
            tmp = self.path.with_name(self.path.name + ".tmp")
            with tmp.open("w", newline="") as f:
                writer = csv.DictWriter(f, self.columns, extrasaction="ignore")
                writer.writeheader()
                writer.writerows(keep)
            os.replace(tmp, self.path)
        return len(later)


# ---------------------------------------------------------------------------------------------
# Logging: SB3's records go to TensorBoard (renamed into charts/ and losses/) and progress.csv


def make_sb3_logger(run_dir: Path, writer, progress: CsvLog, league_size, rollout_size: int):
    """SB3's logger writing TensorBoard and `progress.csv`; `iteration` counts rollouts since the run began
    (`timesteps // rollout_size`), so it continues across resumes (SB3's own count restarts)."""
    from stable_baselines3.common.logger import KVWriter, Logger

    class RunWriter(KVWriter):
        def write(self, key_values, key_excluded, step=0):
            row = {"timesteps": step, "league_size": league_size(), "iteration": step // rollout_size}
            for key, value in key_values.items():
                if isinstance(value, str) or value is None:
                    continue
                group, name = key.split("/", 1) if "/" in key else ("charts", key)
                row[name] = value
                if "tensorboard" in (key_excluded.get(key) or ()):
                    continue
                tb_group = "losses" if group == "train" else "charts"
                writer.add_scalar(f"{tb_group}/{name}", float(value), step)
            progress.append(row)
            writer.flush()

        def close(self):
            pass

    return Logger(str(run_dir), [RunWriter()])


# ---------------------------------------------------------------------------------------------
# The run


def versions() -> dict:
    import gymnasium
    import pettingzoo
    import sb3_contrib
    import stable_baselines3
    import torch

    import fruit_envs

    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
        "gymnasium": gymnasium.__version__,
        "pettingzoo": pettingzoo.__version__,
        "fruit_envs": fruit_envs.__version__,
    }


def args_from_json(d: dict) -> Args:
    return common.args_from_json(Args, d)


def parse_options(options: tuple[str, ...]) -> dict:
    """`("same_sort_bonus=once", "rounds=3")` -> `{"same_sort_bonus": "once", "rounds": 3}`."""
    parsed = {}
    for item in options:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise ValueError(f"--options takes name=value pairs, got {item!r}")
        try:
            parsed[name] = json.loads(value)
        except json.JSONDecodeError:
            parsed[name] = value
    return parsed


def check_args(args: Args, spec, config, starting: bool = True) -> None:
    """Refuse bad values before the run folder exists: counts below 1, rates outside their range,
    unknown league agents, a runs folder that cannot be written; and, for a run that is `starting`
    (a resume plays no warm start), warm-start flags that would be ignored."""
    from fruit_envs.agents import make_agent

    at_least = {"snapshot_every": 1, "league_size": 1, "num_envs": 1, "n_steps": 1, "n_epochs": 1}
    at_least["batch_size"] = 2  # SB3 normalises advantages over a minibatch: one sample has no spread
    common.check_args(
        args,
        config,
        at_least=at_least,
        ranges={"latest_weight": (0.0, 1.0), "baseline_weight": (0.0, 1.0)},
        positive=("clip_range",),
        starting=starting,
    )
    if args.baseline_weight is not None and args.latest_weight + args.baseline_weight > 1.0:
        raise ValueError(
            f"--latest-weight {args.latest_weight} and --baseline-weight {args.baseline_weight} share the "
            "opponent seats: together they must be at most 1 (the rest goes to the snapshots)"
        )
    if args.baseline_weight is not None and args.baseline_weight > 0 and not args.league_baselines:
        raise ValueError(f"--baseline-weight {args.baseline_weight} needs at least one --league-baselines agent")
    if starting and args.bc_opponent is not None and args.bc_data:
        raise ValueError(
            f"--bc-opponent {args.bc_opponent} plays new warm-start games, but --bc-data {args.bc_data} "
            "already holds its games (with the opponent they were played against): give one or the other"
        )
    if starting and args.bc_opponent is not None and args.bc_games <= 0:
        raise ValueError(f"--bc-opponent {args.bc_opponent} needs --bc-games N > 0 (the warm-start games to play)")
    if args.bc_workers is not None or args.bc_ray is not None:
        from fruit_envs.core import units

        try:
            units.backend(args.bc_workers, args.bc_ray)
        except ValueError as error:
            raise ValueError(f"--bc-workers / --bc-ray: {error}") from None
    if args.row_encoder:
        policy_kwargs(args, spec, config)  # a game without row blocks is refused before the run folder exists
    playing = args.bc_games > 0 and not args.bc_data
    if not (np.isfinite(args.bc_soft_temperature) and args.bc_soft_temperature >= 0) or not (
        0.0 <= args.bc_soft_weight <= 1.0
    ):
        raise ValueError(
            f"--bc-soft-temperature must be >= 0 (0: imitate the teacher's choices) and --bc-soft-weight in "
            f"[0, 1], got {args.bc_soft_temperature} and {args.bc_soft_weight}"
        )
    if starting and args.bc_soft_temperature > 0:
        check_soft_targets(args, spec, config, playing)
    if starting and (args.bc_expert is not None or args.bc_expert_decides) and not playing:
        raise ValueError("--bc-expert and --bc-expert-decides shape new warm-start games: they need --bc-games N > 0")
    warm_start_agents = (args.bc_teacher, args.bc_opponent) if playing else ()
    fixed_opponent = () if args.opponent == "self-play" or config.num_players == 1 else (args.opponent,)
    for name in [*fixed_opponent, *args.league_baselines, *(n for n in warm_start_agents if n is not None)]:
        make_agent(name, spec, config)  # an unknown agent fails now, not at the first snapshot
    if starting and playing and (args.bc_expert is not None or args.bc_expert_decides):
        from fruit_envs.training.bc import make_teacher

        make_teacher(args.bc_teacher, spec, config, args.bc_expert, tuple(args.bc_expert_decides))


def check_soft_targets(args: Args, spec, config, playing: bool) -> None:
    """Soft targets need a warm start whose teacher keeps its action values (search, or an agent handing
    decisions to it): refused before the run folder exists, naming what would have been imitated."""
    if not playing and not args.bc_data:
        raise ValueError("--bc-soft-temperature shapes the warm start: it needs --bc-games N > 0 or --bc-data FILE")
    if args.bc_data:
        try:
            with np.load(args.bc_data, allow_pickle=False) as data:
                kept = "values" in data.files
        except (OSError, ValueError) as error:
            raise ValueError(f"--bc-data {args.bc_data}: not a demonstrations file ({error})") from None
        where = f"--bc-data {args.bc_data} holds"
    else:
        from fruit_envs.training.bc import make_teacher

        teacher, label = make_teacher(args.bc_teacher, spec, config, args.bc_expert, tuple(args.bc_expert_decides))
        kept, where = hasattr(teacher, "last_values"), f"the teacher {label} keeps"
    if not kept:
        raise ValueError(
            f"--bc-soft-temperature imitates the teacher's action values, but {where} none: use a search "
            "teacher (--bc-teacher search, or --bc-expert search) or leave --bc-soft-temperature at 0"
        )


class Interrupted:
    """Turns SIGINT/SIGTERM into a flag the training loop checks between decisions. The run then stops
    at the next decision and saves its checkpoint; a second signal only says so (one line), so the
    checkpoint is finished and the exit status stays that of the first signal. SIGKILL stops at once."""

    def __init__(self):
        self.signal = None

    def __enter__(self):
        self._old = {s: signal.signal(s, self._handle) for s in (signal.SIGINT, signal.SIGTERM)}
        return self

    def _handle(self, signum, frame):
        if self.signal is not None:
            first = signal.Signals(self.signal).name
            line = f"\n{signal.Signals(signum).name}: already stopping after {first} and saving the checkpoint\n"
            os.write(2, line.encode())  # not print: the handler may have interrupted a write to stderr
            return
        self.signal = signum

    def __exit__(self, *exc):
        for s, handler in self._old.items():
            signal.signal(s, handler)
        return False


class League:
    """Self-play opponents: frozen snapshots of the learner, fixed baselines, and the learner itself."""

    def __init__(self, run_dir: Path, spec, config, args: Args, model):
        from fruit_envs.agents import make_agent

        self.dir = run_dir / "league"
        self.dir.mkdir(exist_ok=True)
        self.spec, self.config, self.args, self.model = spec, config, args, model
        self.baselines = [make_agent(name, spec, config) for name in args.league_baselines]
        self.snapshots: list = []
        index = self.dir / "league.json"
        self.files = json.loads(index.read_text())["snapshots"] if index.exists() else []
        for name in self.files[-args.league_size :]:
            self.snapshots.append(self._agent(self.dir / name))

    def _agent(self, path: Path):
        from fruit_envs.agents.ppo import PPOAgent

        return PPOAgent(path, self.spec, self.config, deterministic=False)

    def latest(self):
        from fruit_envs.agents.ppo import PPOAgent

        return PPOAgent(self.model, self.spec, self.config, deterministic=False)

    def add_snapshot(self, timesteps: int) -> None:
        name = f"snapshot_{timesteps:012d}.zip"
        tmp = self.dir / (name + ".tmp")
        self.model.policy.save(tmp)  # weights only: a third of a full checkpoint
        os.replace(tmp, self.dir / name)
        self.files.append(name)
        atomic_write_text(self.dir / "league.json", json.dumps({"snapshots": self.files}, indent=1))
        self.snapshots = (self.snapshots + [self._agent(self.dir / name)])[-self.args.league_size :]

    def opponents(self) -> tuple[list, list[float]]:
        """The pool and its weights: the learner `latest_weight`, the fixed baselines `baseline_weight`
        between them (when set), the snapshots the rest, shared evenly within each group."""
        latest, weight = self.args.latest_weight, self.args.baseline_weight
        others = self.snapshots + self.baselines
        if not others:
            return [self.latest()], [1.0]
        if weight is None or not self.baselines:
            share = (1.0 - latest) / len(others)
            return [self.latest()] + others, [latest] + [share] * len(others)
        if not self.snapshots:  # before the first snapshot the baselines take the snapshots' share too
            weight = 1.0 - latest
        snapshot_share = (1.0 - latest - weight) / len(self.snapshots) if self.snapshots else 0.0
        baseline_share = weight / len(self.baselines)
        return [self.latest()] + others, (
            [latest] + [snapshot_share] * len(self.snapshots) + [baseline_share] * len(self.baselines)
        )

    def truncate_after(self, timesteps: int) -> None:
        keep = [f for f in self.files if int(f.split("_")[1].split(".")[0]) <= timesteps]
        if keep != self.files:
            self.files = keep
            atomic_write_text(self.dir / "league.json", json.dumps({"snapshots": self.files}, indent=1))
            self.snapshots = [self._agent(self.dir / name) for name in keep[-self.args.league_size :]]

    def __len__(self):
        return len(self.snapshots) + len(self.baselines) + 1


def plot_learning_curve(eval_csv: Path, out: Path, title: str, num_players: int = 2) -> None:
    """The evaluations of a run as a picture; win rates beside the fair share 1/n of `num_players`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(csv.DictReader(eval_csv.open()))
    fig, ax = plt.subplots(figsize=(7, 4))
    if rows and "mean_score" in rows[0]:
        _plot_scores(ax, rows, title)
    else:
        _plot_win_rates(ax, rows, title, num_players)
    fig.tight_layout()
    tmp = out.with_name(out.stem + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, out)


def _plot_scores(ax, rows: list[dict], title: str) -> None:
    """One-player games: PPO's mean score with its 95% CI, the baselines' mean scores as lines."""
    sel = [r for r in rows if r["agent"] == "ppo"]
    x = np.array([int(r["timesteps"]) for r in sel])
    y = np.array([float(r["mean_score"]) for r in sel])
    ax.plot(x, y, marker="o", color="tab:green", label="PPO")
    ax.fill_between(
        x, [float(r["score_low"]) for r in sel], [float(r["score_high"]) for r in sel], color="tab:green", alpha=0.2
    )
    for name, colour in (("random", "tab:blue"), ("greedy", "tab:red")):
        ref = [float(r["mean_score"]) for r in rows if r["agent"] == name]
        if ref:
            ax.axhline(ref[-1], color=colour, lw=1, ls="--", label=name)
    ax.set(xlabel="timesteps", ylabel="mean score (95% CI)", title=title)
    ax.legend(loc="lower right")


def _plot_win_rates(ax, rows: list[dict], title: str, num_players: int = 2) -> None:
    for opponent, colour in (("random", "tab:blue"), ("greedy", "tab:red")):
        sel = [r for r in rows if r["opponent"] == opponent]
        if not sel:
            continue
        x = np.array([int(r["timesteps"]) for r in sel])
        y = np.array([float(r["win_rate"]) for r in sel])
        lo = np.array([float(r["win_rate_low"]) for r in sel])
        hi = np.array([float(r["win_rate_high"]) for r in sel])
        ax.plot(x, y, marker="o", color=colour, label=f"vs {opponent}")
        ax.fill_between(x, lo, hi, color=colour, alpha=0.2)
    ax.axhline(1 / num_players, color="grey", lw=0.8, ls="--", label=f"fair share 1/{num_players}")
    ax.set(xlabel="timesteps", ylabel="win rate (95% Wilson CI)", ylim=(0, 1), title=title)
    ax.legend(loc="lower right")


CLOCK = Path("checkpoints") / "clock.json"  # the run's wall time up to its latest checkpoint, across resumes


def earlier_training_seconds(run_dir: Path) -> float:
    """Wall seconds the run spent before this segment: up to its latest checkpoint, 0 if never recorded."""
    try:
        return float(json.loads((run_dir / CLOCK).read_text())["seconds"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0.0  # runs from before the clock, or a clock file a user removed: the segments here still count


def initial_policy(args: Args, spec, config):
    """The policy `--init-policy` names, checked against this game's observation, actions and --net-arch."""
    from fruit_envs.agents import make_agent

    name = args.init_policy if args.init_policy == "ppo-baseline" else f"ppo:{args.init_policy}"
    try:
        policy = make_agent(name, spec, config).model.policy
    except ValueError as error:
        raise ValueError(f"--init-policy {args.init_policy}: {error}") from error
    arch = getattr(policy, "net_arch", None)
    if isinstance(arch, dict):
        arch = arch.get("pi") if arch.get("pi") == arch.get("vf") else arch
    if arch is not None and list(arch) != list(args.net_arch):
        raise ValueError(
            f"--init-policy {args.init_policy}: its network has hidden layers {arch}, this run's --net-arch is "
            f"{list(args.net_arch)}; pass --net-arch {' '.join(map(str, arch)) if isinstance(arch, list) else '...'}"
        )
    return policy


def policy_kwargs(args: Args, spec, config) -> dict:
    """The policy network: `net_arch` hidden layers, after the row encoder when `row_encoder` is on."""
    kwargs: dict = {"net_arch": list(args.net_arch)}
    if args.row_encoder:
        from fruit_envs.agents.networks import RowEncoder
        from fruit_envs.core.rules_api import game_rules

        rows = game_rules(spec).observation_rows
        if rows is None:
            raise ValueError(f"--row-encoder: {spec.name} declares no blocks of like rows in its observation")
        layout = spec.rules.observation_layout(config)
        blocks = [(layout[name].start, layout[name].stop, width) for name, width in rows(config).items()]
        kwargs.update(features_extractor_class=RowEncoder, features_extractor_kwargs={"blocks": blocks})
    return kwargs


def train(args: Args) -> dict:
    """Run (or resume) training; returns a summary with the run folder and final win rates.

    Read top to bottom: the arguments (a resumed run's own), the game, the run folder, the environment and
    the model, the logs, the opponents and the evaluator, the warm start, then PPO's learning loop."""
    segment_started = time.time()  # this segment's wall clock, warm start included
    load_training_libraries()
    resume_dir = None if args.resume is None else Path(args.resume)
    if resume_dir is not None:
        args = resumed_args(args, resume_dir)
    spec, config = game_config(args)
    solo = config.num_players == 1  # nobody to beat: train on points, evaluate mean scores
    check_args(args, spec, config, starting=resume_dir is None)
    start_from = initial_policy(args, spec, config) if args.init_policy and resume_dir is None else None
    threads = limit_threads(args.torch_threads)  # this process's torch threads (fruit_envs.core.threads)

    if resume_dir is None:
        run_dir, meta = common.start_run(args, spec, config, versions(), threads)
    else:
        run_dir, meta = resume_dir, json.loads((resume_dir / "config.json").read_text())
    env = training_env(args, spec, config)
    if resume_dir is None:
        model, resumed_from = new_model(args, env, spec, config, start_from), None
    else:
        model = resume_model(run_dir, meta, env, args, threads)
        resumed_from = int(model.num_timesteps)

    run = RunFolder.open(run_dir, solo, resumed_from, segment_started)
    league = League(run_dir, spec, config, args, model) if args.opponent == "self-play" and not solo else None
    if league is not None and resumed_from is not None:
        league.truncate_after(resumed_from)  # snapshots from after the checkpoint leave the league
    league_size = lambda: len(league) if league else 1  # progress.csv's league_size column
    model.set_logger(make_sb3_logger(run_dir, run.writer, run.progress, league_size, args.num_envs * args.n_steps))
    evaluator = Evaluator(args, spec, config, run)
    opponents = Opponents(env, args, league, evaluator.baselines["greedy"], solo)
    opponents.choose(int(model.num_timesteps))

    if resume_dir is None and (args.bc_games > 0 or args.bc_data):
        warm_start(args, spec, config, model, run_dir)
    if resume_dir is None and (args.bc_games > 0 or args.bc_data or start_from is not None):
        evaluator.evaluate(model, 0)  # where PPO starts from
    return learn(args, spec, model, run, opponents, evaluator)


TRAINING_LIBRARIES = (  # what a run loads before `limit_threads` caps the thread pools of the libraries loaded
    "sb3_contrib",
    "stable_baselines3.common.callbacks",
    "torch.utils.tensorboard",
    "fruit_envs.agents.arena",
    "fruit_envs.agents.ppo",
    "fruit_envs.core.sb3_vec_env",
)


def load_training_libraries() -> None:
    """Import torch, SB3 and TensorBoard at the start of a run, before `limit_threads` sets their threads."""
    for module in TRAINING_LIBRARIES:
        importlib.import_module(module)


def resumed_args(args: Args, run_dir: Path) -> Args:
    """The arguments a run folder was started with (this machine's `progress` and `torch_threads`, and
    `resume_total_timesteps` as its new total when given); a folder that cannot be resumed is refused."""
    config_path = run_dir / "config.json"
    if not config_path.is_file():
        raise ValueError(f"--resume {run_dir}: no config.json there; is it a run folder?")
    if not (run_dir / "checkpoints" / "latest.zip").is_file():
        raise ValueError(f"--resume {run_dir}: no checkpoints/latest.zip to continue from")
    validate.writable_dir(run_dir / "checkpoints", "--resume")
    saved = json.loads(config_path.read_text())
    here = {"progress": args.progress, "torch_threads": args.torch_threads}  # this machine's, not the run's
    resumed = dataclasses.replace(args_from_json(saved["args"]), **here)
    if args.resume_total_timesteps is not None:
        resumed.total_timesteps = args.resume_total_timesteps
    return resumed


def reward_option(args: Args) -> dict:
    """`{"reward": ...}` when `--reward` is given, else nothing: the game's own reward."""
    return {} if args.reward is None else {"reward": args.reward}


def game_config(args: Args) -> tuple:
    """The game's spec and the configuration this run plays: its player count, reward and `--options`."""
    import fruit_envs

    spec = fruit_envs.get_spec(args.game)
    game_options = parse_options(args.options)
    return spec, spec.make_config(args.num_players, **reward_option(args), **game_options)


def training_env(args: Args, spec, config):
    """The learner's `num_envs` batched games, seeded (`Opponents` seats the opponents before training)."""
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    env = FruitSB3VecEnv(
        spec.id,
        num_envs=args.num_envs,
        num_players=config.num_players,
        opponent="random" if args.opponent == "self-play" else args.opponent,
        shaping=args.shaping,
        shaping_gamma=args.gamma,
        **reward_option(args),
        **parse_options(args.options),
    )
    env.seed(args.seed)
    return env


def new_model(args: Args, env, spec, config, start_from=None):
    """A new MaskablePPO with the run's settings, seeded; with `start_from` (`--init-policy`) its weights."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=args.learning_rate,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        gae_lambda=args.gae_lambda,
        clip_range=args.clip_range,
        ent_coef=args.ent_coef,
        vf_coef=args.vf_coef,
        max_grad_norm=args.max_grad_norm,
        seed=args.seed,
        policy_kwargs=policy_kwargs(args, spec, config),
        device="cpu",
        verbose=0,
    )
    if start_from is not None:
        model.policy.load_state_dict(start_from.state_dict())
    return model


def resume_model(run_dir: Path, meta: dict, env, args: Args, threads: int):
    """The run's model from `checkpoints/latest.zip`; the resume is recorded in config.json's `resumes`."""
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run_dir / "checkpoints" / "latest.zip", env=env, device="cpu")
    meta["resumes"].append(
        {
            "at": time.strftime("%Y-%m-%d %H:%M:%S"),
            "from_timesteps": int(model.num_timesteps),
            "total_timesteps": args.total_timesteps,
            "torch_threads": threads,
            **provenance(),  # the git commit, from a checkout only
        }
    )
    atomic_write_text(run_dir / "config.json", json.dumps(meta, indent=2))
    return model


@dataclass
class RunFolder:
    """A run folder while it trains: its logs, its TensorBoard writer, its checkpoints and its clock."""

    path: Path
    progress: CsvLog  # progress.csv: SB3's records, one row per rollout
    evals: CsvLog  # eval.csv
    writer: Any  # TensorBoard's SummaryWriter
    started: float  # time.time() when this segment began
    earlier_seconds: float  # wall seconds of the run's earlier segments

    @classmethod
    def open(cls, path: Path, solo: bool, resumed_from: int | None, started: float) -> RunFolder:
        """The logs of a new run, or of one resumed from the checkpoint at `resumed_from` timesteps (their
        later rows set aside in *.superseded.csv, TensorBoard's later events purged)."""
        from torch.utils.tensorboard import SummaryWriter

        progress = CsvLog(path / "progress.csv", PROGRESS_COLUMNS)
        evals = CsvLog(path / "eval.csv", SOLO_EVAL_COLUMNS if solo else EVAL_COLUMNS)
        if resumed_from is not None:
            moved = progress.truncate_after(resumed_from) + evals.truncate_after(resumed_from)
            if moved:
                print(f"{moved} log rows from after the checkpoint moved to *.superseded.csv", file=sys.stderr)
        writer = SummaryWriter(str(path), purge_step=resumed_from)
        earlier = earlier_training_seconds(path) if resumed_from is not None else 0.0
        return cls(path, progress, evals, writer, started, earlier)

    def clock(self) -> float:
        """Wall seconds of the whole run so far: earlier segments, warm start and evaluations included."""
        return round(self.earlier_seconds + time.time() - self.started, 1)

    def checkpoint(self, model, timesteps: int) -> None:
        """`checkpoints/step_*.zip`, `checkpoints/latest.zip` and the clock at `timesteps`."""
        atomic_save_model(model, self.path / "checkpoints" / f"step_{timesteps:012d}.zip")
        atomic_save_model(model, self.path / "checkpoints" / "latest.zip")
        atomic_write_text(self.path / CLOCK, json.dumps({"timesteps": timesteps, "seconds": self.clock()}))


class Evaluator:
    """The learner against random and greedy on the fixed evaluation games, seats rotated (one-player games:
    its mean score beside theirs), logged to eval.csv, TensorBoard and learning_curve.png."""

    def __init__(self, args: Args, spec, config, run: RunFolder):
        from fruit_envs.agents import make_agent

        self.args, self.spec, self.config, self.run = args, spec, config, run
        self.solo = config.num_players == 1
        self.baselines = {name: make_agent(name, spec, config) for name in ("random", "greedy")}
        self.latest: dict[str, dict] = {}  # the latest result of each opponent (one-player games: each agent)
        self.record_games = run.path / "eval_games.jsonl"  # --record-eval: every evaluation game
        players = f"{config.num_players} player{'s' * (not self.solo)}"
        self.title = f"{spec.name}, {players}: PPO ({'alone' if self.solo else args.opponent})"

    def evaluate(self, model, timesteps: int) -> None:
        """Evaluate the model as it is at `timesteps`, log the results and redraw the learning curve."""
        from fruit_envs.agents.ppo import PPOAgent

        agent = PPOAgent(model, self.spec, self.config, deterministic=self.args.eval_deterministic)
        if self.solo:
            self._alone(agent, timesteps)
        else:
            self._against_baselines(agent, timesteps)
        self.run.writer.flush()
        path = self.run.path
        plot_learning_curve(path / "eval.csv", path / "learning_curve.png", self.title, self.config.num_players)

    def _against_baselines(self, agent, timesteps: int) -> None:
        from fruit_envs.agents.arena import evaluate

        args, writer = self.args, self.run.writer
        for name, opponent in self.baselines.items():
            start = time.time()
            result = evaluate(
                self.spec,
                self.config,
                agent,
                opponent,
                args.eval_games,
                seed=args.eval_seed,
                record_to=self.record_games if args.record_eval else None,
                record_meta={"timesteps": timesteps, "opponent": name},
            )
            result.update(timesteps=timesteps, opponent=name, seconds=round(time.time() - start, 3))
            result.update(run_seconds=self.run.clock())
            self.run.evals.append(result)
            self.latest[name] = result
            writer.add_scalar(f"eval/win_rate_vs_{name}", result["win_rate"], timesteps)
            writer.add_scalar(f"eval/win_rate_low_vs_{name}", result["win_rate_low"], timesteps)
            writer.add_scalar(f"eval/draw_rate_vs_{name}", result["draws"] / result["games"], timesteps)
            writer.add_scalar(f"eval/truncated_rate_vs_{name}", result["truncated_rate"], timesteps)

    def _alone(self, agent, timesteps: int) -> None:
        """One-player games: PPO's mean score, beside the baselines' (played at the first evaluation)."""
        from fruit_envs.agents.arena import evaluate_alone

        if "random" not in self.latest:
            self._baselines_alone()
        start = time.time()
        result = evaluate_alone(
            self.spec,
            self.config,
            agent,
            self.args.eval_games,
            seed=self.args.eval_seed,
            record_to=self.record_games if self.args.record_eval else None,
            record_meta={"timesteps": timesteps, "agent": "ppo"},
        )
        result.update(
            timesteps=timesteps, agent="ppo", seconds=round(time.time() - start, 3), run_seconds=self.run.clock()
        )
        self.run.evals.append(result)
        self.latest["ppo"] = result
        writer = self.run.writer
        writer.add_scalar("eval/mean_score", result["mean_score"], timesteps)
        writer.add_scalar("eval/mean_score_low", result["score_low"], timesteps)
        for name in self.baselines:
            writer.add_scalar(f"eval/mean_score_{name}", self.latest[name]["mean_score"], timesteps)

    def _baselines_alone(self) -> None:
        """One-player games: the baselines' mean scores on the evaluation games, logged once per run."""
        from fruit_envs.agents.arena import evaluate_alone

        logged = {r["agent"] for r in self.run.evals.rows()}
        for name, baseline in self.baselines.items():
            start = time.time()
            record = self.args.record_eval and name not in logged  # recorded once, like the row
            result = evaluate_alone(
                self.spec,
                self.config,
                baseline,
                self.args.eval_games,
                seed=self.args.eval_seed,
                record_to=self.record_games if record else None,
                record_meta={"timesteps": 0, "agent": name},
            )
            result.update(timesteps=0, agent=name, seconds=round(time.time() - start, 3), run_seconds=self.run.clock())
            if name not in logged:
                self.run.evals.append(result)
            self.latest[name] = result

    def done_at(self, timesteps: int) -> bool:
        """Whether the learner was last evaluated at `timesteps`."""
        return self.latest.get("ppo" if self.solo else "random", {}).get("timesteps") == timesteps

    def postfix(self) -> dict:
        """The progress bar's note: the latest mean score, or win rates against each opponent."""
        if self.solo:
            score = self.latest.get("ppo", {}).get("mean_score")
            return {"mean_score": "-" if score is None else f"{score:.1f}"}
        return {"win_vs": {name: f"{r['win_rate']:.2f}" for name, r in self.latest.items()} or "-"}

    def summary(self) -> dict:
        """summary.json's `eval`: the latest numbers against each opponent (one-player games: of each agent)."""
        keys = SOLO_SUMMARY if self.solo else WIN_SUMMARY
        return {name: {key: result[key] for key in keys} for name, result in self.latest.items()}


class Opponents:
    """Who plays the opponents' seats: greedy alone during the curriculum's first `greedy_timesteps`, then the
    self-play league (a snapshot every `snapshot_every` rollouts) or the fixed `opponent`; a one-player game
    has none."""

    def __init__(self, env, args: Args, league: League | None, greedy, solo: bool):
        self.env, self.args, self.league, self.greedy, self.solo = env, args, league, greedy, solo

    def choose(self, timesteps: int) -> None:
        if self.solo:
            return
        if timesteps < self.args.greedy_timesteps:
            self.env.set_opponents(self.greedy)
        elif self.league is not None:
            self.env.set_opponents(*self.league.opponents())
        else:
            self.env.set_opponents(self.args.opponent)

    def after_rollout(self, rollouts: int, timesteps: int) -> None:
        """After the `rollouts`-th rollout of this segment: a league snapshot on its schedule, and a new choice
        then or where the curriculum has just ended."""
        args = self.args
        if self.league is not None and rollouts % args.snapshot_every == 0:
            self.league.add_snapshot(timesteps)
            self.choose(timesteps)
        elif timesteps >= args.greedy_timesteps > timesteps - args.num_envs * args.n_steps:
            self.choose(timesteps)


class LearningLoop:
    """What happens between PPO's decisions and after each rollout: the progress bar, the rollout's truncated
    share, the opponents, evaluations and checkpoints on their schedules; a signal stops it at the next
    decision."""

    def __init__(
        self, args: Args, spec, model, run: RunFolder, opponents: Opponents, evaluator: Evaluator, interrupted
    ):
        self.args, self.spec, self.model, self.run = args, spec, model, run
        self.opponents, self.evaluator, self.interrupted = opponents, evaluator, interrupted
        self.next_eval = (model.num_timesteps // args.eval_every + 1) * args.eval_every
        self.next_ckpt = (model.num_timesteps // args.checkpoint_every + 1) * args.checkpoint_every
        self.rollouts = 0
        self.finished = self.truncated = 0  # games of the current rollout (truncated_rate)
        self.bar = None

    def start(self) -> None:
        args = self.args
        self.bar = progress_bar(
            args.total_timesteps, self.model.num_timesteps, unit="step", desc=self.spec.id, disable=not args.progress
        )

    def step(self, infos: list[dict]) -> bool:
        """After each decision of the batch: False stops training (a signal came)."""
        self.bar.update(self.args.num_envs)
        for info in infos:
            if "episode" in info:  # a finished game
                self.finished += 1
                self.truncated += info["TimeLimit.truncated"]
        return self.interrupted.signal is None

    def rollout_end(self, logger) -> None:
        """After each rollout (`logger`: SB3's, for progress.csv and TensorBoard)."""
        if self.finished:
            logger.record("rollout/truncated_rate", self.truncated / self.finished)
        self.finished = self.truncated = 0
        self.rollouts += 1
        t = self.model.num_timesteps
        self.opponents.after_rollout(self.rollouts, t)
        if t >= self.next_eval:
            self.evaluator.evaluate(self.model, t)
            self.next_eval += self.args.eval_every
        if t >= self.next_ckpt:
            self.run.checkpoint(self.model, t)
            self.next_ckpt += self.args.checkpoint_every
        self.bar.set_postfix(**self.evaluator.postfix(), refresh=False)

    def end(self) -> None:
        self.bar.close()

    def callback(self):
        """The loop as SB3's callback (SB3, and torch with it, is imported only when a run trains)."""
        from stable_baselines3.common.callbacks import BaseCallback

        loop = self

        class Callback(BaseCallback):
            def _on_training_start(self) -> None:
                loop.start()

            def _on_step(self) -> bool:
                return loop.step(self.locals["infos"])

            def _on_rollout_end(self) -> None:
                loop.rollout_end(self.logger)

            def _on_training_end(self) -> None:
                loop.end()

        return Callback()


def learn(args: Args, spec, model, run: RunFolder, opponents: Opponents, evaluator: Evaluator) -> dict:
    """PPO up to `total_timesteps`, then a checkpoint, a last evaluation (unless one just ran), model.zip and
    summary.json; SIGINT/SIGTERM stops at the next decision with the checkpoint saved (exit 128 + signal)."""
    started = time.time()
    with Interrupted() as interrupted:
        remaining = args.total_timesteps - model.num_timesteps
        if remaining > 0:
            loop = LearningLoop(args, spec, model, run, opponents, evaluator, interrupted)
            model.learn(remaining, callback=loop.callback(), reset_num_timesteps=False, progress_bar=False)
        t = int(model.num_timesteps)
        run.checkpoint(model, t)
        if interrupted.signal is not None:
            run.writer.close()
            name = signal.Signals(interrupted.signal).name
            print(
                f"\n{name}: checkpoint saved at {t} timesteps in {run.path}\n"
                f"resume with: python -m fruit_envs.training.train_ppo --resume {run.path}",
                file=sys.stderr,
            )
            return {"run_dir": run.path, "timesteps": t, "interrupted": name, "exit_code": 128 + interrupted.signal}
        if not evaluator.done_at(t):
            evaluator.evaluate(model, t)
    atomic_save_model(model, run.path / "model.zip")
    run.writer.close()
    summary = {
        "run_dir": run.path,
        "timesteps": t,
        "seconds": round(time.time() - started, 1),
        "total_seconds": run.clock(),
        "eval": evaluator.summary(),
        "exit_code": 0,
    }
    atomic_write_text(run.path / "summary.json", json.dumps({**summary, "run_dir": str(run.path)}, indent=2))
    return summary


def warm_start(args: Args, spec, config, model, run_dir: Path) -> None:
    """Behaviour cloning: the policy imitates `bc_teacher` before PPO starts (history in bc.json)."""
    from fruit_envs.training.bc import Demonstrations, make_teacher, play_demonstrations, pretrain

    started = time.time()
    if args.bc_data:
        data = Demonstrations.load(args.bc_data, spec, config)
    else:
        _, label = make_teacher(args.bc_teacher, spec, config, args.bc_expert, tuple(args.bc_expert_decides))
        data = play_demonstrations(
            spec, config, args.bc_teacher, args.bc_games, args.seed, args.bc_opponent, args.bc_expert,
            tuple(args.bc_expert_decides), args.bc_workers, args.bc_ray,
        )  # fmt: skip
        data.meta["teacher"] = label
        data.meta["opponent"] = args.bc_opponent
    played = time.time() - started
    history = pretrain(
        model.policy,
        data,
        epochs=args.bc_epochs,
        learning_rate=args.bc_learning_rate,
        seed=args.seed,
        shaping=args.shaping,
        soft_temperature=args.bc_soft_temperature,
        soft_weight=args.bc_soft_weight,
    )
    report = {
        "teacher": data.meta["teacher"],
        "opponent": data.meta.get("opponent"),
        "games": data.meta["games"],
        "data": args.bc_data,
        "decisions": len(data),
        "seconds_playing": round(played, 1),
        "seconds_fitting": round(time.time() - started - played, 1),
        "epochs": history,
    }
    atomic_write_text(run_dir / "bc.json", json.dumps(report, indent=2))
    last = history[-1]
    print(
        f"warm start: imitated {report['teacher']} on {len(data):,} decisions of {report['games']:,} games, "
        f"accuracy {last['accuracy']:.3f}, value loss {last['value_loss']:.3f}",
        file=sys.stderr,
    )


WIN_SUMMARY = ("win_rate", "win_rate_low", "win_rate_high", "games", "truncated")
SOLO_SUMMARY = ("mean_score", "score_low", "score_high", "games")


def print_summary(summary: dict) -> None:
    print(f"\nrun folder: {summary['run_dir']}")
    print(f"trained {summary['timesteps']:,} timesteps in {summary['seconds']} s")
    for name, r in summary["eval"].items():
        if "mean_score" in r:  # one-player game: everybody alone on the same games
            label = "PPO" if name == "ppo" else name
            print(
                f"  {label:<6} alone: mean score {r['mean_score']:.2f} "
                f"(95% CI {r['score_low']:.2f}-{r['score_high']:.2f}, {r['games']} games)"
            )
            continue
        unfinished = f", {r['truncated']} truncated" if r.get("truncated") else ""
        print(
            f"  PPO vs {name:<6}: win rate {r['win_rate']:.3f} "
            f"(95% CI {r['win_rate_low']:.3f}-{r['win_rate_high']:.3f}, {r['games']} games{unfinished}, seats rotated)"
        )
    print(f"TensorBoard: tensorboard --logdir {summary['run_dir']}")


RECIPES = Path(__file__).resolve().parent / "recipes"


def recipe_names() -> list[str]:
    """Every recipe shipped in training/recipes/, by the name `--recipe` takes (`expert/<game>`: second stages)."""
    return sorted(p.relative_to(RECIPES).with_suffix("").as_posix() for p in RECIPES.rglob("*.yaml"))


def recipe_path(name: str) -> Path:
    """The YAML file of a recipe given by name (training/recipes/<name>.yaml) or by path."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml"):
        if not path.is_file():
            raise ValueError(f"--recipe {name}: no such file")
        return path
    path = RECIPES / f"{name}.yaml"
    if not path.is_file():
        known = recipe_names()
        raise ValueError(f"unknown recipe {name!r}; recipes are {known} (or pass a .yaml file)")
    return path


def _recipe_values(name: str) -> tuple[Path, dict, dict[int, dict]]:
    """A recipe's file, its base values, and its per-player-count overrides (the `players:` section)."""
    import yaml

    path = recipe_path(name)
    values = yaml.safe_load(path.read_text()) or {}
    if not isinstance(values, dict):
        raise ValueError(f"recipe {path} must be a mapping of argument names to values")
    values.pop("ship", None)  # how `baselines retrain` ships the runs (recipe_shipping), not a run's argument
    sections = values.pop("players", None) or {}
    if not isinstance(sections, dict) or not all(
        isinstance(n, int) and n >= 1 and isinstance(v, dict) for n, v in sections.items()
    ):
        raise ValueError(f"recipe {path}: `players` must map player counts (numbers) to argument values")
    fields = {f.name for f in dataclasses.fields(Args)}
    for where, mapping in [("", values), *((f" (players: {n})", v) for n, v in sections.items())]:
        unknown = sorted(set(mapping) - fields - ({"num_players"} if not where else set()))
        if unknown or (where and "num_players" in mapping):
            raise ValueError(f"recipe {path}{where}: unknown argument(s) {unknown or ['num_players']}")
    return path, values, sections


def recipe_shipping(name: str) -> dict:
    """A recipe's `ship:` section, how `baselines retrain` makes the shipped baseline: `seeds` (one run
    each) and `average_from` (ship the mean weights of their checkpoints from that step on); {} for one run."""
    import yaml

    path = recipe_path(name)
    ship = (yaml.safe_load(path.read_text()) or {}).get("ship") or {}
    seeds, start = (ship.get("seeds", [0]), ship.get("average_from", 0)) if isinstance(ship, dict) else (None, 0)
    valid = isinstance(seeds, list) and seeds and all(isinstance(s, int) and s >= 0 for s in seeds)
    if not valid or set(ship) - {"seeds", "average_from"}:
        raise ValueError(f"recipe {path}: `ship` takes `seeds` (a list of seeds) and `average_from` (a step)")
    if not isinstance(start, int) or start < 0 or (len(seeds) > 1 and "average_from" not in ship):
        raise ValueError(f"recipe {path}: `ship: average_from` must be a step >= 0, and is needed for several seeds")
    return ship


def recipe_player_counts(name: str) -> list[int]:
    """The player counts a recipe is tuned for: its `num_players` and every count of its `players:` section."""
    from fruit_envs import get_spec

    _, values, sections = _recipe_values(name)
    base = values.get("num_players") or get_spec(values.get("game", Args().game)).default_num_players
    return sorted({base, *sections})


def load_recipe(name: str, num_players: int | None = None) -> Args:
    """`Args` with a recipe's values in place of the defaults (and, for `num_players`, that count's
    `players:` overrides); unknown keys are an error."""
    path, values, sections = _recipe_values(name)
    if num_players is not None:
        values = {**values, **sections.get(num_players, {}), "num_players": num_players}
    for key, value in values.items():
        if isinstance(value, list):
            values[key] = tuple(value)
        if key in ("runs_dir", "resume") and value is not None:
            values[key] = Path(value)
    return dataclasses.replace(Args(), **values, recipe=name)


def _flag_in(argv: list[str], flag: str) -> str | None:
    for k, item in enumerate(argv):
        if item == flag and k + 1 < len(argv):
            return argv[k + 1]
        if item.startswith(flag + "="):
            return item.split("=", 1)[1]
    return None


def parse_args(argv: list[str] | None = None) -> Args:
    """Command-line arguments; with `--recipe` the recipe's values (those of `--num-players`, when the
    recipe has a section for that count) are the defaults the flags override."""
    import tyro

    argv = list(sys.argv[1:] if argv is None else argv)
    name = _flag_in(argv, "--recipe")
    players = _flag_in(argv, "--num-players")
    default = load_recipe(name, int(players) if players and players.isdigit() else None) if name else Args()
    return tyro.cli(Args, args=argv, prog=prog("fruit_envs.training.train_ppo"), description=__doc__, default=default)


def main(argv: list[str] | None = None) -> int:
    return common.run_command(lambda: train(parse_args(argv)), print_summary)


if __name__ == "__main__":
    sys.exit(main())
