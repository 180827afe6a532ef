"""What a user installs and runs: the console scripts, where commands write, provenance, and the wheel itself.

Issue 20: the wheel installed four generic top-level packages (`agents` collided with another
distribution's), commands wrote their results into site-packages, and training looked for git there.
The wheel tests build the wheel, install it into a fresh venv beside a stranger's top-level `agents`
package, run the commands there and check that the venv holds no file they wrote.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

import fruit_envs
from fruit_envs import _checkout
from fruit_envs.benchmarks import throughput, tournament

tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml with tomllib")

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SCRIPTS = PYPROJECT["project"]["scripts"]
README = (ROOT / "README.md").read_text()
INSTALL_PAGE = (ROOT / "docs" / "install.md").read_text()
TINY_THROUGHPUT = ["--games", "cherry_picking", "--players", "2", "--sizes", "1", "--seconds", "0.02"]
TINY_THROUGHPUT += ["--processes", "1", "--no-peers"]
TINY_TRAIN = ["--total-timesteps", "256", "--eval-every", "256", "--checkpoint-every", "256", "--num-envs", "8"]
TINY_TRAIN += [
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
    "4",
]
TINY_TRAIN += ["--no-progress"]


# --- console scripts -----------------------------------------------------------------------------


def test_console_scripts_are_the_user_facing_commands():
    assert SCRIPTS == {
        "fruit-envs-train": "fruit_envs.training.train_ppo:main",
        "fruit-envs-train-rllib": "fruit_envs.training.train_rllib:main",
        "fruit-envs-demonstrations": "fruit_envs.training.bc:main",
        "fruit-envs-average": "fruit_envs.training.average:main",
        "fruit-envs-baselines": "fruit_envs.training.baselines:main",
        "fruit-envs-tournament": "fruit_envs.benchmarks.tournament:main",
        "fruit-envs-benchmark": "fruit_envs.benchmarks.benchmark:main",
        "fruit-envs-throughput": "fruit_envs.benchmarks.throughput:main",
        "fruit-envs-truncation": "fruit_envs.benchmarks.truncation:main",
        "fruit-envs-play": "fruit_envs.play:main",
        "fruit-envs-replay": "fruit_envs.replay:main",
        "fruit-envs-pictures": "fruit_envs.pictures:main",
        "fruit-envs-web": "fruit_envs.web:main",
    }


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_console_script_answers_help(script, capsys, monkeypatch):
    """`--help` works through the same `main` the console script calls, naming the form it was run as."""
    module, function = SCRIPTS[script].split(":")
    main = getattr(importlib.import_module(module), function)
    monkeypatch.setattr(sys, "argv", ["pytest"])
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code in (0, None)
    assert f"usage: python -m {module}" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", [f"/somewhere/bin/{script}"])
    with pytest.raises(SystemExit):
        main(["--help"])
    assert f"usage: {script}" in capsys.readouterr().out


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_docs_document_each_console_script_beside_its_module_form(script):
    """The commands table moved from the README to the site's page docs/install.md (issue 36)."""
    module = SCRIPTS[script].split(":")[0]
    assert f"`{script}`" in INSTALL_PAGE and f"python -m {module}" in INSTALL_PAGE


# --- where commands write ------------------------------------------------------------------------


def test_tournament_results_default_to_the_current_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    args = ["--game", "cherry_picking", "--agents", "random", "greedy", "--games", "2", "--no-progress"]
    assert tournament.main(args) == 0
    (out,) = (tmp_path / "results" / "tournament").iterdir()
    assert out.name.startswith("cherry_picking_2p_") and (out / "results.json").is_file()
    assert f"results in {out.relative_to(tmp_path)}" in capsys.readouterr().out


def test_throughput_results_default_to_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert throughput.main(TINY_THROUGHPUT) == 0
    assert sorted(p.name for p in (tmp_path / "results").iterdir()) == [
        "throughput.json",
        "throughput.md",
        "throughput.png",
    ]


def test_update_readme_is_refused_outside_a_checkout(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(throughput, "checkout_root", lambda: None)
    measured = []
    monkeypatch.setattr(throughput, "run", lambda *a, **k: measured.append(1))
    assert throughput.main([*TINY_THROUGHPUT, "--update-readme"]) == 2
    assert "--update-readme refreshes the README of a source checkout" in capsys.readouterr().err
    assert not measured and not list(tmp_path.iterdir()), "refused before measuring or writing anything"


def test_update_readme_in_a_checkout_writes_beside_its_readme(tmp_path, monkeypatch):
    checkout, elsewhere = tmp_path / "checkout", tmp_path / "elsewhere"
    checkout.mkdir()
    elsewhere.mkdir()
    (checkout / "docs").mkdir()
    for page in ("README.md", "docs/performance.md"):
        (checkout / page).write_text("intro\n<!-- throughput:start -->\nold\n<!-- throughput:end -->\n")
    monkeypatch.setattr(throughput, "checkout_root", lambda: checkout)
    monkeypatch.chdir(elsewhere)
    assert throughput.main([*TINY_THROUGHPUT, "--update-readme"]) == 0
    assert (checkout / "benchmarks" / "results" / "throughput.json").is_file()
    readme, page = (checkout / "README.md").read_text(), (checkout / "docs" / "performance.md").read_text()
    assert "old" not in readme and "| cherry_picking | 2 |" in readme and "N=1 |" not in readme  # the summary
    assert "old" not in page and (checkout / "benchmarks" / "results" / "throughput.md").read_text() in page
    assert not list(elsewhere.iterdir())


@pytest.mark.skipif(not (ROOT / ".git").exists() or not shutil.which("git"), reason="not a git checkout")
def test_provenance_from_a_checkout_is_its_commit():
    assert _checkout.checkout_root() == ROOT
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    git = _checkout.provenance()["git"]
    assert git["commit"] == head and isinstance(git["dirty"], bool)


def test_version_has_one_source():
    assert PYPROJECT["project"]["dynamic"] == ["version"] and "version" not in PYPROJECT["project"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "fruit_envs.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+(\.dev\d+)?", fruit_envs.__version__)
    released = fruit_envs.__version__.split(".dev")[0] if ".dev" not in fruit_envs.__version__ else None
    assert released is None or f"## {released}" in (ROOT / "CHANGELOG.md").read_text()


# --- the wheel -----------------------------------------------------------------------------------


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_foreign_agents_wheel(folder: Path) -> Path:
    """A stranger's distribution owning a top-level `agents` package, as openai-agents does."""
    info = "dummy_agents-1.0.dist-info"
    files = {
        "agents/__init__.py": b'OWNER = "dummy-agents"\n',
        f"{info}/METADATA": b"Metadata-Version: 2.1\nName: dummy-agents\nVersion: 1.0\n",
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{info}/top_level.txt": b"agents\n",
    }
    record = "\n".join([*(_record_line(n, d) for n, d in files.items()), f"{info}/RECORD,,"]) + "\n"
    path = folder / "dummy_agents-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in {**files, f"{info}/RECORD": record.encode()}.items():
            wheel.writestr(name, data)
    return path


def build_wheel(folder: Path) -> Path:
    """Our wheel, built from a copy of the sources (the checkout gets no build/ or egg-info)."""
    source = folder / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "results", "*.egg-info")
    for name in ("fruit_envs", "agents", "training", "benchmarks"):
        shutil.copytree(ROOT / name, source / name, ignore=skip)
    cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(folder), "."]
    proc = subprocess.run(cmd, cwd=source, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = folder.glob("fruit_envs-*.whl")
    return wheel


def _can_build() -> str | None:
    """Why this interpreter cannot build and install the wheel offline, or None."""
    try:
        import setuptools
    except ImportError:
        return "setuptools is not installed"
    if int(setuptools.__version__.split(".")[0]) < 77:
        return f"setuptools {setuptools.__version__} < 77 (PEP 639 license field)"
    pip = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True, text=True)
    found = re.search(r"pip (\d+)\.(\d+)", pip.stdout)
    if not found or (int(found[1]), int(found[2])) < (22, 3):
        return "pip >= 22.3 is needed (pip --python)"
    return None


class WheelVenv:
    """A fresh venv holding our wheel and the foreign `agents` wheel, reaching the test environment's
    already-installed dependencies through a .pth line (nothing is downloaded)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.wheel = build_wheel(folder)
        self.foreign = build_foreign_agents_wheel(folder)
        # the venv sits inside a git repository with a commit: provenance must not record that commit as ours
        self.venv = folder / "repo" / "venv"
        self.venv.parent.mkdir()
        if shutil.which("git"):
            git = ["git", "-C", str(self.venv.parent), "-c", "user.name=t", "-c", "user.email=t@t"]
            subprocess.run([*git, "init", "-q"], check=True)
            subprocess.run([*git, "commit", "-q", "--allow-empty", "--no-verify", "-m", "not ours"], check=True)
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", "--without-pip", str(self.venv)], check=True, timeout=120)
        self.python = self.venv / "bin" / "python"
        self.pip("install", "--no-deps", "--no-index", str(self.wheel), str(self.foreign))
        site = subprocess.run(
            [str(self.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        self.site_packages = Path(site)
        # a directory named in a .pth file joins sys.path; its own .pth files (an editable install's finder) do not run
        ours = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
        (self.site_packages / "_test_dependencies.pth").write_text("\n".join(ours) + "\n")
        self.work = folder / "work"
        self.work.mkdir()

    def pip(self, *args: str) -> None:
        cmd = [sys.executable, "-m", "pip", "--python", str(self.python), *args, "-q"]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stdout + proc.stderr

    def run(self, *cmd: str, cwd: Path | None = None, expect: int = 0) -> subprocess.CompletedProcess:
        """A command of the venv (`python` or a console script) in the work folder, as a user would run it."""
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        env.update(PATH=f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", MPLBACKEND="Agg")
        exe = str(self.venv / "bin" / cmd[0])
        proc = subprocess.run(
            [exe, *cmd[1:]], cwd=cwd or self.work, env=env, capture_output=True, text=True, timeout=600
        )
        assert proc.returncode == expect, f"{cmd}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
        return proc

    def snapshot(self) -> dict[str, tuple[int, int]]:
        """Every file of the venv with its size and modification time."""
        return {
            str(p.relative_to(self.venv)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in self.venv.rglob("*")
            if p.is_file()
        }


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    reason = _can_build()
    if reason:
        pytest.skip(f"cannot build the wheel offline here: {reason}")
    return WheelVenv(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_installs_only_fruit_envs(wheel_venv):
    """Done when: the wheel's top_level.txt/RECORD lists only `fruit_envs` (+ dist-info)."""
    version = fruit_envs.__version__
    info = f"fruit_envs-{version}.dist-info"
    assert wheel_venv.wheel.name == f"fruit_envs-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel_venv.wheel) as wheel:
        names = wheel.namelist()
        top_level = wheel.read(f"{info}/top_level.txt").decode().split()
        record = [line.split(",")[0] for line in wheel.read(f"{info}/RECORD").decode().splitlines()]
        metadata = wheel.read(f"{info}/METADATA").decode()
        entry_points = wheel.read(f"{info}/entry_points.txt").decode()
    assert top_level == ["fruit_envs"]
    assert sorted(record) == sorted(names)
    assert {name.split("/")[0] for name in names} == {"fruit_envs", info}
    for package in ("agents", "training", "benchmarks"):
        assert f"fruit_envs/{package}/__init__.py" in names
    assert "fruit_envs/py.typed" in names
    recipes = sorted(
        p.relative_to(ROOT / "training" / "recipes").as_posix() for p in (ROOT / "training" / "recipes").rglob("*.yaml")
    )
    assert recipes and all(f"fruit_envs/training/recipes/{name}" in names for name in recipes)
    protocols = sorted(p.name for p in (ROOT / "benchmarks").glob("protocol_v*.yaml"))
    assert protocols and all(f"fruit_envs/benchmarks/{name}" in names for name in protocols), "protocols ship"
    shipped = sorted(p.name for p in (ROOT / "agents" / "baselines").glob("*.*"))
    assert all(f"fruit_envs/agents/baselines/{name}" in names for name in shipped), "the PPO baselines ship"
    assert not [n for n in names if "/results/" in n], "the project's own results stay in the repository"
    assert f"Version: {version}" in metadata and "Classifier: Typing :: Typed" in metadata
    assert all(f"{script} = {target}" in entry_points for script, target in SCRIPTS.items())
    installed = (wheel_venv.site_packages / info / "RECORD").read_text()
    assert "agents/" not in installed.replace("fruit_envs/agents/", "")


def test_the_wheel_works_beside_a_foreign_agents_package(wheel_venv):
    """Issue 20: beside another distribution's top-level `agents`, `opponent="greedy"` works, a tournament
    and a training run write to the current directory, and the venv gains no file but numba's cache of
    the compiled rules."""
    before = wheel_venv.snapshot()
    site = str(wheel_venv.site_packages)
    check = f"""
import sys, gymnasium, fruit_envs, agents
from fruit_envs import _checkout
assert fruit_envs.__file__.startswith({site!r}), fruit_envs.__file__
assert agents.OWNER == "dummy-agents", "the stranger's agents package is untouched"
env = gymnasium.make(fruit_envs.get_spec("cherry_picking").gym_id, opponent="greedy")
obs, info = env.reset(seed=0)
done = False
while not done:
    obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))
    done = terminated or truncated
import fruit_envs.agents, fruit_envs.training.train_ppo, fruit_envs.benchmarks.tournament
assert fruit_envs.agents.__file__.startswith({site!r})
assert not {{"training", "benchmarks"}} & set(sys.modules), "one import name per module"
assert _checkout.checkout_root() is None and _checkout.provenance() == {{}}
print("outcome", info["outcome"], "version", fruit_envs.__version__)
"""
    assert f"version {fruit_envs.__version__}" in wheel_venv.run("python", "-c", check).stdout

    record = wheel_venv.work / "games.jsonl"
    cmd = ["python", "-m", "fruit_envs.benchmarks.tournament", "--game", "cherry_picking", "--games", "2"]
    wheel_venv.run(*cmd, "--agents", "random", "greedy", "--no-progress", "--record", str(record))
    (results,) = (wheel_venv.work / "results" / "tournament").iterdir()
    assert json.loads((results / "results.json").read_text())["total_games"] == 4
    assert "cherry_picking" in wheel_venv.run("fruit-envs-replay", str(record), "--summary").stdout

    wheel_venv.run("fruit-envs-train", *TINY_TRAIN)
    (run,) = (wheel_venv.work / "runs").iterdir()
    config = json.loads((run / "config.json").read_text())
    assert "git" not in config, "no checkout: provenance omitted, never another repository's commit"
    assert config["versions"]["fruit_envs"] == fruit_envs.__version__
    assert (run / "model.zip").is_file() and (run / "summary.json").is_file()

    # issue 32: the benchmark from the wheel (a slice of the quick suite), its three report files
    bench = ["fruit-envs-benchmark", "greedy", "--suite", "quick", "--games", "cherry_picking"]
    bench += ["--games-per-cell", "2", "--references", "random", "ppo-baseline", "--no-progress"]
    assert "aggregate normalised score" in wheel_venv.run(*bench, "--out", "bench").stdout
    assert sorted(p.name for p in (wheel_venv.work / "bench").iterdir()) == [
        "card.json",
        "games.npz",
        "report.json",
        "report.md",
        "report.png",
    ]

    refused = wheel_venv.run("fruit-envs-throughput", "--update-readme", expect=2)
    assert "README of a source checkout" in refused.stderr

    after = wheel_venv.snapshot()
    # numba caches the compiled rules beside their sources, as Python does with bytecode (issue 33): the
    # only files the venv may gain are those, in fruit_envs' own __pycache__ folders
    cache = {
        k
        for k in set(after) - set(before)
        if "/fruit_envs/" in k and "/__pycache__/" in k and k[-4:] in (".nbi", ".nbc")
    }
    assert cache, "the kernels were compiled and cached beside the installed package"
    after = {k: v for k, v in after.items() if k not in cache}
    assert after == before, f"files written or changed in the venv: {sorted(set(after.items()) ^ set(before.items()))}"


def test_every_console_script_of_the_installed_wheel_answers_help(wheel_venv):
    code = f"""
import contextlib, io, sys
from importlib.metadata import distribution
dist = distribution("fruit_envs")
assert str(dist.locate_file("")) == {str(wheel_venv.site_packages)!r}
scripts = {{ep.name: ep for ep in dist.entry_points if ep.group == "console_scripts"}}
assert sorted(scripts) == {sorted(SCRIPTS)!r}, sorted(scripts)
for name, ep in scripts.items():
    sys.argv = [name]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            ep.load()(["--help"])
        except SystemExit as exit_:
            assert exit_.code in (0, None), (name, exit_.code)
    assert out.getvalue().startswith(f"usage: {{name}}"), (name, out.getvalue()[:200])
"""
    wheel_venv.run("python", "-c", code)
    for script in SCRIPTS:
        assert (wheel_venv.venv / "bin" / script).is_file()


@pytest.mark.slow
def test_uninstalling_the_foreign_agents_leaves_ours_whole(wheel_venv, tmp_path):
    """Issue 20: uninstalling the other distribution used to delete our agents/__init__.py too."""
    pytest.importorskip("PIL", reason="pictures need the render extra (Pillow)")
    wheel_venv.pip("uninstall", "-y", "dummy-agents")
    try:
        _check_without_foreign_agents(wheel_venv, tmp_path)
    finally:  # the module's other tests expect the stranger's package in place
        wheel_venv.pip("install", "--no-deps", "--no-index", str(wheel_venv.foreign))


def _check_without_foreign_agents(wheel_venv: WheelVenv, tmp_path: Path) -> None:
    assert not (wheel_venv.site_packages / "agents").exists()
    before = wheel_venv.snapshot()
    code = """
import gymnasium, fruit_envs
from fruit_envs.agents import make_agent
env = gymnasium.make(fruit_envs.get_spec("juicy_fruits").gym_id, opponent="greedy")
env.reset(seed=1)
try:
    import agents
except ImportError:
    print("no bare agents")
"""
    assert "no bare agents" in wheel_venv.run("python", "-c", code).stdout
    wheel_venv.run("fruit-envs-pictures", "pictures", cwd=tmp_path)
    assert len(list((tmp_path / "pictures").glob("*.png"))) == len(fruit_envs.registered_games())
    wheel_venv.run("fruit-envs-throughput", *TINY_THROUGHPUT, cwd=tmp_path)
    assert (tmp_path / "results" / "throughput.json").is_file()
    assert wheel_venv.snapshot() == before
