"""Ctrl-C during a benchmark: it says how many cells it kept and the command that goes on, exits 130 without a
traceback, even with two signals at once, and the resumed run ends with the card one run would have made."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = ["greedy", "--suite", "quick", "--games", "cherry_picking", "fruit_picking", "quickity_pickity",
       "--games-per-cell", "24", "--workers", "2", "--no-progress"]  # fmt: skip


def _benchmark(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "fruit_envs.benchmarks.benchmark", *args], cwd=cwd, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip


def test_ctrl_c_keeps_the_cells_says_how_to_go_on_and_resumes_to_the_same_card(tmp_path):
    out = tmp_path / "stopped"
    job = _benchmark(*RUN, "--out", str(out), cwd=tmp_path)
    try:
        deadline = time.time() + 120
        while not list((out / "units").glob("*.pkl")) and time.time() < deadline and job.poll() is None:
            time.sleep(0.1)  # stop it once a cell is kept, before the last one is
        assert job.poll() is None, "the run ended before it could be stopped"
        os.killpg(job.pid, signal.SIGINT)
        time.sleep(0.05)
        os.killpg(job.pid, signal.SIGINT)
        _, err = job.communicate(timeout=60)
    finally:
        if job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
    assert job.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    said = re.search(r"stopped: (\d+) of (\d+) cells kept in (\S+); `(.+)` goes on", err)
    assert said, err
    kept, total = int(said.group(1)), int(said.group(2))
    assert 1 <= kept < total == 12 and Path(said.group(3)) == out
    again = shlex.split(said.group(4))
    assert again[0] == "fruit-envs-benchmark" and again[-1] == "--resume"
    resumed = subprocess.run(
        [sys.executable, "-m", "fruit_envs.benchmarks.benchmark", *again[1:]], cwd=tmp_path, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    from fruit_envs.benchmarks.benchmark import cli

    one_run = [*RUN[: RUN.index("--workers")], "--workers", "1", "--no-progress", "--out", str(tmp_path / "whole")]
    assert cli.main(one_run) == 0  # in this process, on one worker: the same games whatever plays them
    cards = [json.loads((folder / "card.json").read_text()) for folder in (out, tmp_path / "whole")]
    assert cards[0]["merkle_root"] == cards[1]["merkle_root"] and cards[0]["status"] == "complete"
