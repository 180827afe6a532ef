"""Ray RLlib: the multi-agent env adapter (turns, masks, rewards, episode end) and the training script.

Needs the `distributed` extra, which `./dev` and CI install; skipped with a reason only where Ray
RLlib cannot be imported at all.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import game_player_params

pytest.importorskip(
    "ray.rllib", reason="Ray RLlib is not installed: pip install -e '.[distributed]' (./dev test installs it)"
)

from fruit_envs import get_spec  # noqa: E402
from fruit_envs.core.errors import IllegalActionError  # noqa: E402
from fruit_envs.rllib_env import FruitEpisodeMetrics, FruitMultiAgentEnv  # noqa: E402
from fruit_envs.training import train_rllib  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def play(env: FruitMultiAgentEnv, seed: int, rng: np.random.Generator, on_step=None):
    """A random legal game; yields nothing, calls `on_step(obs, rewards, terms, truncs, infos, acted)`."""
    obs, infos = env.reset(seed=seed)
    while True:
        assert len(obs) == 1
        ((agent, o),) = obs.items()
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        result = env.step({agent: action})
        if on_step is not None:
            on_step(*result, acted=agent)
        obs, _, terms, truncs, _ = result
        if terms["__all__"] or truncs["__all__"]:
            return result


# ---------------------------------------------------------------------------------------------
# The adapter


@pytest.mark.parametrize("game, num_players", game_player_params())
def test_only_the_seat_to_move_observes_with_the_rules_mask(game, num_players):
    env = FruitMultiAgentEnv({"game": game, "num_players": num_players, "illegal_action": "raise"})
    rules = get_spec(game).rules
    rng = np.random.default_rng(0)
    obs, infos = env.reset(seed=3)
    steps = 0
    while True:
        assert list(obs) == [f"player_{int(env.state.to_move[0])}"], "exactly the seat to move observes"
        ((agent, o),) = obs.items()
        seat = int(agent.split("_")[1])
        assert env.observation_spaces[agent].contains(o)
        assert o["action_mask"].dtype == np.float32 and set(np.unique(o["action_mask"])) <= {0.0, 1.0}
        np.testing.assert_array_equal(o["action_mask"].astype(bool), rules.legal_mask(env.state, seat)[0])
        np.testing.assert_array_equal(o["observations"], rules.observe(env.state, seat)[0])
        assert o["action_mask"].any()
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        steps += 1
        assert set(rewards) <= set(obs), "rewards are delivered only with an observation"
        if terms["__all__"] or truncs["__all__"]:
            break
        assert set(infos) == set(obs) and terms == {"__all__": False} and truncs == {"__all__": False}
    assert steps <= get_spec(game).max_game_length(env.config)


def reward_params() -> list[tuple[str, int, str]]:
    """Every game and player count with each reward scheme the game allows."""
    return [
        (game, p, reward)
        for game, p in game_player_params()
        for reward in get_spec(game).config_cls.options()["reward"].metadata["choices"]
    ]


@pytest.mark.parametrize("game, num_players, reward", reward_params())
def test_each_seat_gets_exactly_what_the_rules_paid_it_when_it_next_acts(game, num_players, reward):
    """Every reward the rules pay a seat waits for that seat's next observation (or the end) and
    reaches that seat only; over a game each seat's rewards sum to the game's own."""
    env = FruitMultiAgentEnv({"game": game, "num_players": num_players, "reward": reward, "illegal_action": "raise"})
    rules = get_spec(game).rules
    rng = np.random.default_rng(1)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        shadow = env.state.copy()
        owed = np.zeros(num_players)  # paid by the rules, not yet delivered
        paid_total = np.zeros(num_players)
        delivered_total = np.zeros(num_players)
        while True:
            ((agent, o),) = obs.items()
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            shadow, paid = rules.step(shadow, np.array([action]))
            owed += paid[0]
            paid_total += paid[0]
            obs, rewards, terms, truncs, _ = env.step({agent: action})
            for name, value in rewards.items():
                k = int(name.split("_")[1])
                assert value == pytest.approx(owed[k]), f"{name} gets what it earned since it last acted"
                owed[k] = 0.0
                delivered_total[k] += value
            if terms["__all__"] or truncs["__all__"]:
                break
        assert not owed.any(), "nothing is left undelivered at the end"
        np.testing.assert_allclose(delivered_total, paid_total)
        if reward == "terminal":  # the contract: +1 each winner, -1 each loser, 0 all round in a full draw
            won = rules.winners(shadow)[0]
            np.testing.assert_allclose(delivered_total, 0.0 if won.all() else np.where(won, 1.0, -1.0))


def test_the_end_of_a_game_reaches_every_agent_at_once():
    env = FruitMultiAgentEnv({"game": "cherry_picking", "num_players": 3})
    obs, rewards, terms, truncs, infos = play(env, seed=0, rng=np.random.default_rng(0))
    agents = set(env.possible_agents)
    assert terms["__all__"] is True and truncs["__all__"] is False
    assert set(obs) == agents and set(rewards) == agents and set(infos) == agents
    assert all(terms[a] for a in agents) and not any(truncs[a] for a in agents)
    assert sorted(rewards.values()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0])
    assert all(info["illegal_actions"] == 0 for info in infos.values())
    with pytest.raises(RuntimeError, match="call reset"):
        env.step({"player_0": 0})


def test_a_frozen_game_is_truncated_for_every_agent_with_no_reward():
    """Issue 16: the clogged Juicy Fruits position ends truncated (not terminated) with 0 for both seats;
    the same position in its last round ends terminated with the outcome."""
    from juicy_fruits_helpers import clogged

    from fruit_envs.games.juicy_fruits import rules as R

    for last_round, truncated, paid in ((False, True, [0.0, 0.0]), (True, False, [1.0, -1.0])):
        env = FruitMultiAgentEnv({"game": "juicy_fruits", "num_players": 2})
        obs, _ = env.load_state(clogged(last_round=last_round))
        returns = dict.fromkeys(env.possible_agents, 0.0)
        while True:
            ((agent, o),) = obs.items()
            assert np.flatnonzero(o["action_mask"]).tolist() == [R.PASS]
            obs, rewards, terms, truncs, infos = env.step({agent: R.PASS})
            for name, reward in rewards.items():
                returns[name] += reward
            if terms["__all__"] or truncs["__all__"]:
                break
        assert truncs["__all__"] is truncated and terms["__all__"] is (not truncated)
        assert list(returns.values()) == paid and set(obs) == set(env.possible_agents)
        assert all(info["truncated"] is truncated for info in infos.values())


def test_illegal_actions_lose_and_are_counted_or_raise():
    env = FruitMultiAgentEnv({"game": "cherry_picking", "num_players": 2})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, terms, _, infos = env.step({agent: illegal})
    assert terms["__all__"] and rewards[agent] == -1.0
    assert all(v == 0.0 for a, v in rewards.items() if a != agent)
    assert all(info["illegal_actions"] == 1 and info["illegal_by"] == agent for info in infos.values())

    strict = FruitMultiAgentEnv({"game": "cherry_picking", "num_players": 2, "illegal_action": "raise"})
    obs, _ = strict.reset(seed=0)
    before = strict.state.copy()
    with pytest.raises(IllegalActionError, match="illegal action"):
        strict.step({agent: illegal})
    assert all(
        np.array_equal(a, b) for a, b in zip(before.arrays().values(), strict.state.arrays().values(), strict=True)
    )
    legal = int(np.flatnonzero(o["action_mask"])[0])
    for not_an_action in (str(legal), float(legal), None):
        with pytest.raises(IllegalActionError):
            strict.step({agent: not_an_action})
    with pytest.raises(ValueError, match="only"):
        strict.step({"player_0": 0, "player_1": 0})
    strict.step({agent: np.int64(legal)})


def test_the_metrics_callback_reports_counted_illegal_actions_and_truncated_games():
    """The counts the training script logs are the ones the env puts in its final infos."""
    from ray.rllib.utils.metrics.metrics_logger import MetricsLogger

    class Episode:
        def __init__(self, infos):
            self.infos = infos

        def get_infos(self, index):
            assert index == -1
            return self.infos

    logger = MetricsLogger()
    callback = FruitEpisodeMetrics()
    callback.on_episode_end(
        episode=Episode({"player_0": {"illegal_actions": 1}, "player_1": {"illegal_actions": 1}}),
        metrics_logger=logger,
        env_index=0,
    )
    callback.on_episode_end(
        episode=Episode({"player_0": {"illegal_actions": 0, "truncated": True}}), metrics_logger=logger, env_index=0
    )
    reduced = logger.reduce()
    assert reduced["illegal_actions"] == 1 and reduced["truncated_games"] == 1


def test_same_seed_same_game_and_rllib_accepts_the_env():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    def trace(seed):
        env = FruitMultiAgentEnv({"game": "cherry_picking", "num_players": 2})
        seen = []
        play(env, seed, np.random.default_rng(7), on_step=lambda o, *rest, acted: seen.append((acted, sorted(o))))
        return seen, env.state.arrays()

    (a, state_a), (b, state_b) = trace(5), trace(5)
    assert a == b and all(np.array_equal(state_a[k], state_b[k]) for k in state_a)
    check_multiagent_environments(FruitMultiAgentEnv({"game": "cherry_picking", "num_players": 2}))


# ---------------------------------------------------------------------------------------------
# The training script

TINY = [
    "--num-env-runners",
    "2",
    "--num-envs-per-env-runner",
    "1",
    "--train-batch-size",
    "600",
    "--minibatch-size",
    "300",
    "--num-epochs",
    "1",
    "--net-arch",
    "32",
    "32",
    "--eval-games",
    "8",
    "--no-progress",
]


def rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def only_run(runs: Path) -> Path:
    found = [p for p in runs.iterdir() if p.is_dir()]
    assert len(found) == 1, found
    return found[0]


def test_one_iteration_on_two_env_runners_writes_the_run_folder_and_never_plays_an_illegal_action(tmp_path, capsys):
    runs = tmp_path / "runs"
    argv = ["--game", "cherry_picking", "--total-timesteps", "600", "--runs-dir", str(runs), *TINY]
    assert train_rllib.main(argv) == 0
    run = only_run(runs)
    assert run.name.startswith("cherry_picking__rllib_ppo__1__")
    out = capsys.readouterr().out
    assert f"run folder: {run}" in out and "RLlib PPO vs random" in out and "RLlib PPO vs greedy" in out

    config = json.loads((run / "config.json").read_text())
    assert config["args"]["num_env_runners"] == 2 and config["args"]["game"] == "cherry_picking"
    assert {"ray", "torch", "gymnasium", "numpy", "fruit_envs"} <= set(config["versions"])
    assert config["ray_cluster"]["address"] == "local" and "commit" in config["git"]

    # one training iteration, or more where RLlib's sample timeout cut a batch short on a loaded machine
    iterations = rows(run / "progress.csv")
    row = iterations[-1]
    assert [int(r["iteration"]) for r in iterations] == list(range(1, len(iterations) + 1))
    assert int(row["timesteps"]) >= 600 and (len(iterations) == 1 or int(iterations[-2]["timesteps"]) < 600)
    assert float(row["healthy_env_runners"]) == 2 and float(row["env_runner_restarts"]) == 0
    assert float(row["episodes"]) >= 2, "whole games were played, so every action was checked"
    assert row["illegal_actions"] == "0", "the masked policy never chose an illegal action (and that was counted)"
    assert row["policy_loss"] and row["value_loss"] and row["entropy"]
    evals = rows(run / "eval.csv")
    assert {r["opponent"] for r in evals} == {"random", "greedy"}
    for r in evals:
        assert float(r["win_rate_low"]) <= float(r["win_rate"]) <= float(r["win_rate_high"])

    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags = EventAccumulator(str(run)).Reload().Tags()["scalars"]
    assert "charts/fps" in tags and "charts/illegal_actions" in tags and "losses/policy_loss" in tags
    assert "eval/win_rate_vs_greedy" in tags and "eval/win_rate_vs_random" in tags

    latest = run / "checkpoints" / "latest"
    assert latest.is_symlink() and latest.resolve().name.startswith("step_") and latest.is_dir()
    assert (latest / "rllib_checkpoint.json").is_file()
    assert (run / "model").is_dir() and (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["illegal_actions"] == 0 and summary["iterations"] == len(iterations)
    assert not list(run.rglob("*.tmp*")), "no temporary files are left behind"

    from fruit_envs.agents import make_agent

    spec = get_spec("cherry_picking")
    cfg = spec.make_config()
    state = spec.rules.init(cfg, np.arange(16, dtype=np.uint64))
    mask = spec.rules.legal_mask(state)
    obs = spec.rules.observe(state, state.to_move)
    for where in (run, run / "model", latest):
        agent = make_agent(f"rllib:{where}", spec, cfg)
        assert mask[np.arange(16), agent.act(obs, mask, np.random.default_rng(0))].all()


@pytest.mark.slow
def test_sigterm_checkpoints_and_resume_continues_the_logs(tmp_path):
    runs = tmp_path / "runs"
    cmd = [sys.executable, "-m", "fruit_envs.training.train_rllib", "--total-timesteps", "100000000"]
    cmd += ["--eval-every", "100000000", "--checkpoint-every", "100000000", "--runs-dir", str(runs), *TINY]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline:
            progress = list(runs.glob("*/progress.csv"))
            if progress and len(rows(progress[0])) >= 2:
                break
            time.sleep(0.5)
        else:
            pytest.fail("training never logged two iterations")
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signal.SIGTERM, err[-3000:]
    assert "checkpoint saved" in err
    run = only_run(runs)
    before = rows(run / "progress.csv")
    saved = json.loads((run / "checkpoints" / "latest" / "fruit_envs.json").read_text())["timesteps"]
    assert saved == int(before[-1]["timesteps"])

    argv = ["--resume", str(run), "--resume-total-timesteps", str(saved + 600), "--no-progress"]
    assert train_rllib.main(argv) == 0
    after = rows(run / "progress.csv")
    assert after[: len(before)] == before, "rows written before the signal are kept"
    steps = [int(r["timesteps"]) for r in after]
    assert steps == sorted(set(steps)) and steps[-1] >= saved + 600
    assert [int(r["iteration"]) for r in after] == list(range(1, len(after) + 1))
    assert json.loads((run / "config.json").read_text())["resumes"][0]["from_timesteps"] == saved


def test_help_documents_every_field():
    proc = subprocess.run(
        [sys.executable, "-m", "fruit_envs.training.train_rllib", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    for f in dataclasses.fields(train_rllib.Args):
        assert "--" + f.name.replace("_", "-") in proc.stdout, f.name


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--resume", "/nonexistent/run"], "no config.json there"),
        (["--options", "colour=red"], r"unknown option\(s\) \['colour'\]"),
        (["--minibatch-size", "0"], "--minibatch-size must be an integer >= 1"),
        (["--minibatch-size", "5000"], "--minibatch-size must not exceed --train-batch-size"),
        (["--eval-every", "0"], "--eval-every must be an integer >= 1"),
        (["--checkpoint-every", "0"], "--checkpoint-every must be an integer >= 1"),
        (["--total-timesteps", "-5"], "--total-timesteps must be an integer >= 1"),
        (["--eval-games", "0"], "--eval-games must be an integer >= 2"),
        (["--game", "juicy_fruits_solo", "--num-players", "1"], "one-player game: RLlib self-play needs two"),
    ],
)
def test_bad_arguments_are_clear_errors_before_ray_starts(argv, message, tmp_path, capsys):
    import re

    import ray

    assert train_rllib.main([*argv, "--runs-dir", str(tmp_path), "--no-progress"]) == 2
    assert re.search(message, capsys.readouterr().err)
    assert not any(tmp_path.iterdir()), "a refused run leaves no folder behind"
    assert not ray.is_initialized()
