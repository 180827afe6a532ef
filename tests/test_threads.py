"""Thread counts (issue 30): no process we start runs more torch threads than the cores it may use."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from fruit_envs.core import threads

ROOT = Path(__file__).resolve().parents[1]


def test_usable_cores_reads_the_affinity_mask_and_a_cgroup_quota(tmp_path, monkeypatch):
    assert 1 <= threads.usable_cores() <= (os.cpu_count() or 1)
    (tmp_path / "cpu.max").write_text("150000 100000\n")  # cgroup v2: one and a half CPUs
    assert threads.cgroup_cpu_quota(tmp_path) == 1.5
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert threads.cgroup_cpu_quota(tmp_path) is None
    v1 = tmp_path / "v1"
    (v1 / "cpu").mkdir(parents=True)
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("100000")
    (v1 / "cpu" / "cpu.cfs_period_us").write_text("100000")
    assert threads.cgroup_cpu_quota(v1) == 1.0
    (v1 / "cpu" / "cpu.cfs_quota_us").write_text("-1")
    assert threads.cgroup_cpu_quota(v1) is None
    monkeypatch.setattr(threads, "cgroup_cpu_quota", lambda: 1.5)
    assert threads.usable_cores() == 1, "a quota of 1.5 CPUs keeps one thread busy at most"


def test_thread_count_order_default_environment_request_and_the_cap(monkeypatch):
    monkeypatch.setattr(threads, "usable_cores", lambda: 4)
    monkeypatch.delenv(threads.ENV_VAR, raising=False)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert threads.torch_thread_count() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert threads.torch_thread_count() == 3
    monkeypatch.setenv(threads.ENV_VAR, "2")
    assert threads.torch_thread_count() == 2
    assert threads.torch_thread_count(4) == 4 and threads.torch_thread_count(64) == 4
    monkeypatch.setenv(threads.ENV_VAR, "many")
    with pytest.raises(ValueError, match=r"\$FRUIT_ENVS_TORCH_THREADS must be a positive integer, got 'many'"):
        threads.torch_thread_count()
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError, match="torch threads must be a positive integer"):
            threads.torch_thread_count(bad)


def test_limit_threads_sets_torch_and_what_child_processes_inherit(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(threads, "usable_cores", lambda: 2)
    before = torch.get_num_threads()
    try:
        assert threads.limit_threads(2) == 2 and torch.get_num_threads() == 2
        assert os.environ["OMP_NUM_THREADS"] == os.environ["MKL_NUM_THREADS"] == "2"
        assert threads.limit_threads(1) == 1 and torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(before)


def test_the_test_suite_itself_runs_one_torch_thread_per_worker():
    torch = pytest.importorskip("torch")
    assert torch.get_num_threads() == 1 and os.environ["OMP_NUM_THREADS"] == "1"


def test_both_trainers_share_one_definition_of_their_common_arguments():
    """Issue 30 point 3: train_ppo and train_rllib declared the same arguments and checks twice."""
    pytest.importorskip("tyro")
    from fruit_envs.training import common, train_ppo, train_rllib

    shared = {f.name for f in fields(common.TrainArgs)}
    assert {"torch_threads", "learning_rate", "runs_dir", "eval_games", "resume"} <= shared
    for trainer in (train_ppo, train_rllib):
        assert issubclass(trainer.Args, common.TrainArgs)
        assert trainer.Args().torch_threads is None  # the default: fruit_envs.core.threads decides
    spec_config = type("Config", (), {"num_players": 2})()
    for trainer, error in ((train_ppo, ValueError), (train_rllib, train_rllib.UsageError)):
        args = trainer.Args(torch_threads=0)
        with pytest.raises(error, match=r"--torch-threads must be an integer >= 1, got 0"):
            if trainer is train_ppo:
                trainer.check_args(args, None, spec_config)
            else:
                trainer.check_args(args, spec_config)


def test_train_ppo_records_the_thread_count_it_used(tmp_path):
    pytest.importorskip("sb3_contrib")
    runs = tmp_path / "runs"
    command = [sys.executable, "-m", "fruit_envs.training.train_ppo", "--total-timesteps", "256", "--num-envs", "8"]
    command += ["--n-steps", "16", "--batch-size", "64", "--eval-games", "2", "--runs-dir", str(runs), "--no-progress"]
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", threads.ENV_VAR)}
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    (config,) = runs.glob("*/config.json")
    assert json.loads(config.read_text())["torch_threads"] == 1, "one thread unless told otherwise"


def test_train_profile_measures_idle_and_loaded_speed(tmp_path):
    """The benchmark behind the README's table (`--load N`), on a short run."""
    pytest.importorskip("sb3_contrib")
    from fruit_envs.benchmarks import train_profile

    result = train_profile.main(["--load", "1", "--timesteps", "4096", "--out", str(tmp_path)])
    (row,) = result["results"]
    assert row["idle"] > 0 and row["loaded"] > 0 and row["ratio"] == pytest.approx(row["loaded"] / row["idle"])
    saved = json.loads((tmp_path / "train_profile.json").read_text())
    assert saved["load"] == 1 and saved["results"] == result["results"]
    assert "| train_ppo's default |" in (tmp_path / "train_profile.md").read_text()
