"""Submitting to the leaderboard as docs/contributing.md says, with a policy given as `module:make`: benchmark,
verify (the factory found in the submitter's own folder by the card's hash), copy the card, its games and
`entry.json` into a copy of the leaderboard, and the leaderboard's own tests pass on it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fruit_envs.benchmarks.benchmark import cli
from fruit_envs.benchmarks.benchmark.verify import verify_card

ROOT = Path(__file__).resolve().parents[1]
FACTORY = """
import numpy as np


class FirstLegal:
    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1)


def make(spec, config):
    return FirstLegal()
"""


def test_a_factory_entry_goes_through_the_submission_path(tmp_path, monkeypatch, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "mypol_submitted.py").write_text(FACTORY)
    monkeypatch.chdir(mine)
    run = ["mypol_submitted:make", "--suite", "quick", "--games", "cherry_picking:2", "--games-per-cell", "4"]
    assert cli.main([*run, "--workers", "1", "--no-progress", "--out", "results/mine"]) == 0
    capsys.readouterr()
    verified = verify_card(mine / "results" / "mine", sample=2, seed=5)  # run beside the module, as it was made
    assert verified["problems"] == [] and verified["replayed"] and not any(r["differ"] for r in verified["replayed"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the same card elsewhere: its module is not this folder's, so it is not imported
    assert cli.main(["verify", str(mine / "results" / "mine"), "--sample", "2"]) == 2
    assert "or run verify in the folder that holds your module" in capsys.readouterr().err

    board = tmp_path / "leaderboard"
    shutil.copytree(ROOT / "leaderboard" / "protocol_v1", board)
    entry = board / "mypol-first-legal"
    entry.mkdir()
    for name in ("card.json", "games.npz"):
        shutil.copy(mine / "results" / "mine" / name, entry / name)
    (entry / "entry.json").write_text(json.dumps({"name": "first legal", "code": "mypol_submitted.py", "notes": "x"}))
    assert cli.main(["leaderboard", str(board)]) == 0
    assert "first legal" in capsys.readouterr().out

    env = {**os.environ, "FRUIT_ENVS_LEADERBOARD": str(board)}
    checks = "holds or verifies_its_games or ranks or site_has or escaped"  # what an entry changes
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "tests/test_leaderboard.py",
         "-k", checks, "-m", "not slow"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "failed" not in done.stdout


@pytest.mark.parametrize("label", ["os:getcwd", "mypol_submitted:make"])
def test_a_factory_outside_the_folder_or_of_another_hash_is_never_imported(tmp_path, monkeypatch, label):
    """A card's module is imported only from the folder verify runs in and only with the card's hash: a module
    elsewhere (the standard library) or a file of another content is refused before any import."""
    from fruit_envs.benchmarks.benchmark.card_policy import own_factory
    from fruit_envs.benchmarks.benchmark.protocol import load_protocol

    marker = tmp_path / "imported"
    (tmp_path / "mypol_submitted.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef make(s, c): pass\n")
    monkeypatch.chdir(tmp_path)
    card = {"policy": {"label": label, "sha256": "0" * 64, "kind": "factory"}}
    assert own_factory(card, load_protocol(1)) is None
    assert not marker.exists()
