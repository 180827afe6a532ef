"""RL Zoo, for real (issue 54): the command on docs/ids.md trains plain PPO with `illegal_action="replace"`.

RL Zoo has no algorithm that reads an action mask, and with the env's default an illegal action loses the
game: its PPO lost every game in one or two steps. The page's command, run as written (only shortened, and
into a temporary folder), must play whole games. RL Zoo comes with the `clients` extra (./dev installs it);
without it these tests skip on a developer's machine and fail in CI.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
IDS_PAGE = (ROOT / "docs" / "ids.md").read_text()


@pytest.fixture(scope="module")
def rl_zoo3() -> None:
    if importlib.util.find_spec("rl_zoo3") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("rl_zoo3 is missing in CI: the clients extra installs it (./dev setup)")
        pytest.skip("rl_zoo3 is not installed: pip install -e '.[clients]' (./dev does)")


def page_command() -> str:
    """The bash block on docs/ids.md that runs RL Zoo."""
    (block,) = [b for b in re.findall(r"```bash\n(.*?)```", IDS_PAGE, flags=re.S) if "rl_zoo3.train" in b]
    return block


def monitor_rows(logs: Path) -> list[dict[str, str]]:
    """The games RL Zoo's `Monitor` wrote (`r`, `l`, and the page's `info_keywords`), one row per game."""
    (path,) = logs.glob("ppo/*/0.monitor.csv")
    lines = path.read_text().splitlines()[1:]  # the first line is Monitor's JSON header
    return list(csv.DictReader(lines))


def test_page_command_trains_plain_ppo_on_whole_games(rl_zoo3, tmp_path):
    command = page_command()
    assert "illegal_action:\"'replace'\"" in command and "--algo ppo" in command
    command = command.replace("python -m rl_zoo3.train", f"{sys.executable} -m rl_zoo3.train")
    command = command.rstrip() + " -n 1024 -f logs --seed 0 --device cpu\n"
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    games = monitor_rows(tmp_path / "logs")
    assert len(games) >= 5, games
    lengths = [int(game["l"]) for game in games]
    assert min(lengths) > 10, lengths  # every game played to its end, not lost at the first illegal move
    assert all(game["illegal_action"] == "False" for game in games)
    assert {int(float(game["outcome"])) for game in games} <= {-1, 0, 1}
    assert "ep_len_mean" in run.stdout
