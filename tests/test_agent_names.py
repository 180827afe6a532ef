"""Issue 54, point 1: one way to name an agent everywhere (`fruit_envs.agents.resolve_agent`).

Every place that takes an agent (play, tournament, search_strength, the benchmark, the trainers'
opponents and teachers, Gymnasium's `opponent=`) takes the same names, model paths and import paths,
an import path resolved from the current folder as `python -m` would, and a failed import says what
was tried. On 8a76e26 the console script could not import a module of the current folder, and play and
the tournament called `mypol:make` an unknown agent.
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import fruit_envs  # noqa: F401  (registers the ids)
from fruit_envs import play
from fruit_envs.agents import AGENT_NAMES, make_agent, resolve_agent
from fruit_envs.benchmarks import benchmark, search_strength, tournament
from fruit_envs.core.spec import get_spec

POLICY = '''"""A user's policy: the lowest-index legal action."""
import numpy as np


class Lowest:
    name = "lowest"

    def __init__(self, spec=None, config=None):
        self.spec = spec

    def act(self, obs, mask, rng):
        return np.argmax(mask, axis=1).astype(np.int64)


def make(spec, config):
    return Lowest()


agent = Lowest()
'''


@pytest.fixture
def user_folder(tmp_path, monkeypatch, request):
    """A folder holding the user's policy module (a name unique to the test, so no import is cached),
    made the current folder, and the import path put back afterwards."""
    name = "mypol_" + request.node.name.split("[")[0].removeprefix("test_")[:40]
    (tmp_path / f"{name}.py").write_text(POLICY)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    yield tmp_path, name
    sys.modules.pop(name, None)


def lowest_legal(agent, game="cherry_picking") -> bool:
    mask = np.array([[False, True, True], [True, False, False]])
    return agent.act(None, mask, np.random.default_rng(0)).tolist() == [1, 0]


def test_import_path_from_the_current_folder(user_folder):
    folder, name = user_folder
    assert str(folder) not in sys.path, "the test starts with the folder off the import path, as a console script"
    source = resolve_agent(f"{name}:make")
    assert (source.label, source.kind) == (f"{name}:make", "factory")
    assert lowest_legal(source.build(get_spec("cherry_picking"), get_spec("cherry_picking").make_config(2)))
    assert resolve_agent(f"{name}:agent").kind == "object"
    assert lowest_legal(make_agent(f"{name}:Lowest", "cherry_picking")), "a class is built like a factory"


def test_file_path_form(user_folder):
    folder, name = user_folder
    (folder / "sub").mkdir()
    (folder / "sub" / "filepol.py").write_text(POLICY)
    try:
        assert lowest_legal(make_agent("sub/filepol.py:make", "cherry_picking"))
    finally:
        sys.modules.pop("filepol", None)
    with pytest.raises(ValueError, match=r"no Python file at 'sub/nothing.py'"):
        resolve_agent("sub/nothing.py:make")
    (folder / "sub" / "json.py").write_text(POLICY)
    with pytest.raises(ValueError, match=r"the name 'json' is already taken by .*json.*rename the file"):
        resolve_agent("sub/json.py:make")


def test_model_path_is_a_ppo_model(tmp_path):
    model = Path(fruit_envs.agents.__file__).parent / "baselines" / "cherry_picking_2p.zip"
    assert resolve_agent(str(model)).kind == "model"
    agent = make_agent(str(model), "cherry_picking", get_spec("cherry_picking").make_config(2))
    assert agent.deterministic, "a model path is played by its argmax, as ppo:PATH"
    with pytest.raises(ValueError, match=r"no PPO model at '.*missing.zip'"):
        resolve_agent(str(tmp_path / "missing.zip"))


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("alphazero", r"unknown agent 'alphazero'; known agents are \[.*'rllib:PATH'\], or PATH.zip .*module:make"),
        ("nosuchmodule_x:make", r"cannot import 'nosuchmodule_x': no module 'nosuchmodule_x' in .* \(looked in first"),
        ("1bad:make", r"'1bad' is not a module name"),
        ("mod:", r"neither a known agent .* nor an import path"),
    ],
)
def test_names_that_resolve_to_nothing_say_what_was_tried(name, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=message):
        resolve_agent(name)


def test_an_import_that_fails_inside_the_module_says_so(user_folder):
    folder, _ = user_folder
    (folder / "brokenpol_x.py").write_text("import nonexistent_dependency_x\n")
    with pytest.raises(
        ValueError, match=r"'brokenpol_x' was found but importing it failed: .*nonexistent_dependency_x"
    ):
        resolve_agent("brokenpol_x:make")
    with pytest.raises(ValueError, match=r"module '.*' \(.*\) has no 'nothing'"):
        resolve_agent(f"{user_folder[1]}:nothing")


def test_builtin_names_win_over_import_paths():
    assert resolve_agent("search:rollouts=2,depth=1").kind == "name"
    assert resolve_agent("greedy").kind == "name" and "ppo:PATH" in AGENT_NAMES


def test_play_takes_an_import_path(user_folder):
    _, name = user_folder
    out = io.StringIO()
    code = play.main(
        ["--game", "cherry_picking", "--opponents", f"{name}:make", "--seat", "0", "--no-record", "--seed", "3"],
        stdin=io.StringIO("1\n" * 400),
        out=out,
    )
    assert code == 0 and f"you against {name}:make" in out.getvalue() and "game over" in out.getvalue()


def test_tournament_takes_an_import_path(user_folder, capsys):
    folder, name = user_folder
    argv = ["--game", "cherry_picking", "--agents", f"{name}:make", "greedy", "--games", "2", "--out", "t"]
    assert tournament.main(argv) == 0
    assert f"| {name}:make | 4 |" in (folder / "t" / "summary.md").read_text()


def test_search_strength_takes_an_import_path(user_folder):
    folder, name = user_folder
    argv = ["--games", "cherry_picking", "--agent", f"{name}:make", "--opponent", "random", "--num-games", "2"]
    assert search_strength.main([*argv, "--strength-only", "--out", str(folder / "s")]) == 0
    (saved,) = (folder / "s").iterdir()
    assert json.loads(saved.read_text())["strength"]["games"] == 2


def test_gymnasium_opponent_takes_an_import_path(user_folder):
    _, name = user_folder
    env = gymnasium.make("fruit_envs/CherryPicking-v0", opponent=f"{name}:make")
    _, info = env.reset(seed=0)
    assert info["action_mask"].any()
    env.close()


def test_trainer_opponent_and_teacher_take_an_import_path(user_folder):
    """`--opponent` was a choice of random, greedy or self-play; now any agent, checked before the run."""
    from fruit_envs.training import train_ppo

    folder, name = user_folder
    argv = ["--total-timesteps", "256", "--num-envs", "8", "--n-steps", "32", "--eval-every", "256"]
    argv += ["--eval-games", "2", "--no-progress", "--runs-dir", str(folder / "runs")]
    assert train_ppo.main([*argv, "--opponent", f"{name}:make", "--bc-games", "2", "--bc-teacher", f"{name}:make"]) == 0
    (run,) = (folder / "runs").iterdir()
    assert json.loads((run / "config.json").read_text())["args"]["opponent"] == f"{name}:make"
    assert train_ppo.main([*argv, "--opponent", "nosuchmodule_y:make"]) == 2
    assert len(list((folder / "runs").iterdir())) == 1, "a bad opponent is refused before a run folder exists"


def test_benchmark_api_and_error(user_folder):
    _, name = user_folder
    assert benchmark.resolve_policy(f"{name}:make").kind == "factory"
    with pytest.raises(benchmark.BenchmarkError, match=r"^policy 'nosuchmodule_z:make': cannot import"):
        benchmark.resolve_policy("nosuchmodule_z:make")


def test_console_script_imports_from_the_current_folder(tmp_path):
    """The issue's report: `fruit-envs-benchmark mypol:make`, in the folder that holds mypol.py."""
    script = Path(sys.executable).parent / "fruit-envs-benchmark"
    script = script if script.exists() else shutil.which("fruit-envs-benchmark")
    if script is None:
        pytest.skip("fruit-envs-benchmark is not installed in this environment")
    (tmp_path / "mypol.py").write_text(POLICY)
    proc = subprocess.run(
        [str(script), "mypol:make", "--suite", "quick", "--games", "cherry_picking:2", "--games-per-cell", "4"]
        + ["--references", "random", "--out", "out", "--no-progress"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["policy"]["label"] == "mypol:make" and report["policy"]["kind"] == "factory"


def test_a_factory_that_returns_no_agent_is_refused(user_folder):
    folder, _ = user_folder
    (folder / "notagent_x.py").write_text("def make(spec, config):\n    return 42\n")
    try:
        with pytest.raises(ValueError, match=r"factory notagent_x:make returned 42 for cherry_picking with 2 players"):
            make_agent("notagent_x:make", "cherry_picking")
        with pytest.raises(
            benchmark.BenchmarkError, match=r"^policy 'notagent_x:make': factory notagent_x:make returned"
        ):
            benchmark.evaluate("notagent_x:make", suite="quick", only=["cherry_picking:2"], out=None)
    finally:
        sys.modules.pop("notagent_x", None)
