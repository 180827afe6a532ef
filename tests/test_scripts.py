"""The main job, the benchmark and a short MaskablePPO run work as a user would run them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def test_demo_prints_a_game_and_a_result_table(capsys):
    from fruit_envs.training import demo

    table = demo.main(["--games", "40", "--players", "2", "3"])
    out = capsys.readouterr().out
    assert "greedy (player_0)" in out and "-- set 3 scored" in out and "winner:" in out
    assert "| 2 | 40 |" in out and "| 3 | 39 |" in out
    assert table[2]["win_rate"] > 0.8, "greedy should beat random clearly"


def test_demo_runs_as_a_module():
    proc = subprocess.run(
        [sys.executable, "-m", "fruit_envs.training.demo", "--games", "8", "--players", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert "greedy win rate (95% CI)" in proc.stdout


def test_maskable_ppo_learns_2048_steps_on_the_vector_env(tmp_path, monkeypatch):
    """MaskablePPO trains on the batched SB3 VecEnv; illegal_action='raise' proves it never picks an illegal action."""
    from sb3_contrib import MaskablePPO

    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path))  # SB3's default logger would leave a folder in /tmp

    from fruit_envs.core.sb3_vec_env import FruitSB3VecEnv

    venv = FruitSB3VecEnv("cherry_picking", num_envs=16, num_players=2, opponent="random", illegal_action="raise")
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=256, n_epochs=2, seed=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    changed = [
        not np.allclose(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters(), strict=True)
    ]
    assert any(changed), "the policy's weights moved"
    assert len(model.ep_info_buffer) > 0, "finished episodes were logged"
