"""Multi-agent PPO on Ray RLlib: one shared, action-masked policy plays every seat (self-play).

    python -m fruit_envs.training.train_rllib --game cherry_picking --num-env-runners 2
    RAY_ADDRESS=head-node:6379 python -m fruit_envs.training.train_rllib --num-env-runners 16   # on a cluster
    python -m fruit_envs.training.train_rllib --resume runs/cherry_picking__rllib_ppo__1__20261129-120000

Each env runner (a Ray actor, on any node of the cluster) steps `--num-envs-per-env-runner` games
of `fruit_envs.rllib_env.FruitMultiAgentEnv`, where only the seat to move observes and acts; the
learner updates the one policy (`shared`) from every seat's experience. Runs on a local Ray
instance unless `--address` or `RAY_ADDRESS` names a cluster (see the README).

One run folder `runs/{game}__{exp_name}__{seed}__{timestamp}/` holds `config.json` (arguments,
versions, git commit, Ray cluster), TensorBoard events (`charts/`, `losses/`, `eval/`),
`progress.csv` (one row per training iteration), `eval.csv` (win rates against random and greedy
with 95% Wilson intervals, seats rotated), `checkpoints/step_*/` (whole-algorithm RLlib
checkpoints) with `checkpoints/latest` pointing at the newest, `model/` (the final policy module:
`rllib:runs/.../model` plays anywhere an agent does), `learning_curve.png` and `summary.json`.
Ctrl-C or SIGTERM checkpoints after the current iteration and exits (status 130 / 143); `--resume
RUN_DIR` continues from `checkpoints/latest` with the run's own arguments, appending to its logs.
Checkpoints are written under a temporary name and renamed, so a kill never leaves a torn one.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fruit_envs._checkout import provenance
from fruit_envs._cli import prog
from fruit_envs.core import validate
from fruit_envs.core.threads import limit_threads, usable_cores
from fruit_envs.training import common
from fruit_envs.training.common import TrainArgs, atomic_write_text
from fruit_envs.training.train_ppo import (
    EVAL_COLUMNS,
    WIN_SUMMARY,
    CsvLog,
    Interrupted,
    parse_options,
    plot_learning_curve,
)
from fruit_envs.training.train_ppo import versions as base_versions

POLICY_ID = "shared"


@dataclass
class Args(TrainArgs):
    """Arguments of an RLlib training run (every field is a command-line flag)."""

    num_players: int = 2
    """players per game (all seats are played by the one shared policy)"""
    exp_name: str = "rllib_ppo"
    """experiment name, part of the run folder's name"""
    total_timesteps: int = 2_000_000
    """env steps to train for (one step = one decision of one seat)"""
    reward: Literal["terminal", "score"] = "terminal"
    """'terminal': +1 win / -1 loss / 0 full draw; 'score': per-step score deltas (shaping)"""
    num_env_runners: int = 2
    """Ray actors collecting experience (0: sample in the driver process)"""
    num_envs_per_env_runner: int = 8
    """games each env runner steps in turn"""
    num_cpus_per_env_runner: float = 1.0
    """CPUs Ray reserves for each env runner"""
    num_learners: int = 0
    """learner actors (0: the learner runs in the driver; more: data-parallel learners, e.g. one per GPU)"""
    num_gpus_per_learner: float = 0.0
    """GPUs for each learner (with --num-learners 0, for the driver's learner)"""
    train_batch_size: int = 4000
    """env steps collected per training iteration (per learner)"""
    minibatch_size: int = 1000
    """minibatch size of each gradient step"""
    num_epochs: int = 4
    """passes over each iteration's batch"""
    clip_param: float = 0.2
    """PPO clipping"""
    address: str | None = None
    """Ray cluster to join ('auto' or HOST:PORT; default: $RAY_ADDRESS, else a new local Ray instance)"""


PROGRESS_COLUMNS = [
    "timesteps",
    "iteration",
    "time_elapsed",
    "fps",
    "sample_fps",
    "sample_time",
    "learn_time",
    "episodes",
    "ep_len_mean",
    "illegal_actions",
    "truncated_games",  # games of the iteration cut off by a cap (no outcome paid)
    "policy_loss",
    "value_loss",
    "entropy",
    "explained_variance",
    "total_loss",
    "learning_rate",
    "healthy_env_runners",
    "env_runner_restarts",
]
# progress.csv column <- path in RLlib's result dict; TensorBoard group
RESULT_KEYS = {
    "episodes": (("env_runners", "num_episodes"), "charts"),
    "ep_len_mean": (("env_runners", "episode_len_mean"), "charts"),
    "policy_loss": (("learners", POLICY_ID, "policy_loss"), "losses"),
    "value_loss": (("learners", POLICY_ID, "vf_loss"), "losses"),
    "entropy": (("learners", POLICY_ID, "entropy"), "losses"),
    "explained_variance": (("learners", POLICY_ID, "vf_explained_var"), "losses"),
    "total_loss": (("learners", POLICY_ID, "total_loss"), "losses"),
    "learning_rate": (("learners", POLICY_ID, "default_optimizer_learning_rate"), "losses"),
    "healthy_env_runners": (("fault_tolerance", "num_healthy_workers"), "charts"),
    "env_runner_restarts": (("fault_tolerance", "num_remote_worker_restarts"), "charts"),
}


class UsageError(ValueError):
    """A bad argument, reported before anything is started or written."""


MACHINE_ARGS = ("progress", "torch_threads", "address")  # a resumed run takes these from its command line


def check_args(args: Args, config, starting: bool = True) -> None:
    """Refuse bad values before Ray starts or the run folder exists (`UsageError`); a resumed run (not
    `starting`) writes in its own folder, not under --runs-dir."""
    at_least = {"num_env_runners": 0, "num_envs_per_env_runner": 1, "num_learners": 0, "train_batch_size": 1}
    at_least.update(minibatch_size=1, num_epochs=1)
    ranges = {"num_gpus_per_learner": (0.0, None)}
    positive = ("clip_param", "num_cpus_per_env_runner")
    common.check_args(
        args,
        config,
        at_least=at_least,
        ranges=ranges,
        positive=positive,
        starting=args.resume is None,
        error=UsageError,
    )
    if args.minibatch_size > args.train_batch_size:
        raise UsageError("--minibatch-size must not exceed --train-batch-size")


def dig(result: dict, path: tuple[str, ...]):
    """`result[path[0]][path[1]]...` as a float, or None where RLlib did not report it (or reported NaN)."""
    for key in path:
        if not isinstance(result, dict) or key not in result:
            return None
        result = result[key]
    try:
        value = float(result)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def versions() -> dict:
    import ray

    return {**base_versions(), "ray": ray.__version__}


def args_from_json(d: dict) -> Args:
    return common.args_from_json(Args, d)


# ---------------------------------------------------------------------------------------------
# Ray and the RLlib algorithm


def start_ray(args: Args) -> dict:
    """Join the cluster named by --address or $RAY_ADDRESS, or start a local Ray instance."""
    import ray

    address = args.address or os.environ.get("RAY_ADDRESS") or None
    if address:
        try:
            ray.init(address=address)
        except (ConnectionError, RuntimeError) as error:
            raise UsageError(
                f"could not join the Ray cluster at {address}: {error}\n"
                "Is it started (`ray status`)? Clusters authenticate with a token: set RAY_AUTH_MODE=token "
                "and give this machine the cluster's token (~/.ray/auth_token or RAY_AUTH_TOKEN); see the README."
            ) from error
    else:
        # A local instance: room for every env runner even when they outnumber the cores.
        cpus = max(usable_cores(), int(args.num_env_runners * args.num_cpus_per_env_runner + 0.999))
        # address="local": a private instance even if `ray start` left a cluster running on this machine
        ray.init(address="local", num_cpus=cpus, include_dashboard=False)
    resources = ray.cluster_resources()
    return {
        "address": address or "local",
        "nodes": sum(1 for node in ray.nodes() if node.get("Alive")),
        "cpus": resources.get("CPU", 0.0),
        "gpus": resources.get("GPU", 0.0),
    }


def module_spec(spec, config, args: Args):
    """The one policy: RLlib's action-masking PPO module over the game's Dict observation."""
    import gymnasium
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from fruit_envs.rllib_env import observation_space

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        observation_space=observation_space(spec, config),
        action_space=gymnasium.spaces.Discrete(spec.num_actions),
        model_config={
            "fcnet_hiddens": list(args.net_arch),
            "fcnet_activation": "tanh",
            "head_fcnet_hiddens": [],
            "vf_share_layers": False,
        },
    )


def build_algorithm(spec, config, game_options: dict, args: Args):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from fruit_envs.rllib_env import FruitEpisodeMetrics, FruitMultiAgentEnv

    env_config = {"game": spec.id, "num_players": args.num_players, "reward": args.reward, **game_options}
    algo_config = (
        PPOConfig()
        .environment(FruitMultiAgentEnv, env_config=env_config)
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=args.num_cpus_per_env_runner,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=args.num_learners, num_gpus_per_learner=args.num_gpus_per_learner)
        .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, episode, **kwargs: POLICY_ID)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: module_spec(spec, config, args)}))
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.learning_rate,
            gamma=args.gamma,
            lambda_=args.gae_lambda,
            clip_param=args.clip_param,
            entropy_coeff=args.ent_coef,
            vf_loss_coeff=args.vf_coef,
            grad_clip=args.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .callbacks(FruitEpisodeMetrics)
        .debugging(seed=args.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    return algo_config.build_algo()


class LearnerClock:
    """Seconds spent in the learner update during each iteration.

    RLlib reports its timers as slow moving averages; timing `learner_group.update` itself splits
    every iteration exactly into learning and the rest (sampling, weight sync).
    """

    def __init__(self, learner_group):
        self.seconds = 0.0
        update = learner_group.update

        def timed_update(*args, **kwargs):
            start = time.perf_counter()
            try:
                return update(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        learner_group.update = timed_update

    def take(self) -> float:
        seconds, self.seconds = self.seconds, 0.0
        return seconds


def save_checkpoint(algo, checkpoints: Path, timesteps: int) -> Path:
    """`checkpoints/step_{timesteps}/`, written under a temporary name; `checkpoints/latest` then points to it."""
    final = checkpoints / f"step_{timesteps:012d}"
    tmp = checkpoints / f"step_{timesteps:012d}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    link_tmp = checkpoints / "latest.tmp"
    if link_tmp.is_symlink() or link_tmp.exists():
        link_tmp.unlink()
    link_tmp.symlink_to(final.name)
    os.replace(link_tmp, checkpoints / "latest")  # a symlink replaced in one step: never dangling
    return final


def save_model(module, path: Path) -> None:
    """The shared policy alone (loadable by `RLModule.from_checkpoint` and `rllib:PATH`), written atomically."""
    tmp = path.with_name(path.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    module.save_to_path(str(tmp.resolve()))
    old = path.with_name(path.name + ".old")
    if path.exists():
        os.replace(path, old)
    os.replace(tmp, path)
    shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The run


def train(args: Args) -> dict:
    """Run (or resume) training; returns a summary with the run folder and final win rates."""
    import fruit_envs

    resume_dir = args.resume
    if resume_dir is not None:
        run_dir = Path(resume_dir)
        config_path = run_dir / "config.json"
        if not config_path.is_file():
            raise UsageError(f"--resume {run_dir}: no config.json there; is it a run folder?")
        if not (run_dir / "checkpoints" / "latest").is_dir():
            raise UsageError(f"--resume {run_dir}: no checkpoints/latest to continue from")
        try:
            validate.writable_dir(run_dir / "checkpoints", "--resume")
        except ValueError as error:
            raise UsageError(str(error)) from None
        saved = json.loads(config_path.read_text())
        here = {name: getattr(args, name) for name in MACHINE_ARGS}  # this machine's, not the run's
        new_total = args.resume_total_timesteps
        args = dataclasses.replace(args_from_json(saved["args"]), **here)
        if new_total is not None:
            args.total_timesteps = new_total
    try:
        spec = fruit_envs.get_spec(args.game)
    except ValueError as error:
        raise UsageError(str(error)) from error
    if max(spec.player_counts) < 2:
        raise UsageError(
            f"{spec.name} is a one-player game: RLlib self-play needs two or more seats; "
            f"train it with python -m fruit_envs.training.train_ppo --game {spec.id}"
        )
    try:
        game_options = parse_options(args.options)
        config = spec.make_config(args.num_players, reward=args.reward, **game_options)
    except ValueError as error:
        raise UsageError(str(error)) from error
    check_args(args, config, starting=resume_dir is None)

    import ray
    from torch.utils.tensorboard import SummaryWriter

    from fruit_envs.agents import make_agent
    from fruit_envs.agents.arena import evaluate
    from fruit_envs.agents.rllib import RLlibAgent

    threads = limit_threads(args.torch_threads)  # this process's torch threads (fruit_envs.core.threads)
    cluster = start_ray(args)
    try:
        if resume_dir is None:
            run_dir, meta = common.start_run(args, spec, config, versions(), threads, ray_cluster=cluster)
        else:
            meta = json.loads((run_dir / "config.json").read_text())

        algo = build_algorithm(spec, config, game_options, args)
        clock = LearnerClock(algo.learner_group)
        iteration, timesteps, resumed_from = 0, 0, None
        if resume_dir is not None:
            latest = (run_dir / "checkpoints" / "latest").resolve()
            algo.restore_from_path(str(latest))
            state = json.loads((latest / "fruit_envs.json").read_text())
            iteration, timesteps, resumed_from = state["iteration"], state["timesteps"], state["timesteps"]
            meta["resumes"].append(
                {
                    "at": time.strftime("%Y-%m-%d %H:%M:%S"),
                    "from_timesteps": resumed_from,
                    "total_timesteps": args.total_timesteps,
                    "torch_threads": threads,
                    **provenance(),  # the git commit, from a checkout only
                    "ray_cluster": cluster,
                }
            )
            atomic_write_text(run_dir / "config.json", json.dumps(meta, indent=2))

        progress_log = CsvLog(run_dir / "progress.csv", PROGRESS_COLUMNS)
        eval_log = CsvLog(run_dir / "eval.csv", EVAL_COLUMNS)
        if resumed_from is not None:
            moved = progress_log.truncate_after(resumed_from) + eval_log.truncate_after(resumed_from)
            if moved:
                print(f"{moved} log rows from after the checkpoint moved to *.superseded.csv", file=sys.stderr)
        writer = SummaryWriter(str(run_dir), purge_step=resumed_from)
        eval_module = module_spec(spec, config, args).build()
        baselines = {name: make_agent(name, spec, config) for name in ("random", "greedy")}
        latest_eval: dict[str, dict] = {}

        def sync_eval_module():
            weights = algo.learner_group.get_weights(module_ids=[POLICY_ID])[POLICY_ID]
            eval_module.set_state(weights)
            return eval_module

        def run_evaluation(t: int) -> None:
            agent = RLlibAgent(sync_eval_module(), spec, config, deterministic=True)
            for name, opponent in baselines.items():
                start = time.time()
                result = evaluate(spec, config, agent, opponent, args.eval_games, seed=args.eval_seed)
                result.update(timesteps=t, opponent=name, seconds=round(time.time() - start, 3))
                eval_log.append(result)
                latest_eval[name] = result
                writer.add_scalar(f"eval/win_rate_vs_{name}", result["win_rate"], t)
                writer.add_scalar(f"eval/win_rate_low_vs_{name}", result["win_rate_low"], t)
                writer.add_scalar(f"eval/draw_rate_vs_{name}", result["draws"] / result["games"], t)
                writer.add_scalar(f"eval/truncated_rate_vs_{name}", result["truncated_rate"], t)
            writer.flush()
            plot_learning_curve(
                run_dir / "eval.csv",
                run_dir / "learning_curve.png",
                f"{spec.name}, {args.num_players} players: RLlib PPO (self-play)",
                args.num_players,
            )

        def checkpoint(t: int) -> None:
            path = save_checkpoint(algo, run_dir / "checkpoints", t)
            atomic_write_text(path / "fruit_envs.json", json.dumps({"iteration": iteration, "timesteps": t}))

        next_eval = (timesteps // args.eval_every + 1) * args.eval_every
        next_ckpt = (timesteps // args.checkpoint_every + 1) * args.checkpoint_every
        started = time.time()
        elapsed_before = float(progress_log.rows()[-1]["time_elapsed"]) if progress_log.rows() else 0.0
        saved_at = None
        with Interrupted() as interrupted:
            while timesteps < args.total_timesteps and interrupted.signal is None:
                result = algo.train()
                learn_time = clock.take()
                iteration += 1
                sampled = int(dig(result, ("env_runners", "num_env_steps_sampled")) or 0)
                timesteps += sampled  # our own count: it survives --resume whatever RLlib restores
                seconds = dig(result, ("time_this_iter_s",)) or float("nan")
                illegal = dig(result, ("env_runners", "illegal_actions"))
                truncated = dig(result, ("env_runners", "truncated_games"))
                row = {
                    "timesteps": timesteps,
                    "iteration": iteration,
                    "time_elapsed": round(elapsed_before + time.time() - started, 3),
                    "fps": round(sampled / seconds, 1) if seconds > 0 else None,
                    "sample_fps": round(sampled / (seconds - learn_time), 1) if seconds > learn_time else None,
                    "sample_time": round(seconds - learn_time, 4),
                    "learn_time": round(learn_time, 4),
                    "illegal_actions": None if illegal is None else int(illegal),  # None: no game ended
                    "truncated_games": None if truncated is None else int(truncated),
                }
                for column, (path, _) in RESULT_KEYS.items():
                    row[column] = dig(result, path)
                progress_log.append(row)
                for column, value in row.items():
                    if column in ("timesteps", "iteration") or value is None:
                        continue
                    group = RESULT_KEYS[column][1] if column in RESULT_KEYS else "charts"
                    writer.add_scalar(f"{group}/{column}", value, timesteps)
                writer.flush()
                if args.progress:
                    shown = " ".join(f"{name} {r['win_rate']:.2f}" for name, r in latest_eval.items()) or "-"
                    print(
                        f"iter {iteration:5d}  steps {timesteps:>10,}  {row['fps'] or 0:7.0f} steps/s "
                        f"(sampling {row['sample_fps'] or 0:.0f}, learning {learn_time:.1f} s)  "
                        f"illegal {row['illegal_actions'] or 0}  win vs {shown}",
                        file=sys.stderr,
                    )
                if timesteps >= next_eval:
                    run_evaluation(timesteps)
                    next_eval = (timesteps // args.eval_every + 1) * args.eval_every
                if timesteps >= next_ckpt:
                    checkpoint(timesteps)
                    saved_at = timesteps
                    next_ckpt = (timesteps // args.checkpoint_every + 1) * args.checkpoint_every
            if saved_at != timesteps:
                checkpoint(timesteps)
            if interrupted.signal is not None:
                writer.close()
                name = signal.Signals(interrupted.signal).name
                print(
                    f"\n{name}: checkpoint saved at {timesteps} env steps in {run_dir}\n"
                    f"resume with: python -m fruit_envs.training.train_rllib --resume {run_dir}",
                    file=sys.stderr,
                )
                return {
                    "run_dir": run_dir,
                    "timesteps": timesteps,
                    "interrupted": name,
                    "exit_code": 128 + interrupted.signal,
                }
            if not latest_eval or latest_eval["random"]["timesteps"] != timesteps:
                run_evaluation(timesteps)
        save_model(sync_eval_module(), run_dir / "model")
        writer.close()
        summary = {
            "run_dir": run_dir,
            "timesteps": timesteps,
            "iterations": iteration,
            "seconds": round(time.time() - started, 1),
            "illegal_actions": sum(int(r["illegal_actions"] or 0) for r in progress_log.rows()),
            "eval": {k: {kk: v[kk] for kk in WIN_SUMMARY} for k, v in latest_eval.items()},
            "exit_code": 0,
        }
        atomic_write_text(run_dir / "summary.json", json.dumps({**summary, "run_dir": str(run_dir)}, indent=2))
        algo.stop()
        return summary
    finally:
        ray.shutdown()


def print_summary(summary: dict) -> None:
    print(f"\nrun folder: {summary['run_dir']}")
    print(f"trained {summary['timesteps']:,} env steps in {summary['seconds']} s ({summary['iterations']} iterations)")
    for name, r in summary["eval"].items():
        unfinished = f", {r['truncated']} truncated" if r.get("truncated") else ""
        print(
            f"  RLlib PPO vs {name:<6}: win rate {r['win_rate']:.3f} "
            f"(95% CI {r['win_rate_low']:.3f}-{r['win_rate_high']:.3f}, {r['games']} games{unfinished}, seats rotated)"
        )
    print(f"illegal actions taken: {summary['illegal_actions']}")
    print(f"policy: rllib:{summary['run_dir']}/model   TensorBoard: tensorboard --logdir {summary['run_dir']}")


def parse_args(argv: list[str] | None = None) -> Args:
    import tyro

    return tyro.cli(Args, args=argv, prog=prog("fruit_envs.training.train_rllib"), description=__doc__)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        import ray  # noqa: F401
    except ImportError:
        print("error: Ray RLlib is not installed; pip install -e '.[distributed]' (or ./dev setup)", file=sys.stderr)
        return 2
    return common.run_command(lambda: train(args), print_summary, errors=UsageError)


if __name__ == "__main__":
    sys.exit(main())
