"""Exploitability proxy: a fresh PPO trained against the frozen policy, then played against it."""

from __future__ import annotations

import sys
import time

import numpy as np

from fruit_envs.agents.arena import play_games
from fruit_envs.benchmarks.benchmark.play import cell_numbers
from fruit_envs.benchmarks.benchmark.protocol import deal_keys
from fruit_envs.benchmarks.benchmark.reports import _share


def run_best_response(
    plan: list, label: str, steps: int, options: dict, seed: int, progress: bool, policy=None, runner=None
) -> list[dict]:
    """For every two-player game of the run: train a fresh MaskablePPO for `steps` decisions against the
    frozen policy in the other seat, then play it against the policy (seats rotated, argmax) and report its
    win share over finished games: the higher, the more exploitable the policy. Each game's is a unit of
    work (`fruit_envs.core.units`) on `runner`, the policy travelling as `policy` (`PolicyTraveller`)."""
    from fruit_envs.benchmarks.benchmark.play import remember
    from fruit_envs.benchmarks.benchmark.policies import PolicyTraveller
    from fruit_envs.core import units

    if policy is None:  # called with agents alone: they stay in this process
        policy = PolicyTraveller(label, "")
    jobs = []
    for spec, config, agent, _ in plan:
        if config.num_players == 2:
            remember(policy.run, spec.id, 2, "policy", agent)
            task = (policy, spec.id, steps, options, seed)
            jobs.append(units.Unit(f"best-response-{spec.id}", best_response_unit, task))
    results = units.run_units(jobs, runner or units.Backend(), progress=False)
    if progress:
        for result in results:
            print(f"best response to {label} in {result['game']}: {_share(result)}", file=sys.stderr)
    return results


def best_response_unit(policy, game: str, steps: int, options: dict, seed: int) -> dict:
    """One game's best response (`run_best_response`), in whatever process runs it."""
    from fruit_envs.agents.ppo import PPOAgent
    from fruit_envs.benchmarks.benchmark.play import built
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv
    from fruit_envs.core.spec import get_spec

    spec = get_spec(game)
    config = spec.make_config(2)
    agent = built(policy, spec, config)
    start = time.perf_counter()
    env = FruitSB3VecEnv(spec.id, num_envs=int(options["num_envs"]), num_players=2, opponent=agent)
    env.seed(seed)
    model = response_model(env, options, seed)
    model.learn(total_timesteps=steps, progress_bar=False)
    learner = PPOAgent(model, spec, config, deterministic=True)
    per_seat = int(options["games_per_seat"])
    seating = np.zeros((2 * per_seat, 2), dtype=np.int64)
    br_seat = np.repeat(np.arange(2), per_seat)
    seating[np.arange(2 * per_seat), 1 - br_seat] = 1
    keys = np.tile(deal_keys(seed + 1, spec.id, 2, per_seat), 2)
    result = play_games(spec, config, [learner, agent], seating, seed=seed + 1, keys=keys)
    numbers = cell_numbers(result.scores, result.winners, result.truncated, br_seat, time.perf_counter() - start)
    return {
        "game": spec.id,
        "players": 2,
        "steps": int(model.num_timesteps),
        "settings": {k: options[k] for k in sorted(options)},
        **{k: numbers[k] for k in ("games", "finished", "truncated", "wins", "draws", "losses")},
        "win_share": numbers["win_share"],
        "win_low": numbers["win_low"],
        "win_high": numbers["win_high"],
        "seconds": numbers["seconds"],
    }


def response_model(env, options: dict, seed: int, policy_kwargs: dict | None = None):
    """An untrained MaskablePPO on `env` with the protocol's `best_response:` training settings (`options`) on the
    CPU; `policy_kwargs` default to the settings' `net_arch`."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        "MlpPolicy",
        env,
        learning_rate=float(options["learning_rate"]),
        n_steps=int(options["n_steps"]),
        batch_size=int(options["batch_size"]),
        n_epochs=int(options["n_epochs"]),
        gamma=float(options["gamma"]),
        ent_coef=float(options["ent_coef"]),
        seed=seed,
        policy_kwargs=policy_kwargs or {"net_arch": [int(n) for n in options["net_arch"]]},
        device="cpu",
        verbose=0,
    )
