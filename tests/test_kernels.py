"""The compiled kernels (issue 33): loaded only when a game first runs, cached where they can be, and the
same game everywhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = """
import json, sys
import numpy as np
import fruit_envs
assert "numba" not in sys.modules, "import fruit_envs must not load numba"
from fruit_envs import cherry_picking_v0
env = cherry_picking_v0.env()
env.reset(seed=3)
obs, *_ = env.last()
env.step(int(np.flatnonzero(obs["action_mask"])[0]))
obs, *_ = env.last()
from fruit_envs.core import kernels
print(json.dumps({"cached": kernels.CACHED, "obs": obs["observation"].tolist()}))
"""


def _run(env: dict) -> dict:
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_kernels_load_lazily_and_run_where_no_cache_can_be_written():
    """`import fruit_envs` stays light; where numba finds no writable cache location the kernels still
    compile and play the same game (here numba may only cache under a path that cannot exist)."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
    normal = _run(base)
    nowhere = _run(
        base | {"NUMBA_CACHE_DIR": "/dev/null/cache", "NUMBA_CACHE_LOCATOR_CLASSES": "UserProvidedCacheLocator"}
    )
    assert normal["cached"] and not nowhere["cached"]
    assert nowhere["obs"] == normal["obs"]


def test_compile_command_names_each_game_and_refuses_an_unknown_one(capsys):
    """`python -m fruit_envs.compile` (run by `./dev setup`) plays a short game of each named game through
    every kernel, and names the games when one is not known."""
    from fruit_envs import compile as fcompile

    assert fcompile.main(["cherry_picking"]) == 0
    assert capsys.readouterr().out.startswith("cherry_picking: ")
    assert fcompile.main(["chess"]) == 2
    assert "unknown game 'chess'; the games are ['cherry_picking'" in capsys.readouterr().err
