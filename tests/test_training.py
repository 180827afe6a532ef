"""The training script: every promised file, resume, interruption, and rewards that belong to the learner."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import game_ids

from fruit_envs.training import train_ppo

ROOT = Path(__file__).resolve().parents[1]
TINY = [
    "--num-envs",
    "8",
    "--n-steps",
    "16",
    "--batch-size",
    "64",
    "--n-epochs",
    "1",
    "--net-arch",
    "32",
    "32",
    "--eval-games",
    "8",
    "--snapshot-every",
    "1",
    "--no-progress",
]


def rows(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def only_run(runs: Path) -> Path:
    found = [p for p in runs.iterdir() if p.is_dir()]
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("game", game_ids())
def test_tiny_run_writes_every_promised_file_and_resumes(game, tmp_path, capsys):
    runs = tmp_path / "runs"
    args = [
        "--game",
        game,
        "--total-timesteps",
        "512",
        "--eval-every",
        "256",
        "--checkpoint-every",
        "256",
        "--runs-dir",
        str(runs),
        "--record-eval",
        *[a for a in TINY if a != "--no-progress"],
    ]
    assert train_ppo.main(args) == 0
    run = only_run(runs)
    assert run.name.startswith(f"{game}__ppo__1__")
    captured = capsys.readouterr()
    out = captured.out
    # stderr is not a terminal here: plain progress lines, no bar redraws (issue 19: ~150 KB per run)
    assert "\r" not in captured.err and re.search(r"512/512 step \(100%\)", captured.err)
    assert len(captured.err) < 5_000
    from fruit_envs import get_spec

    solo = get_spec(game).default_num_players == 1  # one seat: mean scores instead of win rates, no league
    if solo:
        assert f"run folder: {run}" in out and all(f"{who:<6} alone: mean score" in out for who in ("PPO", "greedy"))
    else:
        assert f"run folder: {run}" in out and "PPO vs random" in out and "PPO vs greedy" in out

    config = json.loads((run / "config.json").read_text())
    assert config["args"]["total_timesteps"] == 512 and config["args"]["game"] == game
    assert {"torch", "numpy", "stable_baselines3", "sb3_contrib", "fruit_envs"} <= set(config["versions"])
    assert "commit" in config["git"]

    progress = rows(run / "progress.csv")
    assert len(progress) >= 3 and progress[0].keys() >= {"timesteps", "fps", "ep_rew_mean", "value_loss"}
    steps = [int(r["timesteps"]) for r in progress]
    assert steps == sorted(set(steps))
    iterations = [int(r["iteration"]) for r in progress]  # issue 19: the column was empty in every row
    assert iterations == [t // (8 * 16) for t in steps] and iterations[0] >= 1
    evals = rows(run / "eval.csv")
    if solo:
        assert [r["agent"] for r in evals] == ["random", "greedy", "ppo", "ppo"], "baselines once, PPO per evaluation"
        for r in evals:
            assert float(r["score_low"]) <= float(r["mean_score"]) <= float(r["score_high"])
    else:
        assert {r["opponent"] for r in evals} == {"random", "greedy"}
        for r in evals:
            assert float(r["win_rate_low"]) <= float(r["win_rate"]) <= float(r["win_rate_high"])
    from fruit_envs.core import record as frecord

    games = frecord.read_records(run / "eval_games.jsonl")  # --record-eval: every evaluation game, replayable
    assert len(games) == sum(int(r["games"]) for r in evals)
    who = "agent" if solo else "opponent"  # one-player games record each agent's games alone
    assert {(g.meta["timesteps"], g.meta[who]) for g in games} == {(int(r["timesteps"]), r[who]) for r in evals}
    assert all(len(g.players) == (1 if solo else get_spec(game).default_num_players) for g in games)
    for record in games[:: max(1, len(games) // 8)]:
        assert frecord.replay(record).outcome == record.outcome

    assert list(run.glob("events.out.tfevents.*"))
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tags = EventAccumulator(str(run)).Reload().Tags()["scalars"]
    assert any(t.startswith("charts/") for t in tags)
    assert any(t.startswith("losses/") for t in tags)
    if solo:
        assert "eval/mean_score" in tags and "eval/mean_score_greedy" in tags
    else:
        assert "eval/win_rate_vs_greedy" in tags and "eval/win_rate_vs_random" in tags

    checkpoints = sorted((run / "checkpoints").glob("step_*.zip"))
    assert len(checkpoints) >= 2 and (run / "checkpoints" / "latest.zip").is_file()
    assert (run / "model.zip").is_file()
    assert (run / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if solo:
        assert not (run / "league").exists(), "nobody to play against"
    else:
        league = json.loads((run / "league" / "league.json").read_text())["snapshots"]
        assert league and all((run / "league" / name).is_file() for name in league)
    assert not list(run.rglob("*.tmp*")), "no temporary files are left behind"

    from fruit_envs.agents import make_agent

    spec = get_spec(game)
    cfg = spec.make_config()
    agent = make_agent(f"ppo:{run / 'model.zip'}", spec, cfg)
    state = spec.rules.init(cfg, np.arange(16, dtype=np.uint64))
    mask = spec.rules.legal_mask(state)
    actions = agent.act(spec.rules.observe(state, state.to_move), mask, np.random.default_rng(0))
    assert mask[np.arange(16), actions].all()
    sampler = make_agent(f"ppo-sample:{run / 'model.zip'}", spec, cfg)
    assert agent.deterministic and not sampler.deterministic
    actions = sampler.act(spec.rules.observe(state, state.to_move), mask, np.random.default_rng(0))
    assert mask[np.arange(16), actions].all()

    first = json.loads((run / "summary.json").read_text())
    assert first["total_seconds"] >= first["seconds"] > 0
    clock_before = json.loads((run / "checkpoints" / "clock.json").read_text())
    assert clock_before["timesteps"] == first["timesteps"] and clock_before["seconds"] <= first["total_seconds"]
    assert train_ppo.main(["--resume", str(run), "--resume-total-timesteps", "1024", "--no-progress"]) == 0
    config = json.loads((run / "config.json").read_text())
    assert len(config["resumes"]) == 1 and config["resumes"][0]["from_timesteps"] >= 512
    after = [int(r["timesteps"]) for r in rows(run / "progress.csv")]
    assert after[: len(steps)] == steps, "rows written before the resume are kept"
    assert after == sorted(set(after)) and after[-1] >= 1024 - 128
    summary = json.loads((run / "summary.json").read_text())
    assert summary["timesteps"] >= 1024
    clock = json.loads((run / "checkpoints" / "clock.json").read_text())
    assert clock["timesteps"] == summary["timesteps"]
    # a resumed run's wall time counts every segment (the shipped baselines' training_seconds come from it)
    # each figure is rounded to 0.1 s, so the sum may exceed the total by up to two roundings
    assert summary["total_seconds"] >= clock_before["seconds"] + summary["seconds"] - 0.1 - 1e-9
    if solo:
        assert set(summary["eval"]) == {"ppo", "random", "greedy"} and "mean_score" in summary["eval"]["ppo"]
        assert [r["agent"] for r in rows(run / "eval.csv")].count("random") == 1, "baselines are logged once per run"


def test_a_second_signal_while_saving_says_so_and_the_save_finishes(capfd):
    """Issue 29: a second SIGTERM while the checkpoint is being saved printed a traceback (it raised
    KeyboardInterrupt). Now it says so in one line; the save goes on and the first signal's status stands."""
    from fruit_envs.training.train_ppo import Interrupted

    saved = []
    with Interrupted() as interrupted:
        os.kill(os.getpid(), signal.SIGTERM)  # the first: stop at the next decision
        assert interrupted.signal == signal.SIGTERM
        os.kill(os.getpid(), signal.SIGTERM)  # the second, as if during the save below
        os.kill(os.getpid(), signal.SIGINT)
        saved.append("checkpoint")
    assert saved == ["checkpoint"] and interrupted.signal == signal.SIGTERM
    lines = [line for line in capfd.readouterr().err.splitlines() if line]
    assert lines == [
        "SIGTERM: already stopping after SIGTERM and saving the checkpoint",
        "SIGINT: already stopping after SIGTERM and saving the checkpoint",
    ]


def interrupt_training(runs: Path, updates: int, signals: list[int]) -> tuple[int, str]:
    """Start a long `train_ppo` run, wait until it has logged `updates` updates, send it `signals` at once;
    returns its exit status and stderr."""
    cmd = [sys.executable, "-m", "fruit_envs.training.train_ppo", "--total-timesteps", "100000000"]
    cmd += ["--eval-every", "100000000", "--checkpoint-every", "100000000", "--runs-dir", str(runs), *TINY]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while not list(runs.glob("*/progress.csv")) or len(rows(next(runs.glob("*/progress.csv")))) < updates:
            assert time.time() < deadline, f"training never logged {updates} updates"
            time.sleep(0.2)
        for signum in signals:
            proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


def test_two_sigterms_stop_with_one_line_and_an_intact_checkpoint(tmp_path):
    runs = tmp_path / "runs"
    status, err = interrupt_training(runs, 2, [signal.SIGTERM, signal.SIGTERM])
    assert status == 128 + signal.SIGTERM, err
    assert "Traceback" not in err and "checkpoint saved" in err
    assert err.count("already stopping after SIGTERM") <= 1
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(only_run(runs) / "checkpoints" / "latest.zip", device="cpu").num_timesteps > 0


def test_sigterm_saves_a_checkpoint_and_resume_loses_and_repeats_no_rows(tmp_path):
    runs = tmp_path / "runs"
    status, err = interrupt_training(runs, 4, [signal.SIGTERM])
    assert status == 128 + signal.SIGTERM, err
    assert "checkpoint saved" in err and "Traceback" not in err
    run = only_run(runs)
    before = rows(run / "progress.csv")
    from sb3_contrib import MaskablePPO

    saved = MaskablePPO.load(run / "checkpoints" / "latest.zip", device="cpu").num_timesteps
    assert saved >= int(before[-1]["timesteps"])

    target = saved + 3 * 128
    resume = subprocess.run(
        [
            sys.executable,
            "-m",
            "fruit_envs.training.train_ppo",
            "--resume",
            str(run),
            "--resume-total-timesteps",
            str(target),
            "--no-progress",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert resume.returncode == 0, resume.stderr
    after = rows(run / "progress.csv")
    assert after[: len(before)] == before, "no row written before the kill is lost or changed"
    steps = [int(r["timesteps"]) for r in after]
    assert len(steps) == len(set(steps)) and steps == sorted(steps), "no row is repeated"
    assert len(after) >= len(before) + 2 and int(after[len(before)]["timesteps"]) > saved


def test_a_killed_write_never_corrupts_the_latest_checkpoint(tmp_path):
    class Model:
        def __init__(self, payload, fail):
            self.payload, self.fail = payload, fail

        def save(self, path):
            Path(path).write_bytes(self.payload[:3])
            if self.fail:
                raise KeyboardInterrupt("killed mid-write")
            Path(path).write_bytes(self.payload)

    latest = tmp_path / "latest.zip"
    train_ppo.atomic_save_model(Model(b"good checkpoint", fail=False), latest)
    with pytest.raises(KeyboardInterrupt):
        train_ppo.atomic_save_model(Model(b"newer checkpoint", fail=True), latest)
    assert latest.read_bytes() == b"good checkpoint"


def test_rows_from_after_the_checkpoint_are_set_aside_not_lost(tmp_path):
    log = train_ppo.CsvLog(tmp_path / "progress.csv", ["timesteps", "fps"])
    for t in (100, 200, 300, 400):
        log.append({"timesteps": t, "fps": 1})
    assert log.truncate_after(250) == 2
    assert [r["timesteps"] for r in log.rows()] == ["100", "200"]
    assert [r["timesteps"] for r in rows(tmp_path / "progress.superseded.csv")] == ["300", "400"]


def test_a_log_from_an_older_run_takes_todays_columns(tmp_path):
    """Resuming a run made before a column existed (eval.csv's `truncated`) keeps its rows, under today's header."""
    path = tmp_path / "eval.csv"
    path.write_text("timesteps,opponent,win_rate\n100,random,0.5\n")
    log = train_ppo.CsvLog(path, train_ppo.EVAL_COLUMNS)
    log.append({"timesteps": 200, "opponent": "random", "truncated": 3, "win_rate": 0.75})
    assert path.read_text().splitlines()[0] == ",".join(train_ppo.EVAL_COLUMNS)
    assert [(r["timesteps"], r["truncated"], r["win_rate"]) for r in log.rows()] == [
        ("100", "", "0.5"),
        ("200", "3", "0.75"),
    ]


@pytest.mark.parametrize("reward", ["score", "terminal"])
def test_learner_is_paid_its_own_seat_only(reward):
    """The classic self-play bug pays the learner the opponent's reward; here each finished episode's
    return must equal the learner seat's own score (or outcome), never an opponent's."""
    from sb3_contrib import MaskablePPO

    from fruit_envs import get_spec
    from fruit_envs.agents import make_agent
    from fruit_envs.agents.ppo import PPOAgent
    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    spec = get_spec("cherry_picking")
    env = FruitSB3VecEnv("cherry_picking", num_envs=32, num_players=3, opponent="random", reward=reward)
    learner = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=64, policy_kwargs={"net_arch": [16]})
    pool = [PPOAgent(learner, spec, env.config, deterministic=False), make_agent("greedy", spec, env.config)]
    env.set_opponents(pool, [0.5, 0.5])
    env.reset()
    rng = np.random.default_rng(0)
    checked = 0
    captured = {}
    original = env.batch._outcome

    def spy(games, illegal):
        scores = spec.rules.final_scores(env.batch.state.take(games))
        captured["own"] = scores[np.arange(len(games)), env.batch.seats[games]]
        captured["others"] = scores
        return original(games, illegal)

    env.batch._outcome = spy
    while checked < 60:
        masks = env.env_method("action_masks")
        env.step_async(np.argmax(np.where(masks, rng.random(masks.shape), -1), axis=1))
        _, _, dones, infos = env.step_wait()
        for j, g in enumerate(np.flatnonzero(dones)):
            episode_return = infos[g]["episode"]["r"]
            if reward == "score":
                assert episode_return == captured["own"][j]
            else:
                assert episode_return == infos[g]["outcome"]
            checked += 1
    assert checked >= 60


def test_help_documents_every_field():
    proc = subprocess.run(
        [sys.executable, "-m", "fruit_envs.training.train_ppo", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0
    import dataclasses

    for f in dataclasses.fields(train_ppo.Args):
        assert "--" + f.name.replace("_", "-") in proc.stdout, f.name


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--resume", "/nonexistent/run"], "no config.json there"),
        (["--options", "colour=red"], r"unknown option\(s\) \['colour'\]"),
        (["--options", "nonsense"], "--options takes name=value pairs"),
        # issue 19: -5 exited 0 and wrote model.zip; 0 games silently played 2; the *-every 0 raised
        # ZeroDivisionError after the run folder existed; --batch-size 0 a torch reshape error
        (["--total-timesteps", "-5"], "--total-timesteps must be an integer >= 1, got -5"),
        (["--eval-games", "0"], "--eval-games must be an integer >= 2, got 0"),
        (["--eval-every", "0"], "--eval-every must be an integer >= 1"),
        (["--checkpoint-every", "0"], "--checkpoint-every must be an integer >= 1"),
        (["--snapshot-every", "0"], "--snapshot-every must be an integer >= 1"),
        (["--batch-size", "0"], "--batch-size must be an integer >= 2"),
        (["--num-envs", "0"], "--num-envs must be an integer >= 1"),
        (["--learning-rate", "0"], "--learning-rate must be a positive number"),
        (["--gamma", "1.5"], r"--gamma must be in \[0.0, 1.0\]"),
        (["--league-baselines", "alphazero"], "unknown agent 'alphazero'"),
        (["--options", "same_sort_bonus=true"], "option same_sort_bonus must be a str"),
        (["--init-policy", "/nonexistent/model.zip"], "--init-policy /nonexistent/model.zip: no PPO model at"),
        # the shipped Cherry Picking baseline has 256 x 256 hidden layers
        (["--init-policy", "ppo-baseline", "--net-arch", "32"], r"hidden layers \[256, 256\].*--net-arch 256 256"),
        # Cherry Picking's 5 and 6 players are our extension: no baseline ships for them
        (["--num-players", "5", "--init-policy", "ppo-baseline"], "no PPO baseline is shipped"),
        (["--baseline-weight", "0.8", "--latest-weight", "0.5"], "together they must be at most 1"),
        (["--baseline-weight", "0.5", "--league-baselines"], "needs at least one --league-baselines agent"),
        (["--bc-opponent", "random"], r"--bc-opponent random needs --bc-games N > 0"),
        (["--bc-opponent", "random", "--bc-data", "d.npz"], "--bc-data d.npz already holds its games"),
        (["--bc-games", "10", "--bc-opponent", "alphazero"], "unknown agent 'alphazero'"),
    ],
)
def test_bad_arguments_are_clear_errors(argv, message, tmp_path, capsys):
    assert train_ppo.main([*argv, "--runs-dir", str(tmp_path), "--no-progress"]) == 2
    import re

    assert re.search(message, capsys.readouterr().err)
    assert not any(tmp_path.iterdir()), "a refused run leaves no folder behind"


def test_a_runs_dir_that_cannot_hold_folders_is_refused_first(tmp_path, capsys):
    blocker = tmp_path / "runs"
    blocker.write_text("a file")
    assert train_ppo.main(["--runs-dir", str(blocker), "--no-progress"]) == 2
    assert "--runs-dir" in capsys.readouterr().err and blocker.read_text() == "a file"


def test_a_run_saved_with_warm_start_flags_now_refused_still_resumes(tmp_path):
    """The --bc-opponent checks guard a run that starts; a resume plays no warm start, so a run folder
    saved before them (--bc-opponent beside --bc-data was then ignored) keeps resuming."""
    base = ["--total-timesteps", "128", "--eval-every", "128", "--checkpoint-every", "128", *TINY]
    assert train_ppo.main([*base, "--runs-dir", str(tmp_path), "--no-progress"]) == 0
    run = only_run(tmp_path)
    config = json.loads((run / "config.json").read_text())
    config["args"].update(bc_opponent="random", bc_data="gone.npz")
    (run / "config.json").write_text(json.dumps(config))
    assert train_ppo.main(["--resume", str(run), "--resume-total-timesteps", "256", "--no-progress"]) == 0
    assert json.loads((run / "summary.json").read_text())["timesteps"] >= 256


def test_init_policy_starts_from_given_weights(tmp_path):
    """--init-policy fine-tunes existing weights: PPO moves on from them, not from a new network."""
    from fruit_envs.agents.ppo import load_model

    base = ["--total-timesteps", "128", "--eval-every", "128", "--checkpoint-every", "128", "--seed", "7", *TINY]
    assert train_ppo.main([*base, "--runs-dir", str(tmp_path / "source")]) == 0
    source = only_run(tmp_path / "source") / "model.zip"
    assert train_ppo.main([*base, "--runs-dir", str(tmp_path / "tuned"), "--init-policy", str(source)]) == 0
    tuned = only_run(tmp_path / "tuned")
    assert [int(r["timesteps"]) for r in rows(tuned / "eval.csv")][:2] == [0, 0], "the given weights are evaluated"
    assert json.loads((tuned / "config.json").read_text())["args"]["init_policy"] == str(source)
    assert train_ppo.main([*base, "--runs-dir", str(tmp_path / "fresh"), "--seed", "8"]) == 0

    def drift(run: Path) -> float:
        a, b = load_model(source).policy.state_dict(), load_model(run / "model.zip").policy.state_dict()
        return max(float((a[k] - b[k]).abs().max()) for k in a)

    assert drift(tuned) < 0.05 < drift(only_run(tmp_path / "fresh")), (
        drift(tuned),
        drift(only_run(tmp_path / "fresh")),
    )


@pytest.mark.slow
def test_default_training_beats_random(tmp_path, capsys):
    """The main job's defaults: PPO clearly beats random after the default budget."""
    assert train_ppo.main(["--runs-dir", str(tmp_path), "--no-progress"]) == 0
    summary = json.loads((only_run(tmp_path) / "summary.json").read_text())
    assert summary["eval"]["random"]["win_rate_low"] > 0.6


def test_short_training_improves_on_random_play(tmp_path):
    """Short CI version of the slow check above: a small budget already beats the untrained policy's 50%."""
    assert (
        train_ppo.main(
            [
                "--runs-dir",
                str(tmp_path),
                "--total-timesteps",
                "60000",
                "--opponent",
                "random",
                "--eval-every",
                "60000",
                "--eval-games",
                "200",
                "--num-envs",
                "64",
                "--no-progress",
            ]
        )
        == 0
    )
    summary = json.loads((only_run(tmp_path) / "summary.json").read_text())
    assert summary["eval"]["random"]["win_rate"] > 0.55


def test_sampled_evaluation_is_an_option(tmp_path, monkeypatch):
    """--no-eval-deterministic evaluates the masked policy by sampling; the default plays its argmax."""
    from fruit_envs.agents import ppo

    made = []
    original = ppo.PPOAgent.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        made.append(self.deterministic)

    monkeypatch.setattr(ppo.PPOAgent, "__init__", spy)
    argv = ["--total-timesteps", "512", "--num-envs", "16", "--n-steps", "16", "--eval-every", "512"]
    argv += ["--eval-games", "8", "--opponent", "random", "--no-progress"]
    assert train_ppo.main([*argv, "--runs-dir", str(tmp_path / "sampled"), "--no-eval-deterministic"]) == 0
    run = only_run(tmp_path / "sampled")
    assert json.loads((run / "config.json").read_text())["args"]["eval_deterministic"] is False
    assert made and not any(made), "every evaluation agent samples"
    assert {r["opponent"] for r in rows(run / "eval.csv")} == {"random", "greedy"}
    made.clear()
    assert train_ppo.main([*argv, "--runs-dir", str(tmp_path / "argmax")]) == 0
    assert made and all(made), "the default evaluates the policy's most likely action"


def test_train_reads_top_to_bottom():
    """Issue 55: `train()` is one straight line over named parts (run folder, evaluator, opponents, the
    learning loop), as cleanrl's trainer reads: no function or class defined inside it, and short."""
    import ast
    import inspect

    (function,) = ast.parse(inspect.getsource(train_ppo.train)).body
    inner = [n for n in ast.walk(function) if n is not function]
    nested = [n.name for n in inner if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert nested == [], f"train() defines {nested} inside it"
    assert function.end_lineno - function.lineno < 60
    for part in ("RunFolder", "Evaluator", "Opponents", "League", "learn", "warm_start"):
        assert part in inspect.getsource(train_ppo.train) and callable(getattr(train_ppo, part)), part
